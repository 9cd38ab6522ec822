#include "server/store/puzzle_db.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "server/store/pg_schema.h"
#include "server/store/sqlite_db.h"
#include "server/store/sqlite_store.h"

namespace tf::server {

namespace {

constexpr const char* kPuzzleColumns =
    "id, position, body, themes, source_game, source_turn, solver_turns, margin, rating, "
    "deviation, volatility, games, last_at, plays, solved, added_at";

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

// A `ratings` row selected as category, rating, deviation, volatility, games, last_at.
StoredRating puzzle_rating(const PuzzleDb::Row& r) {
    return {"puzzle", real(r[1]), real(r[2]), real(r[3]), int(num(r[4])), num(r[5])};
}

std::string themes_text(const std::vector<std::string>& themes) {
    std::string t = " ";
    for (const auto& x : themes) t += x + " ";
    return t;
}

std::string real_text(double d) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
}

}  // namespace

StoredRating initial_puzzle_rating(int solver_turns) {
    StoredRating r;
    r.category = "puzzle";
    r.rating = solver_turns <= 1 ? 1300 : solver_turns == 2 ? 1500 : 1700;
    r.deviation = 350;
    return r;
}

StoredPuzzle PuzzleDb::puzzle_of(const Row& r) {
    StoredPuzzle p;
    p.id = str(r[0]);
    p.position = str(r[1]);
    p.body = str(r[2]);
    std::istringstream themes(str(r[3]));
    for (std::string t; themes >> t;) p.themes.push_back(t);
    p.source_game = str(r[4]);
    p.source_turn = int(num(r[5]));
    p.solver_turns = int(num(r[6]));
    p.margin = real(r[7]);
    p.rating = {"puzzle", real(r[8]), real(r[9]), real(r[10]), int(num(r[11])), num(r[12])};
    p.plays = int(num(r[13]));
    p.solved = int(num(r[14]));
    p.added_ms = num(r[15]);
    return p;
}

std::optional<StoredPuzzle> PuzzleDb::one(const std::string& where,
                                          const std::vector<Value>& params) {
    auto rows = exec(std::string("SELECT ") + kPuzzleColumns + " FROM puzzles p " + where, params);
    if (rows.empty()) return std::nullopt;
    return puzzle_of(rows[0]);
}

int PuzzleDb::add(const std::vector<StoredPuzzle>& puzzles) {
    return transaction([&] {
        int added = 0;
        for (const auto& p : puzzles) {
            const StoredRating r = initial_puzzle_rating(p.solver_turns);
            auto rows = exec(
                "INSERT INTO puzzles (id, position, body, themes, source_game, source_turn, "
                "solver_turns, margin, rating, deviation, volatility, games, last_at, plays, "
                "solved, added_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, 0, "
                "0, 0, $12) ON CONFLICT (id) DO NOTHING RETURNING id",
                {p.id, p.position, p.body, themes_text(p.themes),
                 p.source_game.empty() ? Value{} : Value{p.source_game},
                 std::int64_t(p.source_turn), std::int64_t(p.solver_turns), p.margin, r.rating,
                 r.deviation, r.volatility, p.added_ms});
            added += int(rows.size());
        }
        return added;
    });
}

std::optional<StoredPuzzle> PuzzleDb::get(const std::string& id) {
    return one("WHERE id = $1", {id});
}

std::optional<StoredPuzzle> PuzzleDb::next(const std::string& player_id, double rating,
                                           const std::string& theme) {
    const std::string like = "% " + theme + " %";
    if (player_id.empty())
        return one("WHERE (CAST($1 AS TEXT) = '' OR themes LIKE $2) ORDER BY random() LIMIT 1",
                   {theme, like});
    return one(
        "WHERE (CAST($1 AS TEXT) = '' OR themes LIKE $2) AND NOT EXISTS (SELECT 1 FROM "
        "puzzle_attempts a "
        "WHERE a.player_id = $3 AND a.puzzle_id = p.id) ORDER BY abs(rating - $4), id LIMIT 1",
        {theme, like, player_id, rating});
}

