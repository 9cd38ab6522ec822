// Copies of the SQLite game store for operators: `trunkfield-server backup` and `restore`
// (docs/OPERATING.md "Backups"). Both work on files only, never through a running server.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tf::server {

// Refused or failed; what() says what, where and what to do.
struct BackupError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a backup file holds (read back from the copy, after its check).
struct BackupSummary {
    int schema = 0;             // the store's schema version (PRAGMA user_version)
    std::int64_t games = 0;     // every game row
    std::int64_t finished = 0;  // over or aborted
    std::int64_t players = 0;
    std::uintmax_t bytes = 0;  // size of the copy
};

// Copies DATA_DIR/trunkfield.db to `to` with SQLite's online backup API: one read transaction,
// so the copy is the store as of one commit even while a server writes to it (WAL readers never
// block the writer), and includes everything committed before it started. The copy is a single
// self-contained file (rollback journal mode), written next to `to` and renamed over it once it
// passed PRAGMA quick_check, mode 0600 (it holds the players' token secrets).
BackupSummary backup_store(const std::string& data_dir, const std::string& to);

// Installs the backup `from` as DATA_DIR/trunkfield.db (creating the folder). Refuses a file
// that is not a readable store of schema 1..kSchemaVersion, a folder a server is using (its
// LOCK), and a folder that already holds a store unless `replace`: then the old files are kept
// beside it as trunkfield.db.replaced-YYYYmmdd-HHMMSS (returned in `moved_aside`). Run as
// root on a folder owned by another user (the packaged server's), the files it creates get
// the folder's owner, so that the server can open them.
BackupSummary restore_store(const std::string& from, const std::string& data_dir, bool replace,
                            std::string* moved_aside = nullptr);

}  // namespace tf::server
