// The embedded default store: one SQLite database in WAL mode inside the data directory, one
// writer thread doing group commits, one reader connection for lookups and the history API.
// docs/ARCHITECTURE.md ("Durability") states what each --sync level guarantees.
#pragma once

#include <memory>
#include <string>

#include "server/store/store.h"

namespace tf::server {

enum class SyncLevel { Full, Normal, Off };

// The schema version this build creates and understands.
inline constexpr int kSchemaVersion = 11;

// The data folder's lock: an exclusive flock on `dir`/LOCK, held by a running server for its
// lifetime and by `trunkfield-server restore` while it replaces the store. Throws StoreError
// when the file cannot be opened, or with fault false when another process holds the lock.
class DataDirLock {
  public:
    static constexpr const char* kFile = "LOCK";
    explicit DataDirLock(const std::string& dir);
    ~DataDirLock();
    DataDirLock(const DataDirLock&) = delete;
    DataDirLock& operator=(const DataDirLock&) = delete;
    // Whether this lock made the file (restore hands a new one to the folder's owner).
    bool created() const { return created_; }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
    int fd_ = -1;
    bool created_ = false;
};

// Opens (creating and migrating as needed) `dir`/trunkfield.db and locks the directory against
// a second server. Throws StoreError (refusing to start: `what()` says what and where).
std::unique_ptr<Store> open_sqlite_store(const std::string& dir, SyncLevel sync);

}  // namespace tf::server