std::optional<StoredPuzzle> PuzzleDb::daily(const std::string& day) {
    auto chosen = [&] {
        auto rows = exec("SELECT puzzle_id FROM puzzle_days WHERE day = $1", {day});
        return rows.empty() ? std::optional<std::string>() : rows[0][0];
    };
    auto id = chosen();
    if (!id) {
        transaction([&] {
            auto rows = exec(
                "INSERT INTO puzzle_days (day, puzzle_id) SELECT CAST($1 AS TEXT), id FROM puzzles "
                "p WHERE NOT "
                "EXISTS (SELECT 1 FROM puzzle_days d WHERE d.puzzle_id = p.id) ORDER BY "
                "solver_turns DESC, margin DESC, id LIMIT 1 ON CONFLICT (day) DO NOTHING "
                "RETURNING puzzle_id",
                {day});
            if (!rows.empty()) return;
            // Every puzzle has been a puzzle of the day: they come round again, by their age.
            exec(
                "INSERT INTO puzzle_days (day, puzzle_id) SELECT CAST($1 AS TEXT), puzzle_id FROM "
                "puzzle_days "
                "WHERE day = (SELECT min(day) FROM puzzle_days WHERE puzzle_id IN (SELECT id FROM "
                "puzzles)) ON CONFLICT (day) DO NOTHING",
                {day});
        });
        id = chosen();
    }
    if (!id) return std::nullopt;
    return get(*id);
}

bool PuzzleDb::tried(const std::string& player_id, const std::string& puzzle_id) {
    return !exec("SELECT 1 FROM puzzle_attempts WHERE player_id = $1 AND puzzle_id = $2",
                 {player_id, puzzle_id})
                .empty();
}

AttemptOutcome PuzzleDb::attempt(const PuzzleAttempt& a, RatePuzzleFn rate) {
    return transaction([&] {
        AttemptOutcome out;
        auto kept = exec(
            "INSERT INTO puzzle_attempts (player_id, puzzle_id, solved, rated, at) SELECT "
            "CAST($1 AS TEXT), id, CAST($3 AS BOOLEAN), CAST($4 AS BOOLEAN), CAST($5 AS BIGINT) "
            "FROM puzzles WHERE id = $2 ON CONFLICT (player_id, puzzle_id) DO NOTHING "
            "RETURNING puzzle_id",
            {a.player_id, a.puzzle_id, std::int64_t(a.solved), std::int64_t(a.rated), a.at_ms});
        if (kept.empty()) return out;
        out.kept = true;
        auto p = one(std::string("WHERE id = $1") + lock(), {a.puzzle_id});
        if (!p) throw StoreError("no puzzle " + a.puzzle_id, false);
        if (!a.rated) {
            exec("UPDATE puzzles SET plays = plays + 1, solved = solved + $2 WHERE id = $1",
                 {a.puzzle_id, std::int64_t(a.solved)});
            return out;
        }
        // The player's row is made first, so that two attempts at once on two nodes queue on it.
        exec(
            "INSERT INTO ratings (player_id, category, rating, deviation, volatility, games, "
            "last_at) VALUES ($1, 'puzzle', 1500, 500, 0.09, 0, 0) ON CONFLICT (player_id, "
            "category) DO NOTHING",
            {a.player_id});
        auto r = exec(std::string("SELECT category, rating, deviation, volatility, games, "
                                  "last_at FROM ratings WHERE player_id = $1 AND category = "
                                  "'puzzle'") +
                          lock(),
                      {a.player_id});
        out.player_before = puzzle_rating(r.at(0));
        out.puzzle_before = p->rating;
        auto [player, puzzle] = rate(out.player_before, out.puzzle_before, a.solved, a.at_ms);
        out.player_after = player;
        out.puzzle_after = puzzle;
        out.rated = true;
        exec(
            "UPDATE ratings SET rating = $2, deviation = $3, volatility = $4, games = $5, "
            "last_at = $6 WHERE player_id = $1 AND category = 'puzzle'",
            {a.player_id, player.rating, player.deviation, player.volatility,
             std::int64_t(player.games), player.last_ms});
        exec(
            "UPDATE puzzles SET rating = $2, deviation = $3, volatility = $4, games = $5, "
            "last_at = $6, plays = plays + 1, solved = solved + $7 WHERE id = $1",
            {a.puzzle_id, puzzle.rating, puzzle.deviation, puzzle.volatility,
             std::int64_t(puzzle.games), puzzle.last_ms, std::int64_t(a.solved)});
        exec("UPDATE puzzle_attempts SET rating = $3 WHERE player_id = $1 AND puzzle_id = $2",
             {a.player_id, a.puzzle_id, player.rating});
        return out;
    });
}

