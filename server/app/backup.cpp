#include "server/app/backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "server/store/sqlite_store.h"

namespace tf::server {

namespace {

namespace fs = std::filesystem;

constexpr const char* kStoreFile = "trunkfield.db";
// The files SQLite may keep beside a database.
constexpr const char* kCompanions[] = {"", "-wal", "-shm", "-journal"};

std::string errno_text() {
    return std::strerror(errno);
}

class Db {
  public:
    Db(const std::string& path, int flags) : path_(path) {
        int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
        if (rc != SQLITE_OK) {
            std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
            sqlite3_close(db_);
            throw BackupError("cannot open " + path + ": " + msg);
        }
        sqlite3_busy_timeout(db_, 10000);
    }
    ~Db() { sqlite3_close(db_); }
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    sqlite3* get() const { return db_; }

    // The first column of the first row, as text ("" when there is no row).
    std::string text(const char* sql) {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) fail();
        int rc = sqlite3_step(s);
        std::string out;
        if (rc == SQLITE_ROW) {
            auto* t = sqlite3_column_text(s, 0);
            if (t) out = reinterpret_cast<const char*>(t);
        }
        sqlite3_finalize(s);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail();
        return out;
    }
    std::int64_t integer(const char* sql) { return std::stoll("0" + text(sql)); }

  private:
    [[noreturn]] void fail() {
        throw BackupError(path_ + " cannot be read as a SQLite database: " + sqlite3_errmsg(db_));
    }
    std::string path_;
    sqlite3* db_ = nullptr;
};

// Checks that `path` (open as `db`) is an intact game store and says what it holds.
BackupSummary check_store(Db& db, const std::string& path) {
    std::string check = db.text("PRAGMA quick_check");
    if (check != "ok") throw BackupError(path + " is damaged (SQLite quick_check: " + check + ")");
    if (db.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
                   "('games', 'players', 'journal')") != 3)
        throw BackupError(path +
                          " is not a Trunkfield game store (no games, players and "
                          "journal tables)");
    BackupSummary s;
    s.schema = int(db.integer("PRAGMA user_version"));
    s.games = db.integer("SELECT count(*) FROM games");
    s.finished = db.integer("SELECT count(*) FROM games WHERE status IN ('over', 'aborted')");
    s.players = db.integer("SELECT count(*) FROM players");
    std::error_code ec;
    s.bytes = fs::file_size(path, ec);
    return s;
}

void fsync_path(const fs::path& p, bool directory) {
    int fd = ::open(p.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
        std::string err = errno_text();
        if (fd >= 0) ::close(fd);
        throw BackupError("cannot sync " + p.string() + " to disk: " + err);
    }
    ::close(fd);
}

