#include "server/store/puzzle_db.h"

#include <sstream>

namespace tf::server {

namespace {

constexpr const char* kPuzzleColumns =
    "id, position, body, themes, source_game, source_turn, solver_turns, margin, rating, "
    "deviation, volatility, games, last_at, plays, solved, added_at";

// A `ratings` row selected as category, rating, deviation, volatility, games, last_at.
StoredRating puzzle_rating(const PuzzleDb::Row& r) {
    return {"puzzle", real(r[1]), real(r[2]), real(r[3]), int(num(r[4])), num(r[5])};
}

std::string themes_text(const std::vector<std::string>& themes) {
    std::string t = " ";
    for (const auto& x : themes) t += x + " ";
    return t;
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
    auto rows =
        db_->exec(std::string("SELECT ") + kPuzzleColumns + " FROM puzzles p " + where, params);
    if (rows.empty()) return std::nullopt;
    return puzzle_of(rows[0]);
}

int PuzzleDb::add(const std::vector<StoredPuzzle>& puzzles) {
    return db_->transaction([&] {
        int added = 0;
        for (const auto& p : puzzles) {
            const StoredRating r = initial_puzzle_rating(p.solver_turns);
            auto rows = db_->exec(
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
        auto rows = db_->exec("SELECT puzzle_id FROM puzzle_days WHERE day = $1", {day});
        return rows.empty() ? std::optional<std::string>() : rows[0][0];
    };
    auto id = chosen();
    if (!id) {
        db_->transaction([&] {
            auto rows = db_->exec(
                "INSERT INTO puzzle_days (day, puzzle_id) SELECT CAST($1 AS TEXT), id FROM puzzles "
                "p WHERE NOT "
                "EXISTS (SELECT 1 FROM puzzle_days d WHERE d.puzzle_id = p.id) ORDER BY "
                "solver_turns DESC, margin DESC, id LIMIT 1 ON CONFLICT (day) DO NOTHING "
                "RETURNING puzzle_id",
                {day});
            if (!rows.empty()) return;
            // Every puzzle has been a puzzle of the day: they come round again, by their age.
            db_->exec(
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
    return !db_->exec("SELECT 1 FROM puzzle_attempts WHERE player_id = $1 AND puzzle_id = $2",
                      {player_id, puzzle_id})
                .empty();
}

AttemptOutcome PuzzleDb::attempt(const PuzzleAttempt& a, RatePuzzleFn rate) {
    return db_->transaction([&] {
        AttemptOutcome out;
        auto kept = db_->exec(
            "INSERT INTO puzzle_attempts (player_id, puzzle_id, solved, rated, at) SELECT "
            "CAST($1 AS TEXT), id, CAST($3 AS BOOLEAN), CAST($4 AS BOOLEAN), CAST($5 AS BIGINT) "
            "FROM puzzles WHERE id = $2 ON CONFLICT (player_id, puzzle_id) DO NOTHING "
            "RETURNING puzzle_id",
            {a.player_id, a.puzzle_id, std::int64_t(a.solved), std::int64_t(a.rated), a.at_ms});
        if (kept.empty()) return out;
        out.kept = true;
        auto p = one(std::string("WHERE id = $1") + db_->lock(), {a.puzzle_id});
        if (!p) throw StoreError("no puzzle " + a.puzzle_id, false);
        if (!a.rated) {
            db_->exec("UPDATE puzzles SET plays = plays + 1, solved = solved + $2 WHERE id = $1",
                      {a.puzzle_id, std::int64_t(a.solved)});
            return out;
        }
        // The player's row is made first, so that two attempts at once on two nodes queue on it.
        db_->exec(
            "INSERT INTO ratings (player_id, category, rating, deviation, volatility, games, "
            "last_at) VALUES ($1, 'puzzle', 1500, 500, 0.09, 0, 0) ON CONFLICT (player_id, "
            "category) DO NOTHING",
            {a.player_id});
        auto r = db_->exec(std::string("SELECT category, rating, deviation, volatility, games, "
                                       "last_at FROM ratings WHERE player_id = $1 AND category = "
                                       "'puzzle'") +
                               db_->lock(),
                           {a.player_id});
        out.player_before = puzzle_rating(r.at(0));
        out.puzzle_before = p->rating;
        auto [player, puzzle] = rate(out.player_before, out.puzzle_before, a.solved, a.at_ms);
        out.player_after = player;
        out.puzzle_after = puzzle;
        out.rated = true;
        db_->exec(
            "UPDATE ratings SET rating = $2, deviation = $3, volatility = $4, games = $5, "
            "last_at = $6 WHERE player_id = $1 AND category = 'puzzle'",
            {a.player_id, player.rating, player.deviation, player.volatility,
             std::int64_t(player.games), player.last_ms});
        db_->exec(
            "UPDATE puzzles SET rating = $2, deviation = $3, volatility = $4, games = $5, "
            "last_at = $6, plays = plays + 1, solved = solved + $7 WHERE id = $1",
            {a.puzzle_id, puzzle.rating, puzzle.deviation, puzzle.volatility,
             std::int64_t(puzzle.games), puzzle.last_ms, std::int64_t(a.solved)});
        db_->exec("UPDATE puzzle_attempts SET rating = $3 WHERE player_id = $1 AND puzzle_id = $2",
                  {a.player_id, a.puzzle_id, player.rating});
        return out;
    });
}

std::vector<AttemptRow> PuzzleDb::attempts_of(const std::string& player_id, int limit) {
    std::vector<AttemptRow> out;
    for (auto& r :
         db_->exec("SELECT puzzle_id, solved, rated, at, rating FROM puzzle_attempts WHERE "
                   "player_id = $1 ORDER BY at DESC, puzzle_id LIMIT $2",
                   {player_id, std::int64_t(limit)})) {
        AttemptRow a{str(r[0]), truth(r[1]), truth(r[2]), num(r[3]), std::nullopt};
        if (r[4]) a.rating = real(r[4]);
        out.push_back(std::move(a));
    }
    return out;
}

std::optional<StoredRating> PuzzleDb::rating_of(const std::string& player_id) {
    auto r = db_->exec(
        "SELECT category, rating, deviation, volatility, games, last_at FROM ratings WHERE "
        "player_id = $1 AND category = 'puzzle' AND games > 0",
        {player_id});
    if (r.empty()) return std::nullopt;
    return puzzle_rating(r[0]);
}

std::vector<StoredPuzzle> PuzzleDb::all() {
    std::vector<StoredPuzzle> out;
    for (auto& r : db_->exec(
             std::string("SELECT ") + kPuzzleColumns + " FROM puzzles ORDER BY added_at, id", {}))
        out.push_back(puzzle_of(r));
    return out;
}

std::optional<std::string> PuzzleDb::claim_game(int min_turns, std::int64_t now_ms) {
    return db_->transaction([&]() -> std::optional<std::string> {
        auto rows = db_->exec(
            std::string(
                "INSERT INTO puzzle_mined (code, at, found) SELECT code, "
                "CAST($1 AS BIGINT), -1 FROM games g WHERE status = 'over' AND is_public = ") +
                db_->yes() +
                " AND turns >= $2 AND NOT EXISTS (SELECT 1 FROM puzzle_mined m "
                "WHERE m.code = g.code) ORDER BY finished_at, code LIMIT 1 ON "
                "CONFLICT (code) DO NOTHING RETURNING code",
            {now_ms, std::int64_t(min_turns)});
        if (rows.empty()) return std::nullopt;
        return rows[0][0];
    });
}

void PuzzleDb::mined(const std::string& code, int found) {
    db_->exec("UPDATE puzzle_mined SET found = $2 WHERE code = $1", {code, std::int64_t(found)});
}

std::unique_ptr<PuzzleDb> open_sqlite_puzzles(const std::string& data_dir) {
    return std::make_unique<PuzzleDb>(open_sqlite_side(data_dir, 4, "puzzles"));
}

std::unique_ptr<PuzzleDb> open_sqlite_puzzles_migrating(const std::string& data_dir) {
    return std::make_unique<PuzzleDb>(open_sqlite_side_migrating(data_dir));
}

std::unique_ptr<PuzzleDb> open_pg_puzzles(const std::string& conninfo, bool migrate) {
    return std::make_unique<PuzzleDb>(open_pg_side(conninfo, migrate));
}

}  // namespace tf::server
