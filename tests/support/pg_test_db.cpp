#include "tests/support/pg_test_db.h"

#include <libpq-fe.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <thread>

namespace tf::test {
namespace {

using Conn = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

Conn connect(const std::string& base) {
    const char* keys[] = {"dbname", nullptr};
    const char* values[] = {base.c_str(), nullptr};
    Conn c(PQconnectdbParams(keys, values, 1), &PQfinish);
    if (!c || PQstatus(c.get()) != CONNECTION_OK)
        throw std::runtime_error("cannot connect to " + base + ": " +
                                 (c ? PQerrorMessage(c.get()) : "out of memory"));
    // Not on stderr: "does not exist, skipping" when two owners of a database both drop it.
    PQsetNoticeProcessor(
        c.get(), [](void*, const char*) {}, nullptr);
    return c;
}

std::string quote_identifier(PGconn* c, const std::string& name) {
    char* q = PQescapeIdentifier(c, name.c_str(), name.size());
    if (!q) throw std::runtime_error(std::string("PQescapeIdentifier: ") + PQerrorMessage(c));
    std::string out = q;
    PQfreemem(q);
    return out;
}

// Runs `sql`; an error whose SQLSTATE is `ignore` counts as success. CREATE and DROP DATABASE
// fail with object_in_use (55006) while another session briefly holds the template (another
// test creating its database at the same moment): those are retried.
void exec(PGconn* c, const std::string& sql, const char* ignore) {
    for (int attempt = 0;; ++attempt) {
        Result r(PQexec(c, sql.c_str()), &PQclear);
        if (PQresultStatus(r.get()) == PGRES_COMMAND_OK) return;
        const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
        std::string code = state ? state : "";
        if (ignore && code == ignore) return;
        if (code == "55006" && attempt < 50) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            continue;
        }
        throw std::runtime_error(sql + ": " + PQresultErrorMessage(r.get()));
    }
}

std::string quote_value(const std::string& v) {
    std::string out = "'";
    for (char ch : v) {
        if (ch == '\'' || ch == '\\') out += '\\';
        out += ch;
    }
    return out + "'";
}

}  // namespace

std::string pg_test_url() {
    const char* url = std::getenv("TF_TEST_DATABASE_URL");
    return url ? url : "";
}

std::string pg_with_dbname(const std::string& base, const std::string& dbname) {
    char* err = nullptr;
    PQconninfoOption* opts = PQconninfoParse(base.c_str(), &err);
    if (!opts) {
        std::string why = err ? err : "out of memory";
        PQfreemem(err);
        throw std::runtime_error("bad connection string " + base + ": " + why);
    }
    std::string out;
    for (PQconninfoOption* o = opts; o->keyword; ++o)
        if (o->val && std::string(o->keyword) != "dbname")
            out += std::string(o->keyword) + "=" + quote_value(o->val) + " ";
    PQconninfoFree(opts);
    return out + "dbname=" + quote_value(dbname);
}

void pg_create_database(const std::string& base, const std::string& name) {
    Conn c = connect(base);
    exec(c.get(), "CREATE DATABASE " + quote_identifier(c.get(), name), "42P04");
}

void pg_drop_database(const std::string& base, const std::string& name) {
    Conn c = connect(base);
    exec(c.get(), "DROP DATABASE IF EXISTS " + quote_identifier(c.get(), name) + " WITH (FORCE)",
         nullptr);
}

}  // namespace tf::test
