// The SQLite store's own toolkit (server/store/sqlite_store.cpp), also for the tools that read a
// store file directly (server/app/backup.cpp): prepared statements, transactions, connections,
// the schema and its migrations, and the data folder's files and lock (sqlite_store.h).
// Everything throws StoreError; `fault` is false only for the request's own errors.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "server/store/sqlite_store.h"
#include "server/store/store.h"

namespace tf::server::sqlite {

// The request's own errors (a duplicate key, a type mismatch) are not the store's trouble; every
// other failure (disk full, I/O, a locked, corrupt or vanished file, no memory) is.
inline bool is_fault(int rc) {
    int primary = rc & 0xff;
    return primary != SQLITE_CONSTRAINT && primary != SQLITE_MISMATCH;
}

// A prepared statement, reset after each use.
class Stmt {
  public:
    Stmt(sqlite3* db, const char* sql) : db_(db) {
        if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s_, nullptr) != SQLITE_OK)
            throw StoreError(std::string("sqlite prepare: ") + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, const std::string& v) {
        sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind(int i, std::int64_t v) {
        sqlite3_bind_int64(s_, i, v);
        return *this;
    }
    Stmt& bind(int i, double v) {
        sqlite3_bind_double(s_, i, v);
        return *this;
    }
    Stmt& bind_null(int i) {
        sqlite3_bind_null(s_, i);
        return *this;
    }
    // Text bound as NULL when empty.
    Stmt& bind_opt(int i, const std::string& v) { return v.empty() ? bind_null(i) : bind(i, v); }
    // SQLITE_ROW or SQLITE_DONE; throws on errors.
    int step() {
        int rc = sqlite3_step(s_);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            std::string msg = sqlite3_errmsg(db_);
            reset();
            throw StoreError("sqlite: " + msg, is_fault(rc));
        }
        return rc;
    }
    void run() {
        step();
        reset();
    }
    void reset() {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    std::string text(int col) const {
        auto p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
        return p ? std::string(p, std::size_t(sqlite3_column_bytes(s_, col))) : std::string();
    }
    std::int64_t integer(int col) const { return sqlite3_column_int64(s_, col); }
    double real(int col) const { return sqlite3_column_double(s_, col); }
    bool boolean(int col) const { return integer(col) != 0; }
    bool null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }

  private:
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
};

// Runs `sql` (several statements allowed).
void exec(sqlite3* db, const char* sql);
// Runs `sql` and ignores its outcome (ROLLBACK after a failure that may have ended the
// transaction already).
void try_exec(sqlite3* db, const char* sql);

// fn() inside BEGIN IMMEDIATE ... COMMIT; anything fn or the commit throws rolls it all back and
// is thrown on. `begin` and `commit` may be statements prepared once (the writer's hot path).
template <class F>
void transaction(sqlite3* db, F&& fn, Stmt* begin = nullptr, Stmt* commit = nullptr) {
    if (begin)
        begin->run();
    else
        exec(db, "BEGIN IMMEDIATE");
    try {
        fn();
        if (commit)
            commit->run();
        else
            exec(db, "COMMIT");
    } catch (...) {
        try_exec(db, "ROLLBACK");
        throw;
    }
}

// "PRAGMA synchronous = FULL" and so on: what each --sync level sets on a connection.
inline const char* sync_pragma(SyncLevel sync) {
    return sync == SyncLevel::Full     ? "PRAGMA synchronous = FULL"
           : sync == SyncLevel::Normal ? "PRAGMA synchronous = NORMAL"
                                       : "PRAGMA synchronous = OFF";
}

// A connection (busy timeout 5 s, extended result codes, no mutex: one thread at a time).
sqlite3* open_db(const std::string& path, int flags);
int user_version(sqlite3* db);

// At start, on the writer connection: refuses an unreadable file or a newer schema
// (kSchemaVersion), switches to WAL and applies the migrations the file lacks.
void migrate_schema(sqlite3* db, const std::string& path);

// The writer's account request (sqlite_writes.cpp), inside the operation's savepoint. A username
// taken in any letter case breaks the UNIQUE key: the request's own error, not the store's.
void write_account(sqlite3* db, const AccountWrite& a);
// A rated game's end, in the operation's savepoint with the game's last rows. A game already in
// the history was rated: its recorded outcome is reported again.
void rate(sqlite3* db, const std::string& code, const RateGame& g);

// The data folder `dir` and its database file `db` made private (see sqlite_db.cpp); `made`:
// this server just created the folder.
void secure_data_files(const std::string& dir, bool made, const std::string& db);

}  // namespace tf::server::sqlite
