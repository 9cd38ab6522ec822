// What the PostgreSQL store (server/store/pg_store.cpp) and its tools share: the schema and its
// migrations, and a blocking connection for startup and tools only (never a network thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct pg_conn;
struct pg_result;

namespace tf::server::pg {

// Sends the connection's notices to the debug log instead of standard error.
void quiet(pg_conn* c);

// A blocking libpq connection (PQconnectdbParams, PQexecParams). Throws StoreError.
class Blocking {
  public:
    explicit Blocking(const std::string& conninfo);
    // A connection that could not be made (`why`, the constructor's error): every exec throws
    // it as a fault, so that work handed this learns of it as of a connection that broke.
    struct Unreachable {
        std::string why;
    };
    explicit Blocking(Unreachable u) : unreachable_(std::move(u.why)) {}
    ~Blocking();
    Blocking(const Blocking&) = delete;
    Blocking& operator=(const Blocking&) = delete;

    struct Rows {
        std::vector<std::vector<std::optional<std::string>>> rows;
        std::string cmd_tuples;
    };
    // One statement with text parameters; several statements when there are none.
    Rows exec(const std::string& sql, const std::vector<std::optional<std::string>>& params = {});
    pg_conn* raw() { return conn_; }
    // fn() between BEGIN and COMMIT; anything thrown rolls it back (the ROLLBACK's own failure,
    // a connection already gone, is ignored) and is thrown on.
    template <class F>
    void transaction(F&& fn) {
        exec("BEGIN");
        try {
            fn();
            exec("COMMIT");
        } catch (...) {
            try {
                exec("ROLLBACK");
            } catch (const std::exception&) {
            }
            throw;
        }
    }

  private:
    pg_conn* conn_ = nullptr;
    std::string unreachable_;
};

// At start: refuses a server whose fsync or synchronous_commit is off (unless `accept_unsafe`),
// then, in one transaction under an advisory lock, applies the migrations the database lacks,
// or refuses a newer schema. Throws StoreError saying which.
void prepare_database(Blocking& db, bool accept_unsafe);

}  // namespace tf::server::pg