fs::path parent_of(const fs::path& p) {
    fs::path parent = fs::absolute(p).parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

// A file being written and its SQLite companions, removed unless keep() was called.
class Scratch {
  public:
    explicit Scratch(std::string path) : path_(std::move(path)) {}
    ~Scratch() {
        if (path_.empty()) return;
        std::error_code ec;
        for (const char* c : kCompanions) fs::remove(path_ + c, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    const std::string& path() const { return path_; }
    void keep() { path_.clear(); }

  private:
    std::string path_;
};

// Copies the database open as `src` into the new file `dest` (created with mode 0600) in one
// backup step, i.e. inside one read transaction of the source: the copy is the source as of
// one commit, whatever another process writes meanwhile. Leaves `dest` in rollback journal
// mode, self-contained.
void copy_database(sqlite3* src, const std::string& dest) {
    int fd = ::open(dest.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw BackupError("cannot create " + dest + ": " + errno_text());
    ::close(fd);
    Db out(dest, SQLITE_OPEN_READWRITE);
    sqlite3_backup* b = sqlite3_backup_init(out.get(), "main", src, "main");
    if (!b)
        throw BackupError("cannot start copying into " + dest + ": " + sqlite3_errmsg(out.get()));
    int rc = SQLITE_OK;
    for (int tries = 0;; ++tries) {
        rc = sqlite3_backup_step(b, -1);
        if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || tries == 200) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    int finished = sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE)
        throw BackupError(std::string("copying the store failed: ") + sqlite3_errstr(rc));
    if (finished != SQLITE_OK)
        throw BackupError("copying the store failed: " + std::string(sqlite3_errmsg(out.get())));
    // Page 1 came from the source, whose header says WAL: make the copy one file.
    if (out.text("PRAGMA journal_mode = DELETE") != "delete")
        throw BackupError("cannot take " + dest + " out of WAL mode");
}

// With effective uid root: gives `path` the owner of `folder` when that is another user, so
// that a server running as that user (the package's `trunkfield`) can open what root wrote.
void give_to_folder_owner(const fs::path& path, const fs::path& folder) {
    struct stat st {};
    if (::geteuid() != 0 || ::stat(folder.c_str(), &st) != 0 || st.st_uid == 0) return;
    if (::chown(path.c_str(), st.st_uid, st.st_gid) != 0)
        throw BackupError("cannot give " + path.string() + " to the owner of " + folder.string() +
                          ": " + errno_text());
}

std::string utc_stamp() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}

}  // namespace

BackupSummary backup_store(const std::string& data_dir, const std::string& to) {
    const fs::path store = fs::path(data_dir) / kStoreFile;
    if (!fs::is_regular_file(store))
        throw BackupError("no game store at " + store.string() +
                          " (--data names the server's data folder)");
    if (to.empty()) throw BackupError("--to names the backup file to write");
    std::error_code ec;
    if (fs::is_directory(to)) throw BackupError(to + " is a folder; --to names the backup file");
    if (fs::exists(to) && fs::equivalent(to, store, ec))
        throw BackupError("--to " + to + " is the store itself");

    Db src(store.string(), SQLITE_OPEN_READONLY);
    Scratch tmp(to + ".tmp-" + std::to_string(::getpid()));
    copy_database(src.get(), tmp.path());
    BackupSummary s;
    {
        Db copy(tmp.path(), SQLITE_OPEN_READONLY);
        s = check_store(copy, tmp.path());
    }
    fsync_path(tmp.path(), false);
    if (std::rename(tmp.path().c_str(), to.c_str()) != 0)
        throw BackupError("cannot rename " + tmp.path() + " to " + to + ": " + errno_text());
    tmp.keep();
    fsync_path(parent_of(to), true);
    return s;
}

BackupSummary restore_store(const std::string& from, const std::string& data_dir, bool replace,
                            std::string* moved_aside) {
    if (!fs::is_regular_file(from)) throw BackupError("no backup file at " + from);
    Db src(from, SQLITE_OPEN_READONLY);
    BackupSummary s = check_store(src, from);
    if (s.schema < 1 || s.schema > kSchemaVersion)
        throw BackupError(from + " holds a store of schema version " + std::to_string(s.schema) +
                          "; this server knows versions 1 to " + std::to_string(kSchemaVersion) +
                          (s.schema > kSchemaVersion
                               ? " (a newer server made it: restore it with that server)"
                               : ""));

    const fs::path dir(data_dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw BackupError("cannot create the data folder " + data_dir + ": " + ec.message());
    // The server's lock: no server may run on the folder while its store is replaced.
    std::optional<DataDirLock> lock;
    try {
        lock.emplace(data_dir);
    } catch (const StoreError& e) {
        if (!e.fault)
            throw BackupError("the data folder " + data_dir +
                              " is in use by a running server: stop it first");
        throw BackupError(e.what());
    }
    if (lock->created()) give_to_folder_owner(lock->path(), dir);

    const std::string store = (dir / kStoreFile).string();
    std::vector<std::string> present;
    for (const char* c : kCompanions)
        if (fs::exists(store + c)) present.push_back(c);
    if (!present.empty()) {
        if (!replace)
            throw BackupError(data_dir +
                              " already holds a game store; restore --force replaces it (its "
                              "files are then kept beside it as trunkfield.db.replaced-DATE)");
        std::string aside = store + ".replaced-" + utc_stamp();
        for (int n = 2; fs::exists(aside); ++n)
            aside = store + ".replaced-" + utc_stamp() + "-" + std::to_string(n);
        // The WAL and the shared-memory file go with their database: a WAL left beside the
        // restored file would be replayed into it.
        for (const std::string& c : present)
            if (std::rename((store + c).c_str(), (aside + c).c_str()) != 0)
                throw BackupError("cannot move " + store + c + " aside: " + errno_text());
        if (moved_aside) *moved_aside = aside;
    }

    Scratch tmp(store + ".restoring-" + std::to_string(::getpid()));
    copy_database(src.get(), tmp.path());
    {
        Db copy(tmp.path(), SQLITE_OPEN_READONLY);
        s = check_store(copy, tmp.path());
    }
    fsync_path(tmp.path(), false);
    give_to_folder_owner(tmp.path(), dir);
    if (std::rename(tmp.path().c_str(), store.c_str()) != 0)
        throw BackupError("cannot rename " + tmp.path() + " to " + store + ": " + errno_text());
    tmp.keep();
    fsync_path(dir, true);
    s.bytes = fs::file_size(store, ec);
    return s;
}

}  // namespace tf::server
