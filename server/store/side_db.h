// A connection of its own to the store's database, beside the store's writer, for the tables
// of a side service (puzzles, notifications: few, slow-moving rows that need no group commits
// and no journal). One SQL text serves SQLite and PostgreSQL: parameters are $1, $2, ...; rows
// come back as text (REAL: 17 significant digits; booleans read by truth()).
//
// Blocking, one thread at a time (its service owns it); failures throw StoreError (fault: the
// database's trouble, the caller opens a new one).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "server/store/store.h"

namespace tf::server {

class SideDb {
  public:
    virtual ~SideDb() = default;

    using Value = std::variant<std::monostate, std::string, std::int64_t, double>;
    using Row = std::vector<std::optional<std::string>>;

    // One statement with parameters $1.. ; its rows as text.
    virtual std::vector<Row> exec(const std::string& sql, const std::vector<Value>& params) = 0;
    virtual void begin() = 0;  // a write transaction (SQLite: IMMEDIATE)
    virtual void commit() = 0;
    virtual void rollback() = 0;           // never throws
    virtual const char* lock() const = 0;  // " FOR UPDATE" (PostgreSQL) or ""
    virtual const char* yes() const = 0;   // a true boolean literal
    virtual bool shared() const = 0;       // PostgreSQL: the nodes of a cluster share it

    // fn() inside one write transaction, rolled back when it throws.
    template <class F>
    auto transaction(F&& fn) {
        begin();
        try {
            if constexpr (std::is_void_v<decltype(fn())>) {
                fn();
                commit();
            } else {
                auto r = fn();
                commit();
                return r;
            }
        } catch (...) {
            rollback();
            throw;
        }
    }
};

// Reading a row's text.
std::string str(const std::optional<std::string>& v);
std::int64_t num(const std::optional<std::string>& v);
double real(const std::optional<std::string>& v);
bool truth(const std::optional<std::string>& v);  // PostgreSQL's "t"/"f", SQLite's "1"/"0"
std::string real_text(double d);

// On the SQLite store's file in `data_dir`, which must have schema `schema` or later (`what`
// names the tables, for the error).
std::unique_ptr<SideDb> open_sqlite_side(const std::string& data_dir, int schema,
                                         const std::string& what);
// For tools: takes the data folder's lock when it is free and migrates the file (as a server
// starting on it would); when a server holds it, the file must have this server's schema.
std::unique_ptr<SideDb> open_sqlite_side_migrating(const std::string& data_dir);
// On PostgreSQL (`migrate`: apply the store's migrations first, for tools).
std::unique_ptr<SideDb> open_pg_side(const std::string& conninfo, bool migrate = false);

}  // namespace tf::server
