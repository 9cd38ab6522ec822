// `trunkfield-server migrate-from-sqlite` (server/store/pg_store.h): a SQLite data folder copied
// into an empty PostgreSQL store in one transaction, then verified: every game's row and journal
// read back through both stores must be equal, every game's summary and record answered by the
// history API byte for byte the same, and every finished game's record must replay through the
// rules without an illegal move (and, when the rules ended it, to the stored winner).
#include <libpq-fe.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <charconv>
#include <nlohmann/json.hpp>

#include "common/record.h"
#include "server/store/pg_schema.h"
#include "server/store/pg_store.h"
#include "server/store/sqlite_store.h"
#include "server/web/history_api.h"

namespace tf::server {

namespace {

// A read-only look at the SQLite file's tables, beside the store that holds the folder's lock.
class SqliteRows {
  public:
    explicit SqliteRows(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
            std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw StoreError("cannot open " + path + ": " + why);
        }
    }
    ~SqliteRows() { sqlite3_close(db_); }
    SqliteRows(const SqliteRows&) = delete;
    SqliteRows& operator=(const SqliteRows&) = delete;

    // Every row of `sql`, as text (NULL stays NULL).
    template <class F>
    std::size_t each(const std::string& sql, F f) {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            throw StoreError(std::string("sqlite: ") + sqlite3_errmsg(db_));
        std::size_t n = 0;
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            std::vector<std::optional<std::string>> row;
            for (int c = 0; c < sqlite3_column_count(s); ++c) {
                if (sqlite3_column_type(s, c) == SQLITE_FLOAT) {  // every digit, not %.15g
                    char buf[32];
                    auto r = std::to_chars(buf, buf + sizeof buf, sqlite3_column_double(s, c));
                    row.emplace_back(std::string(buf, r.ptr));
                    continue;
                }
                auto p = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
                if (!p)
                    row.emplace_back(std::nullopt);
                else
                    row.emplace_back(std::string(p, std::size_t(sqlite3_column_bytes(s, c))));
            }
            f(row);
            ++n;
        }
        std::string err = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
        sqlite3_finalize(s);
        if (!err.empty()) throw StoreError("sqlite: " + err);
        return n;
    }

  private:
    sqlite3* db_ = nullptr;
};

struct Table {
    const char* name;
    const char* columns;           // the same names in both schemas
    const char* select = nullptr;  // the SQLite query when the columns differ
};

// In dependency order. Booleans are SQLite integers: PostgreSQL takes '0'/'1' for boolean.
const Table kTables[] = {
    {"players", "id, name, created_at"},
    {"tokens", "selector, player_id, secret_hash, created_at"},
    {"accounts", "player_id, username, username_key, pw_hash, created_at"},
    {"ratings", "player_id, category, rating, deviation, volatility, games, last_at"},
    {"rating_history",
     "code, player_id, category, before_rating, before_deviation, before_volatility, "
     "before_games, before_last_at, rating, deviation, volatility, at"},
    {"games",
     "id, code, variant, time_control, is_public, quick_match, creator_side, bot_level, "
     "silver_id, silver_name, bronze_id, bronze_name, status, result, turns, version, "
     "created_at, finished_at, rated, quarantine, invitee_id, invitee_name, to_move, move_by"},
    {"journal", "code, version, kind, event, at, format"},
    {"puzzles",
     "id, position, body, themes, source_game, source_turn, solver_turns, margin, rating, "
     "deviation, volatility, games, last_at, plays, solved, added_at"},
    {"puzzle_attempts", "player_id, puzzle_id, solved, rated, at, rating"},
    {"puzzle_days", "day, puzzle_id"},
    {"puzzle_mined", "code, at, found"},
    {"notifications", "id, player_id, kind, body, at, read_at"},
    {"relations", "player_id, other_id, kind, at"},
    {"roles", "player_id, role, at"},
    {"restrictions", "player_id, chat_muted_until, shadow, closed_at, warnings"},
    {"reports",
     "id, reporter_id, player_id, reason, body, game, at, handled_at, handled_by, outcome"},
    {"account_settings", "player_id, announce_games"},
    {"mail_settings",
     "player_id, address, verified_at, verify_hash, unsub_token, turns, challenges, digest, "
     "last_mail_at"},
    {"mail_queue",
     "id, player_id, kind, game, body, created_at, send_after, state, attempts, lease_until, "
     "sent_at, error"},
    {"vacations", "player_id, year, used_ms, since_ms"},
    {"api_tokens", "selector, player_id, secret_hash, label, scopes, created_at, used_at"},
    {"tournaments",
     "id, kind, name, created_by, creator_name, settings, is_public, password_hash, starts_at, "
     "phase, round, director, epoch, lease_until, created_at, finished_at, schedule_key"},
    {"tournament_players", "tournament, player_id, name, rating, active, bot, seq"},
    {"tournament_games",
     "tournament, seq, round, code, silver, bronze, ended, result, turns, silver_berserk, "
     "bronze_berserk, paired_at, ended_at"},
    {"tournament_byes", "tournament, round, player_id"},
    {"audit",
     "id, at, moderator_id, moderator, action, player_id, player, report_id, minutes, note"},
};

