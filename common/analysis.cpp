#include "analysis.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "bot.h"
#include "record.h"

namespace tf {

namespace {

// Win, loss and accuracy are shown to one decimal; judging the rounded loss keeps what a reader
// sees (30.0) and the judgement (blunder) in agreement.
double one_decimal(double x) {
    return std::round(x * 10) / 10;
}

double win_for(Side s, double silver_win) {
    return s == Side::Silver ? silver_win : 100 - silver_win;
}

}  // namespace

std::string_view judgement_name(Judgement j) {
    constexpr std::string_view kNames[] = {"", "inaccuracy", "mistake", "blunder"};
    return kNames[int(j)];
}

double win_chance(int eval) {
    const double k = std::log(3.0) / 300;
    return 50 + 50 * (2 / (1 + std::exp(-k * eval)) - 1);
}

double mover_win(int score) {
    if (score >= kForcedScore) return 100;
    if (score <= -kForcedScore) return 0;
    return win_chance(score);
}

BotOptions analysis_engine(std::uint64_t nodes) {
    BotOptions o;
    o.level = kMaxBotLevel;
    o.seed = 1;
    o.nodes = std::max(nodes, kMinAnalysisNodes);
    return o;
}

double turn_accuracy(double loss) {
    return std::clamp(103.1668 * std::exp(-0.04354 * loss) - 3.1669, 0.0, 100.0);
}

Judgement judge_loss(double loss) {
    if (loss >= 30) return Judgement::Blunder;
    if (loss >= 20) return Judgement::Mistake;
    if (loss >= 10) return Judgement::Inaccuracy;
    return Judgement::None;
}

Expected<Analyser> Analyser::create(const Json& record, std::uint64_t nodes) {
    auto r = replay_record(record);
    if (!r) return r.error();
    if (r->error) {
        std::string where = r->error_setup ? std::string(side_name(*r->error_setup)) + "'s setup"
                                           : "turn " + std::to_string(r->error_turn + 1);
        return RuleError{r->error->code, where + ": " + r->error->message};
    }
    // Every position, replayed once more from the setups (both made and every turn applied: a
    // record cannot stop short of them without an error).
    std::vector<Game> games;
    games.reserve(r->record.turns.size() + 1);
    Game g = start_game(r->record);
    games.push_back(g);
    for (const Turn& t : r->record.turns) {
        g.apply_turn(t);
        games.push_back(g);
    }
    return Analyser(std::move(r->record), std::move(games), nodes);
}

PositionEval evaluate_position(const Game& g, std::uint64_t nodes) {
    PositionEval e;
    if (g.over()) {
        e.eval = 100 * (g.score(Side::Silver) - g.score(Side::Bronze));
        e.forced = g.winner();
        e.win = !e.forced ? 50 : *e.forced == Side::Silver ? 100 : 0;
        return e;
    }
    BotInfo info;
    auto t = bot_turn(g, analysis_engine(nodes), &info);
    if (!t) return e;  // not in play (during the setups): nothing to say
    e.best = *t;
    e.depth = info.score_depth;
    const Side mover = g.to_move();
    int score = info.score;
    if (score >= kForcedScore || score <= -kForcedScore) {
        e.forced = score > 0 ? mover : ~mover;
        score = score > 0 ? kForcedEval : -kForcedEval;
    }
    e.eval = mover == Side::Silver ? score : -score;
    e.win = win_chance(e.eval);
    return e;
}

PositionAnalysis analyse_position(const Game& g, std::uint64_t nodes, int length) {
    PositionAnalysis a;
    a.eval = evaluate_position(g, nodes);
    if (!a.eval.best) return a;
    a.line.push_back(*a.eval.best);
    Game at = g;
    at.apply_turn(*a.eval.best);
    const std::uint64_t later = std::max(kMinAnalysisNodes, nodes / 2);
    while (int(a.line.size()) < length && !at.over()) {
        auto t = bot_turn(at, analysis_engine(later));
        if (!t) break;
        at.apply_turn(*t);
        a.line.push_back(std::move(*t));
    }
    return a;
}

void Analyser::step() {
    if (finished()) return;
    const size_t i = evals_.size();
    evals_.push_back(evaluate_position(games_[i], nodes_));
    std::optional<int> played;
    const PositionEval& e = evals_.back();
    if (i < record_.turns.size() && e.best && *e.best != record_.turns[i] && e.depth > 0) {
        // One root turn: a larger budget lets it reach the depth the whole search reached.
        played = bot_turn_score(games_[i], analysis_engine(nodes_ * 4), record_.turns[i], e.depth);
    }
    played_.push_back(played);
}

Analysis Analyser::result() const {
    Analysis a;
    a.nodes = nodes_;
    a.positions = evals_;
    double accuracy_sum[2] = {0, 0};
    int turns[2] = {0, 0};
    for (size_t i = 0; i < record_.turns.size() && i + 1 < evals_.size(); ++i) {
        const PositionEval& before = evals_[i];
        const PositionEval& after = evals_[i + 1];
        TurnEval t;
        t.side = games_[i].to_move();
        t.turn = record_.turns[i];
        if (before.best && *before.best != t.turn) {
            t.best = before.best;
            const double after_win =
                played_[i] ? mover_win(*played_[i]) : win_for(t.side, after.win);
            t.loss = one_decimal(std::max(0.0, win_for(t.side, before.win) - after_win));
        }
        t.judgement = judge_loss(t.loss);
        PlayerEval& p = a.players[idx(t.side)];
        p.inaccuracies += t.judgement == Judgement::Inaccuracy;
        p.mistakes += t.judgement == Judgement::Mistake;
        p.blunders += t.judgement == Judgement::Blunder;
        accuracy_sum[idx(t.side)] += turn_accuracy(t.loss);
        ++turns[idx(t.side)];
        a.turns.push_back(std::move(t));
    }
    for (int s = 0; s < 2; ++s)
        if (turns[s]) a.players[s].accuracy = one_decimal(accuracy_sum[s] / turns[s]);
    return a;
}

Json to_json(const PositionAnalysis& a) {
    Json line = Json::array();
    for (const Turn& t : a.line) line.push_back(to_json(t));
    return Json{{"eval", a.eval.eval},
                {"win", one_decimal(a.eval.win)},
                {"forced", a.eval.forced ? Json(side_name(*a.eval.forced)) : Json(nullptr)},
                {"best", a.eval.best ? to_json(*a.eval.best) : Json(nullptr)},
                {"line", std::move(line)}};
}

Json to_json(const Analysis& a) {
    auto side_or_null = [](std::optional<Side> s) {
        return s ? Json(side_name(*s)) : Json(nullptr);
    };
    auto turn_or_null = [](const std::optional<Turn>& t) {
        return t ? to_json(*t) : Json(nullptr);
    };
    Json positions = Json::array();
    for (const PositionEval& p : a.positions)
        positions.push_back({{"eval", p.eval},
                             {"win", one_decimal(p.win)},
                             {"forced", side_or_null(p.forced)},
                             {"best", turn_or_null(p.best)}});
    Json turns = Json::array();
    for (const TurnEval& t : a.turns)
        turns.push_back(
            {{"side", side_name(t.side)},
             {"turn", to_json(t.turn)},
             {"loss", t.loss},
             {"judgement",
              t.judgement == Judgement::None ? Json(nullptr) : Json(judgement_name(t.judgement))},
             {"best", turn_or_null(t.best)}});
    Json players = Json::object();
    for (Side s : {Side::Silver, Side::Bronze}) {
        const PlayerEval& p = a.players[idx(s)];
        players[std::string(side_name(s))] = {{"accuracy", p.accuracy},
                                              {"inaccuracies", p.inaccuracies},
                                              {"mistakes", p.mistakes},
                                              {"blunders", p.blunders}};
    }
    return Json{
        {"nodes", a.nodes}, {"positions", positions}, {"turns", turns}, {"players", players}};
}

}  // namespace tf
