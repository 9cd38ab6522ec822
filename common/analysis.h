// Analysis of a game record by our own engine (issue 37): an evaluation of every position, the
// engine's best turn where it differs from the one played, every turn judged by the winning
// chances it gave away, and an accuracy per player. The terminal client (`trunkfield analyse`)
// and the browser (WebAssembly, tf_analyser_*) run this same code, one position per step() so
// that a page can show progress.
//
// The scale (docs/RULES.md §10 "Game analysis"):
// - eval: centipoints from silver's view (100 per point of game score), the score of a bot search
//   (level 5's depth, the analyser's node budget, seed 1: deterministic). A forced win found by
//   the search is shown as ±kForcedEval and names the winner in `forced`. A finished position
//   is the actual score difference, and its `forced` is the winner.
// - win: silver's winning chance in per cent, W(cp) = 50 + 50 * (2 / (1 + exp(-k * cp)) - 1)
//   with k = ln 3 / 300 (three points ahead is 75 %); a finished position is 100, 0 or 50.
// - loss of a turn: the winning chance its mover gave away, max(0, W_mover(best) -
//   W_mover(played)), in points of per cent, both scored in the position before it by searches to
//   the same depth (bot_turn_score), so that the horizon of the next position's search does not
//   count; W_mover(after) from the next position's evaluation when the engine does not consider
//   the played turn; 0 when the turn is the engine's own best choice.
// - judgement: loss >= 30 blunder, >= 20 mistake, >= 10 inaccuracy.
// - accuracy of a player: the mean over its turns of lichess's per-move accuracy,
//   clamp(103.1668 * exp(-0.04354 * loss) - 3.1669, 0, 100); 100 for a player without turns.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "bot.h"
#include "json.h"

namespace tf {

// The default node budget of one position's search (level 5 has 150,000): a 140-turn game
// takes 6 to 6.5 s in WebAssembly under Node on the build machine, 3.5 to 4.5 s natively
// (docs/BENCHMARKS.md "Game analysis"); the browser's goal is 10 s.
inline constexpr std::uint64_t kAnalysisNodes = 35'000;
// The budgets an analysis may be asked for (`trunkfield analyse --nodes`, RulesAnalyser).
inline constexpr std::uint64_t kMinAnalysisNodes = 1'000, kMaxAnalysisNodes = 100'000'000;
// The eval shown for a forced win (centipoints, silver's view: +kForcedEval silver wins).
inline constexpr int kForcedEval = 10'000;

enum class Judgement : u8 { None, Inaccuracy, Mistake, Blunder };
std::string_view judgement_name(Judgement j);  // "", "inaccuracy", "mistake", "blunder"

struct PositionEval {
    int eval = 0;                // centipoints, silver's view
    double win = 50;             // silver's winning chance, per cent
    std::optional<Side> forced;  // the side whose win is certain, if any
    std::optional<Turn> best;    // the engine's turn here; none once the game is over
    int depth = 0;               // the depth of the search that gave `eval` (not in the JSON)
};

struct TurnEval {
    Side side = Side::Silver;  // the mover
    Turn turn;                 // as played
    double loss = 0;           // winning chance given away, per cent, to one decimal
    Judgement judgement = Judgement::None;
    std::optional<Turn> best;  // the engine's turn, when it differs from the one played
};

struct PlayerEval {
    double accuracy = 100;  // per cent, to one decimal
    int inaccuracies = 0, mistakes = 0, blunders = 0;
};

struct Analysis {
    std::uint64_t nodes = 0;              // the budget of each search
    std::vector<PositionEval> positions;  // 0: after both setups, i: after turn i
    std::vector<TurnEval> turns;          // turns[i] leads from positions[i] to positions[i + 1]
    std::array<PlayerEval, 2> players;    // by idx(Side)
};

// Silver's winning chance (per cent) for an eval in centipoints from silver's view.
double win_chance(int eval);
// A bot score at or beyond this is a forced win (common/bot.cpp scores a won game 10,000,000
// plus the score difference; no evaluation comes near it).
inline constexpr int kForcedScore = 5'000'000;
// The mover's winning chance of a search score from its own view (a forced win is certain).
double mover_win(int score);
// The engine every analysis search uses: level 5's depth, seed 1, `nodes` positions (at least
// kMinAnalysisNodes).
BotOptions analysis_engine(std::uint64_t nodes);
// Lichess's accuracy of one turn from its loss (per cent), 0 to 100.
double turn_accuracy(double loss);
Judgement judge_loss(double loss);

// One position's evaluation as the analysis gives it (a search of `nodes`; a finished position
// its score).
PositionEval evaluate_position(const Game& g, std::uint64_t nodes = kAnalysisNodes);

// The analysis board's view of a position: the evaluation and the engine's best line of up to
// `length` turns (the first from the evaluation's search, each later one from a search of half
// the budget, so a line costs about (length + 1) / 2 evaluations).
struct PositionAnalysis {
    PositionEval eval;
    std::vector<Turn> line;
};
PositionAnalysis analyse_position(const Game& g, std::uint64_t nodes, int length);
// {"eval", "win", "forced", "best", "line": [turns]}
Json to_json(const PositionAnalysis& a);

class Analyser {
  public:
    // Replays a record (docs/RULES.md 9.1). Errors: not a record, a setup missing or illegal
    // (the game never reaches play), an illegal turn ("turn N: ..." counting from 1).
    static Expected<Analyser> create(const Json& record, std::uint64_t nodes = kAnalysisNodes);

    int total() const { return int(games_.size()); }  // positions: turns + 1
    int done() const { return int(evals_.size()); }
    bool finished() const { return done() == total(); }
    const Record& record() const { return record_; }
    // Evaluates the next position (one search; none for a finished position). Once finished,
    // does nothing.
    void step();
    // The whole analysis. Assumes finished().
    Analysis result() const;

  private:
    Analyser(Record r, std::vector<Game> games, std::uint64_t nodes)
        : record_(std::move(r)), games_(std::move(games)), nodes_(nodes) {}

    Record record_;
    std::vector<Game> games_;  // games_[i]: position i
    std::uint64_t nodes_;
    std::vector<PositionEval> evals_;
    // The played turn of each position, scored for its mover by a search to the depth of that
    // position's own (bot_turn_score): nullopt where it is the engine's best, where the engine
    // does not consider it, or after the last turn.
    std::vector<std::optional<int>> played_;
};

// {"nodes", "positions": [{"eval", "win", "forced", "best"}], "turns": [{"side", "turn", "loss",
// "judgement", "best"}], "players": {"silver", "bronze": {"accuracy", "inaccuracies",
// "mistakes", "blunders"}}}: win, loss and accuracy to one decimal, turns in canonical JSON.
Json to_json(const Analysis& a);

}  // namespace tf