std::string placeholders(const std::string& columns) {
    std::string out;
    int n = 1;
    for (char c : columns + ",")
        if (c == ',') {
            out += (n > 1 ? ", $" : "$") + std::to_string(n);
            ++n;
        }
    return out;
}

bool same(const StoredGame& a, const StoredGame& b) {
    return a.code == b.code && a.variant == b.variant && a.time_control == b.time_control &&
           a.is_public == b.is_public && a.quick_match == b.quick_match &&
           a.creator_side == b.creator_side && a.bot_level == b.bot_level && a.rated == b.rated &&
           a.seat_id[0] == b.seat_id[0] && a.seat_id[1] == b.seat_id[1] &&
           a.seat_name[0] == b.seat_name[0] && a.seat_name[1] == b.seat_name[1] &&
           a.status == b.status && a.result == b.result && a.turns == b.turns &&
           a.version == b.version && a.created_ms == b.created_ms &&
           a.finished_ms == b.finished_ms && a.invitee_id == b.invitee_id &&
           a.invitee_name == b.invitee_name;
}

bool same(const std::vector<JournalRow>& a, const std::vector<JournalRow>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].version != b[i].version || a[i].kind != b[i].kind || a[i].event != b[i].event ||
            a[i].at_ms != b[i].at_ms || a[i].format != b[i].format)
            return false;
    return true;
}

// The history API's answer for `target` from `store`.
ApiResponse api(Store& store, const std::string& target) {
    boost::asio::io_context io;
    auto work = boost::asio::make_work_guard(io);  // the answer comes from another thread
    ApiResponse out;
    history_api(
        store, target, [](const std::string&) { return false; }, "", io.get_executor(),
        [&](ApiResponse r) {
            out = std::move(r);
            work.reset();
        });
    io.run();
    return out;
}

std::string verify(Store& from, Store& to, SqliteRows& rows,
                   const std::size_t (&copied)[std::size(kTables)]);

}  // namespace

