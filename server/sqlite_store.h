// The embedded default store: one SQLite database in WAL mode inside the data directory, one
// writer thread doing group commits, one reader connection for lookups and the history API.
// docs/ARCHITECTURE.md ("Durability") states what each --sync level guarantees.
#pragma once

#include <memory>
#include <string>

#include "server/store.h"

namespace tf::server {

enum class SyncLevel { Full, Normal, Off };

// The schema version this build creates and understands.
inline constexpr int kSchemaVersion = 2;

// Opens (creating and migrating as needed) `dir`/trunkfield.db and locks the directory against
// a second server. Throws StoreError (refusing to start: `what()` says what and where).
std::unique_ptr<Store> open_sqlite_store(const std::string& dir, SyncLevel sync);

}  // namespace tf::server
