// Puzzles mined from games (issue 37; docs/RULES.md §10 "Puzzles"): a position where one turn is
// clearly the best — every other turn the engine considers gives away a lot of winning chance —
// with the line that follows (the opponent's best reply, and the solver's next turn while it is
// again the only good one). The same engine as the analysis (common/analysis.h) judges them.
//
// A turn "is" the solution when it leads to the same position as the solution's turn (a burnt
// trunk or guardian move written in another order is the same turn); judge_answer() also accepts
// another turn the engine finds just as good, as lichess accepts any mate in one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json.h"

namespace tf {

struct PuzzleOptions {
    std::uint64_t nodes = 35'000;          // each search while mining
    std::uint64_t verify_nodes = 140'000;  // each search when verifying (deeper)
    double min_margin = 25;    // winning chance (per cent) the best turn must be ahead by
    double min_win = 55;       // ... and the mover's chance after it, at least
    int max_solver_turns = 3;  // the longest line, in the solver's turns
};

struct Puzzle {
    std::string id;          // 8 hex digits of a hash of the position and line
    std::string position;    // position string, the solver to move
    std::vector<Turn> line;  // solver, opponent, solver, ...: an odd number of turns
    std::vector<std::string> themes;
    double margin = 0;    // the smallest margin of the solver's turns, per cent
    int eval = 0;         // the mover's evaluation after the first turn, centipoints
    std::string source;   // where it was found: a game code, a file, "selfplay:SEED"
    int source_turn = 0;  // turns played in the source before the puzzle's position
};

// The themes a puzzle may have, in the order they are listed (docs/RULES.md §10 "Puzzles").
const std::vector<std::string>& puzzle_themes();

// The puzzle that starts at this position, if the side to move has one clearly best turn.
std::optional<Puzzle> find_puzzle(const Game& g, const PuzzleOptions& opt = {});

// Every puzzle of a record (docs/RULES.md 9.1), its positions in play from the first; a puzzle's
// line is not mined again from inside. Errors: not a record, or an illegal setup or turn.
Expected<std::vector<Puzzle>> mine_record(const Json& record, const std::string& source,
                                          const PuzzleOptions& opt = {});

// Whether the puzzle still holds with searches of `nodes`: every turn of the line legal, each
// solver turn the only good one by `min_margin`, each reply the engine's. `why` says what failed.
bool verify_puzzle(const Puzzle& p, std::uint64_t nodes, const PuzzleOptions& opt,
                   std::string* why = nullptr);

// The solver's answer at line index `k` (even): "correct" (the solution's turn), "also" (another
// turn the engine finds as good: the puzzle is solved there), or "wrong"; illegal answers are
// errors with the rules' code.
enum class Answer { Correct, Also, Wrong };
Expected<Answer> judge_answer(const Puzzle& p, int k, const Turn& answer,
                              std::uint64_t nodes = PuzzleOptions{}.verify_nodes);

// A whole game of the bot against itself, as a record (docs/RULES.md 9.1): the levels (2 to 4)
// and the bot's seeds drawn from `seed`, so that the weaker side makes the mistakes puzzles punish.
Json selfplay_record(std::uint64_t seed, const Variant& v);

// {"id", "position", "line": [turns], "themes", "margin", "eval", "source", "source_turn"}
Json to_json(const Puzzle& p);
Expected<Puzzle> puzzle_from_json(const Json& j);  // checks the position and every turn's legality

}  // namespace tf