std::vector<AttemptRow> PuzzleDb::attempts_of(const std::string& player_id, int limit) {
    std::vector<AttemptRow> out;
    for (auto& r : exec("SELECT puzzle_id, solved, rated, at, rating FROM puzzle_attempts WHERE "
                        "player_id = $1 ORDER BY at DESC, puzzle_id LIMIT $2",
                        {player_id, std::int64_t(limit)})) {
        AttemptRow a{str(r[0]), truth(r[1]), truth(r[2]), num(r[3]), std::nullopt};
        if (r[4]) a.rating = real(r[4]);
        out.push_back(std::move(a));
    }
    return out;
}

std::optional<StoredRating> PuzzleDb::rating_of(const std::string& player_id) {
    auto r = exec(
        "SELECT category, rating, deviation, volatility, games, last_at FROM ratings WHERE "
        "player_id = $1 AND category = 'puzzle' AND games > 0",
        {player_id});
    if (r.empty()) return std::nullopt;
    return puzzle_rating(r[0]);
}

std::vector<StoredPuzzle> PuzzleDb::all() {
    std::vector<StoredPuzzle> out;
    for (auto& r :
         exec(std::string("SELECT ") + kPuzzleColumns + " FROM puzzles ORDER BY added_at, id", {}))
        out.push_back(puzzle_of(r));
    return out;
}

std::optional<std::string> PuzzleDb::claim_game(int min_turns, std::int64_t now_ms) {
    return transaction([&]() -> std::optional<std::string> {
        auto rows =
            exec(std::string(
                     "INSERT INTO puzzle_mined (code, at, found) SELECT code, "
                     "CAST($1 AS BIGINT), -1 FROM games g WHERE status = 'over' AND is_public = ") +
                     yes() +
                     " AND turns >= $2 AND NOT EXISTS (SELECT 1 FROM puzzle_mined m "
                     "WHERE m.code = g.code) ORDER BY finished_at, code LIMIT 1 ON "
                     "CONFLICT (code) DO NOTHING RETURNING code",
                 {now_ms, std::int64_t(min_turns)});
        if (rows.empty()) return std::nullopt;
        return rows[0][0];
    });
}

void PuzzleDb::mined(const std::string& code, int found) {
    exec("UPDATE puzzle_mined SET found = $2 WHERE code = $1", {code, std::int64_t(found)});
}

namespace {

class SqlitePuzzles : public PuzzleDb {
  public:
    explicit SqlitePuzzles(const std::string& path) {
        db_ = sqlite::open_db(path, SQLITE_OPEN_READWRITE);
        try {
            if (sqlite::user_version(db_) < 4)
                throw StoreError("the database " + path + " has no puzzles yet (schema " +
                                 std::to_string(sqlite::user_version(db_)) +
                                 "): start the server on it once, or stop it to import");
        } catch (...) {
            sqlite3_close(db_);
            throw;
        }
    }
    ~SqlitePuzzles() override { sqlite3_close(db_); }

  protected:
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

  private:
    sqlite3* db_ = nullptr;
};

class PgPuzzles : public PuzzleDb {
  public:
    explicit PgPuzzles(const std::string& conninfo) : db_(conninfo) {}
    pg::Blocking& db() { return db_; }

  protected:
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

  private:
    pg::Blocking db_;
};

}  // namespace

std::unique_ptr<PuzzleDb> open_sqlite_puzzles(const std::string& data_dir) {
    return std::make_unique<SqlitePuzzles>(
        (std::filesystem::path(data_dir) / "trunkfield.db").string());
}

std::unique_ptr<PuzzleDb> open_sqlite_puzzles_migrating(const std::string& data_dir) {
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
    return std::make_unique<SqlitePuzzles>(path);
}

std::unique_ptr<PuzzleDb> open_pg_puzzles(const std::string& conninfo, bool migrate) {
    auto p = std::make_unique<PgPuzzles>(conninfo);
    if (migrate) pg::prepare_database(p->db(), false);
    return p;
}

}  // namespace tf::server
