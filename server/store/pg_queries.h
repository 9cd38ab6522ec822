// The PostgreSQL store's statements and reads (server/store/pg_store.cpp): the statements
// every connection prepares, how parameters are written, and each read as a Spec, its queries
// (one pipeline segment) and the parser of their results.
#pragma once

#include <charconv>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "server/store/pg_conn.h"
#include "server/store/store.h"

namespace tf::server::pg {

using Results = std::vector<Result>;

inline Param num(std::int64_t v) {
    return std::to_string(v);
}
inline Param real(double v) {  // shortest text that reads back as the same double
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}
inline Param boolean(bool v) {
    return std::string(v ? "t" : "f");
}
inline Param opt(const std::string& v) {  // NULL when empty
    return v.empty() ? Param{} : Param{v};
}

// The statements every connection prepares at connect (pg_queries.cpp).
const Conn::Statements& statements();

inline Query prepared(const char* name, std::vector<Param> params) {
    return Query{name, {}, std::move(params)};
}

// Row i of a result, as game_of() and rating_of() read it (server/store/writer_core.h).
struct Row {
    const Result& r;
    int i;
    std::string text(int c) const { return r.text(i, c); }
    std::int64_t integer(int c) const { return r.integer(i, c); }
    double real(int c) const { return r.real(i, c); }
    bool boolean(int c) const { return r.boolean(i, c); }
    bool null(int c) const { return r.null(i, c); }
};

std::vector<StoredGame> games_of(const Result& r);
std::vector<StoredRating> ratings_from(const Result& r);
std::vector<JournalRow> journal_of(const Result& r);

// A read: its statements (one pipeline segment) and what makes the answer of their results.
template <class T>
struct Spec {
    std::vector<Query> queries;
    std::function<T(const Results&)> parse;
};

std::vector<JournalRow> journal_of(const Result& r);
Spec<std::optional<StoredPlayer>> player_spec(const std::string& selector);
Spec<OpenGameCounts> open_counts_spec(const std::string& player, const std::string& address,
                                      const std::string& node);
Spec<bool> code_spec(const std::string& code);
Spec<std::optional<GameRows>> game_rows_spec(const std::string& code);
std::optional<StoredAccount> account_of(const Result& r);
Spec<std::optional<StoredAccount>> account_spec(const std::string& username);
Spec<std::vector<StoredRating>> ratings_spec(const std::string& player_id);
Spec<std::vector<LeaderRow>> leaderboard_spec(const std::string& category, int limit,
                                              std::int64_t since, bool bots);
Spec<std::optional<PlayerProfile>> profile_spec(const std::string& username, int recent,
                                                const std::string& viewer);
Spec<GamePage> page_spec(const GameQuery& q);

}  // namespace tf::server::pg
