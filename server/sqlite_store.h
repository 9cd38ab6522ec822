// The embedded default store: one SQLite database in WAL mode inside the data directory, one
// writer thread doing group commits, one reader connection for lookups and the history API.
// docs/ARCHITECTURE.md ("Durability") states what each --sync level guarantees.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "server/store.h"

namespace tf::server {

enum class SyncLevel { Full, Normal, Off };

// Refusing to start: an unusable data directory or database. `what()` says what and where.
struct StoreError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The schema version this build creates and understands.
inline constexpr int kSchemaVersion = 1;

// Opens (creating and migrating as needed) `dir`/trunkfield.db and locks the directory against
// a second server. Throws StoreError.
std::unique_ptr<Store> open_sqlite_store(const std::string& dir, SyncLevel sync);

}  // namespace tf::server
