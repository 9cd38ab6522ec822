// The computer opponent: chooses whole setups and turns (elephant move, burnt trunk, guardian
// moves) for the side to move. No I/O and no global mutable state: every call builds its own
// search, so any number of threads may call it at once on their own (or shared const) games.
//
// The search is alpha-beta (negamax, iterative deepening, transposition table) over whole turns
// with a static evaluation, bounded per level by a depth and a node budget, never by wall time:
// the same position, level and seed give the same answer on every machine. Level 5 visits at
// most 150,000 positions (well under a second on one core). See common/bot.cpp for the design
// and docs/BENCHMARKS.md "Bot strength" for the measured strength and time of every level.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "error.h"
#include "game.h"
#include "turn.h"

namespace tf {

inline constexpr int kMinBotLevel = 1, kMaxBotLevel = 5;

struct BotOptions {
    int level = 3;            // 1 (weakest) .. 5 (strongest)
    std::uint64_t seed = 1;   // varies the choice among equal setups and equally good turns
    std::uint64_t nodes = 0;  // when non-zero, this node budget replaces the level's
    int depth = 0;            // when non-zero, the search stops at this depth (at most the level's)
};

// What a search did, for benchmarks and logs.
struct BotInfo {
    std::uint64_t nodes = 0;  // positions visited (the budget counts these)
    int depth = 0;            // deepest iteration completed, in whole turns
    int candidates = 0;       // whole-turn candidates at the root
    int score = 0;            // evaluation of the chosen turn, centipoints for the mover
    int score_depth = 0;      // the depth of the iteration that gave `score` (0: none)
};

// The node budget of a level (0 for levels outside 1..5). When it is smaller than the number of
// candidate turns (level 1), the bot judges a seeded random sample of that many.
std::uint64_t bot_node_budget(int level);

// A legal setup for the side whose setup is expected. Errors: the game is not in a setup
// phase (wrong_phase / game_over), or the level is out of range (bad_format).
Expected<Setup> bot_setup(const Game& g, const BotOptions& opt);

// A legal turn for the side to move; its elephant part is empty exactly when that side has no
// legal elephant move (it may still place a burnt trunk or move guardians). Errors: the game
// is not being played (wrong_phase / game_over), or the level is out of range (bad_format).
// The turn is checked with Game::apply_turn on a copy before it is returned.
Expected<Turn> bot_turn(const Game& g, const BotOptions& opt, BotInfo* info = nullptr);

// The best turn other than those leading to one of the `exclude` positions (games after a turn):
// the second-best turn, for judging whether a best turn is the only good one (puzzles). Among the
// root candidates the bot considers; no_legal_move when it excludes them all.
Expected<Turn> bot_turn_excluding(const Game& g, const BotOptions& opt,
                                  const std::vector<Game>& exclude, BotInfo* info = nullptr);

// The score (centipoints for the mover) of one turn, searched as bot_turn searches its best — to
// `depth` whole turns, so that it compares with a bot_turn score of that depth (BotInfo's
// score_depth). nullopt when the turn is not among the root candidates the bot considers, or the
// game is not in play.
std::optional<int> bot_turn_score(const Game& g, const BotOptions& opt, const Turn& turn,
                                  int depth);

// The stalling judgement (docs/RULES.md "Takebacks, more time and stalling"): a search of
// kStallJudgeLevel with the default seed (deterministic). The mover is lost when its best turn
// still leaves it kStallLostScore centipoints behind (100 per point of score) or facing a forced
// loss; docs/BENCHMARKS.md "Stalling judgement" measures how often such a position is lost.
inline constexpr int kStallJudgeLevel = 4;
inline constexpr int kStallLostScore = 1500;
// The judge's score for the side to move; nullopt when the game has no turn to judge.
std::optional<int> stall_judgement(const Game& g);
// Whether the judge calls the side to move lost.
bool judged_lost(const Game& g);

}  // namespace tf