std::string migrate_sqlite_to_pg(const std::string& dir, const PgOptions& options) {
    // The SQLite store as the server opens it: migrated to the current schema, and the folder
    // locked, so no server writes to it while it is copied.
    auto from = open_sqlite_store(dir, SyncLevel::Normal);
    SqliteRows rows(dir + "/trunkfield.db");

    pg::Blocking db(options.url);
    pg::prepare_database(db, options.accept_unsafe);
    const auto held =
        db.exec("SELECT (SELECT count(*) FROM games) + (SELECT count(*) FROM players)");
    if (held.rows.at(0).at(0).value_or("0") != "0")
        throw StoreError(
            "the PostgreSQL database is not empty (it holds players or games); "
            "migrate into a new one",
            false);

    std::size_t copied[std::size(kTables)] = {};
    db.transaction([&] {
        for (std::size_t t = 0; t < std::size(kTables); ++t) {
            const Table& tb = kTables[t];
            const std::string insert = std::string("INSERT INTO ") + tb.name + " (" + tb.columns +
                                       ") VALUES (" + placeholders(tb.columns) + ")";
            const std::string stmt = std::string("copy_") + tb.name;
            PGresult* p = PQprepare(db.raw(), stmt.c_str(), insert.c_str(), 0, nullptr);
            const bool ok = PQresultStatus(p) == PGRES_COMMAND_OK;
            const std::string why = ok ? "" : PQresultErrorMessage(p);
            PQclear(p);
            if (!ok) throw StoreError("preparing the copy of " + std::string(tb.name) + ": " + why);
            copied[t] = rows.each(
                std::string("SELECT ") + tb.columns + " FROM " + tb.name, [&](const auto& row) {
                    std::vector<const char*> v;
                    for (const auto& c : row) v.push_back(c ? c->c_str() : nullptr);
                    PGresult* r = PQexecPrepared(db.raw(), stmt.c_str(), int(v.size()), v.data(),
                                                 nullptr, nullptr, 0);
                    const bool done = PQresultStatus(r) == PGRES_COMMAND_OK;
                    const std::string err = done ? "" : PQresultErrorMessage(r);
                    PQclear(r);
                    if (!done) throw StoreError("copying " + std::string(tb.name) + ": " + err);
                });
        }
        // New games continue the SQLite ids, so history cursors keep their order.
        db.exec(
            "SELECT setval(pg_get_serial_sequence('games', 'id'), "
            "GREATEST((SELECT max(id) FROM games), 1))");
        for (const char* t : {"notifications", "reports", "audit", "mail_queue"})
            db.exec(std::string("SELECT setval(pg_get_serial_sequence('") + t +
                    "', 'id'), GREATEST((SELECT max(id) FROM " + t + "), 1))");
    });

    // Verification, through both stores' own reads. A difference leaves the copy in place (it
    // is committed) and says so: the SQLite folder is untouched either way.
    auto to = open_pg_store(options);
    try {
        return verify(*from, *to, rows, copied);
    } catch (const StoreError& e) {
        throw StoreError(std::string(e.what()) +
                         " (the copy is committed in PostgreSQL; the SQLite folder is untouched)");
    }
}

namespace {

std::string verify(Store& from_store, Store& to_store, SqliteRows& rows,
                   const std::size_t (&copied)[std::size(kTables)]) {
    Store* from = &from_store;
    Store* to = &to_store;
    std::vector<std::string> codes;
    rows.each("SELECT code FROM games ORDER BY id", [&](const auto& r) { codes.push_back(*r[0]); });
    std::size_t replayed = 0;
    for (const auto& code : codes) {
        auto a = from->game(code), b = to->game(code);
        if (!a || !b || !same(*a, *b))
            throw StoreError("verification: game " + code + "'s row differs after the copy");
        if (!same(from->journal(code), to->journal(code)))
            throw StoreError("verification: game " + code + "'s journal differs after the copy");
        for (const char* what : {"", "/record"}) {
            const std::string target = "/api/games/" + code + what;
            auto ra = api(*from, target), rb = api(*to, target);
            if (ra.status != rb.status || ra.body != rb.body)
                throw StoreError("verification: " + target + " answers differently after the copy");
            if (*what == 0 || ra.status != 200) continue;
            auto record = nlohmann::json::parse(rb.body);
            auto replay = replay_record(record);
            if (!replay) throw StoreError("verification: game " + code + "'s record is unreadable");
            auto summary = replay_summary(*replay);
            if (!summary["error"].is_null())
                throw StoreError("verification: game " + code +
                                 "'s record does not replay: " + summary["error"].dump());
            auto result = nlohmann::json::parse(b->result, nullptr, false);
            if (summary.value("over", false) && result.is_object() &&
                summary["winner"] != result["winner"])
                throw StoreError("verification: game " + code +
                                 "'s record replays to another winner than the stored one");
            ++replayed;
        }
    }
    std::string out = "copied";
    for (std::size_t t = 0; t < std::size(kTables); ++t)
        out += (t ? ", " : " ") + std::to_string(copied[t]) + " " + kTables[t].name;
    out += "; verified " + std::to_string(codes.size()) +
           " games row by row and through the "
           "history API, replayed " +
           std::to_string(replayed) + " finished records through the rules";
    return out;
}

}  // namespace

}  // namespace tf::server
