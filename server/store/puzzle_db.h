// The puzzles' tables (issue 37; proto/PROTOCOL.md "Puzzle API"): the puzzles with their own
// Glicko-2 rating, each player's first finished attempt at each, the puzzle of each day, and the
// finished games already mined for puzzles — in SQLite (schema 4) or PostgreSQL (schema 4), on a
// connection of their own beside the store's (puzzles are few, slow-moving rows: no group
// commits, no journal). One SQL text serves both: parameters are $1, $2, ...
//
// Blocking, one connection, one thread at a time (server/puzzles/puzzle_service.h owns it);
// failures throw StoreError (fault: the database's trouble, the caller opens a new one).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/store/side_db.h"
#include "server/store/store.h"

namespace tf::server {

// A puzzle as stored: its JSON (common/puzzles.h to_json) and what is looked up or counted.
struct StoredPuzzle {
    std::string id;
    std::string position;
    std::string body;  // canonical JSON: {"id", "position", "line", "themes", ...}
    std::vector<std::string> themes;
    std::string source_game;  // a public game's code; "" for an imported puzzle
    int source_turn = 0;
    int solver_turns = 1;
    double margin = 0;
    StoredRating rating;  // category "puzzle"; games: rated attempts, last_ms: the last one's
    int plays = 0, solved = 0;
    std::int64_t added_ms = 0;
};

// The rating a puzzle starts with: 1300, 1500 or 1700 for one, two, three solver turns
// (deviation 350), so that the first players meet longer lines as harder.
StoredRating initial_puzzle_rating(int solver_turns);

// A finished attempt, as the reader's first one at a puzzle is kept.
struct PuzzleAttempt {
    std::string player_id, puzzle_id;
    bool solved = false;
    bool rated = false;  // the reader has an account
    std::int64_t at_ms = 0;
};
struct AttemptOutcome {
    bool kept = false;   // the first finished attempt of this reader at this puzzle
    bool rated = false;  // kept, and the reader's and the puzzle's ratings moved
    StoredRating player_before, player_after, puzzle_before, puzzle_after;
};
// The rating arithmetic (server/accounts/ratings.h rate_puzzle), handed in by the caller:
// {player after, puzzle after}.
using RatePuzzleFn = std::pair<StoredRating, StoredRating> (*)(const StoredRating& player,
                                                               const StoredRating& puzzle,
                                                               bool solved, std::int64_t at_ms);

struct AttemptRow {
    std::string puzzle_id;
    bool solved = false, rated = false;
    std::int64_t at_ms = 0;
    std::optional<double> rating;  // the reader's puzzle rating after it, when rated
};

class PuzzleDb {
  public:
    explicit PuzzleDb(std::unique_ptr<SideDb> db) : db_(std::move(db)) {}

    // Adds the puzzles not stored yet (by id); how many were new.
    int add(const std::vector<StoredPuzzle>& puzzles);
    std::optional<StoredPuzzle> get(const std::string& id);
    // A puzzle `player_id` has no finished attempt at, the closest to `rating`, ties by id;
    // `theme` ("" for any) narrows it. An empty player: any puzzle, at random.
    std::optional<StoredPuzzle> next(const std::string& player_id, double rating,
                                     const std::string& theme);
    // The puzzle of `day` (YYYY-MM-DD), chosen by the first to ask (the longest line, then the
    // largest margin, among puzzles never chosen), then kept. nullopt when there are none.
    std::optional<StoredPuzzle> daily(const std::string& day);
    bool tried(const std::string& player_id, const std::string& puzzle_id);
    // Keeps the attempt when it is the reader's first finished one at the puzzle, and then (for
    // an account) moves both ratings by `rate`, in one transaction.
    AttemptOutcome attempt(const PuzzleAttempt& a, RatePuzzleFn rate);
    std::vector<AttemptRow> attempts_of(const std::string& player_id, int limit);
    std::optional<StoredRating> rating_of(const std::string& player_id);
    std::vector<StoredPuzzle> all();
    // Mining: claims the oldest finished public game of `min_turns` turns or more not mined yet
    // (several nodes: one claim each); mined() says how many puzzles it gave.
    std::optional<std::string> claim_game(int min_turns, std::int64_t now_ms);
    void mined(const std::string& code, int found);

    using Value = SideDb::Value;
    using Row = SideDb::Row;

  private:
    std::unique_ptr<SideDb> db_;
    StoredPuzzle puzzle_of(const Row& r);
    std::optional<StoredPuzzle> one(const std::string& where, const std::vector<Value>& params);
};

// On the SQLite store's file in `data_dir` (schema 4, migrated by the store or by
// open_sqlite_puzzles_migrating()).
std::unique_ptr<PuzzleDb> open_sqlite_puzzles(const std::string& data_dir);
// For tools: takes the data folder's lock when it is free and migrates the file; when a server
// holds it, the file must have this server's schema already.
std::unique_ptr<PuzzleDb> open_sqlite_puzzles_migrating(const std::string& data_dir);
// On PostgreSQL (`migrate`: apply the store's migrations first, for tools).
std::unique_ptr<PuzzleDb> open_pg_puzzles(const std::string& conninfo, bool migrate = false);

}  // namespace tf::server
