#include "server/store/side_db.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>

#include "server/store/pg_conn.h"
#include "server/store/pg_schema.h"
#include "server/store/sqlite_db.h"
#include "server/store/sqlite_store.h"

namespace tf::server {

std::string str(const std::optional<std::string>& v) {
    return v.value_or("");
}
std::int64_t num(const std::optional<std::string>& v) {
    return v ? std::stoll(*v) : 0;
}
double real(const std::optional<std::string>& v) {
    return v ? std::stod(*v) : 0.0;
}
// PostgreSQL's booleans read "t"/"f", SQLite's integers "1"/"0".
bool truth(const std::optional<std::string>& v) {
    return v && (*v == "t" || *v == "1" || *v == "true");
}

std::string real_text(double d) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
}

namespace {

class SqliteSide : public SideDb {
  public:
    SqliteSide(const std::string& path, int schema, const std::string& what) {
        db_ = sqlite::open_db(path, SQLITE_OPEN_READWRITE);
        try {
            if (sqlite::user_version(db_) < schema)
                throw StoreError("the database " + path + " has no " + what + " yet (schema " +
                                 std::to_string(sqlite::user_version(db_)) +
                                 "): start the server on it once, or stop it to import");
        } catch (...) {
            sqlite3_close(db_);
            throw;
        }
    }
    ~SqliteSide() override { sqlite3_close(db_); }

  public:
    std::vector<Row> exec(const std::string& sql, const std::vector<Value>& params) override {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            throw StoreError(std::string("sqlite prepare: ") + sqlite3_errmsg(db_), false);
        std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(s, sqlite3_finalize);
        for (std::size_t i = 0; i < params.size(); ++i) {
            const int at = sqlite3_bind_parameter_index(s, ("$" + std::to_string(i + 1)).c_str());
            if (at == 0) continue;
            std::visit(
                [&](const auto& v) {
                    using T = std::decay_t<decltype(v)>;
                    if constexpr (std::is_same_v<T, std::monostate>)
                        sqlite3_bind_null(s, at);
                    else if constexpr (std::is_same_v<T, std::string>)
                        sqlite3_bind_text(s, at, v.data(), int(v.size()), SQLITE_TRANSIENT);
                    else if constexpr (std::is_same_v<T, std::int64_t>)
                        sqlite3_bind_int64(s, at, v);
                    else
                        sqlite3_bind_double(s, at, v);
                },
                params[i]);
        }
        std::vector<Row> rows;
        for (;;) {
            const int rc = sqlite3_step(s);
            if (rc == SQLITE_DONE) break;
            if (rc != SQLITE_ROW)
                throw StoreError(std::string("sqlite: ") + sqlite3_errmsg(db_),
                                 sqlite::is_fault(rc));
            Row row;
            for (int c = 0; c < sqlite3_column_count(s); ++c) {
                switch (sqlite3_column_type(s, c)) {
                    case SQLITE_NULL:
                        row.emplace_back();
                        break;
                    case SQLITE_FLOAT:
                        row.emplace_back(real_text(sqlite3_column_double(s, c)));
                        break;
                    default:
                        row.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, c)));
                }
            }
            rows.push_back(std::move(row));
        }
        return rows;
    }
    void begin() override { sqlite::exec(db_, "BEGIN IMMEDIATE"); }
    void commit() override { sqlite::exec(db_, "COMMIT"); }
    void rollback() override { sqlite::try_exec(db_, "ROLLBACK"); }
    const char* lock() const override { return ""; }
    const char* yes() const override { return "1"; }
    bool shared() const override { return false; }

  private:
    sqlite3* db_ = nullptr;
};

class PgSide : public SideDb {
  public:
    explicit PgSide(const std::string& conninfo) : db_(conninfo) {}
    pg::Blocking& db() { return db_; }

  public:
    std::vector<Row> exec(const std::string& sql, const std::vector<Value>& params) override {
        std::vector<std::optional<std::string>> text;
        for (const auto& p : params)
            text.push_back(std::visit(
                [](const auto& v) -> std::optional<std::string> {
                    using T = std::decay_t<decltype(v)>;
                    if constexpr (std::is_same_v<T, std::monostate>)
                        return std::nullopt;
                    else if constexpr (std::is_same_v<T, std::string>)
                        return v;
                    else if constexpr (std::is_same_v<T, std::int64_t>)
                        return std::to_string(v);
                    else
                        return real_text(v);
                },
                p));
        return db_.exec(sql, text).rows;
    }
    void begin() override { db_.exec("BEGIN"); }
    void commit() override { db_.exec("COMMIT"); }
    void rollback() override {
        try {
            db_.exec("ROLLBACK");
        } catch (const std::exception&) {
        }
    }
    const char* lock() const override { return " FOR UPDATE"; }
    const char* yes() const override { return "true"; }
    bool shared() const override { return true; }

  private:
    pg::Blocking db_;
};

}  // namespace

std::unique_ptr<SideDb> open_sqlite_side(const std::string& data_dir, int schema,
                                         const std::string& what) {
    return std::make_unique<SqliteSide>(
        (std::filesystem::path(data_dir) / "trunkfield.db").string(), schema, what);
}

std::unique_ptr<SideDb> open_sqlite_side_migrating(const std::string& data_dir) {
    const std::string path = (std::filesystem::path(data_dir) / "trunkfield.db").string();
    std::error_code ec;
    bool free = true;
    if (std::filesystem::exists(data_dir, ec)) {
        try {
            DataDirLock probe(data_dir);
        } catch (const StoreError& e) {
            if (e.fault) throw;  // not writable
            free = false;        // in use: the server there has migrated it
        }
    }
    // No server on it: the store made (a new folder) or migrated as a server would, then closed.
    if (free) open_sqlite_store(data_dir, SyncLevel::Full).reset();
    return std::make_unique<SqliteSide>(path, kSchemaVersion, "tables of this server");
}

std::unique_ptr<SideDb> open_pg_side(const std::string& conninfo, bool migrate) {
    auto p = std::make_unique<PgSide>(conninfo);
    if (migrate) pg::prepare_database(p->db(), false);
    return p;
}

}  // namespace tf::server
