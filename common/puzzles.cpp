#include "puzzles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "analysis.h"
#include "bot.h"
#include "notation.h"
#include "playout.h"
#include "position.h"
#include "record.h"

namespace tf {

namespace {

// Below this, a search found nothing to score (every candidate excluded).
constexpr int kNothing = -50'000'000;
// A first look with this share of the budget drops positions that are far from being puzzles.
constexpr std::uint64_t kPrefilterShare = 4;

// The engine's best turn at `g`, its score, and the best score of any other turn (as the mover).
struct Choice {
    Turn best;
    int score = 0;
    std::optional<int> second;
    Game after;
    double margin() const { return second ? mover_win(score) - mover_win(*second) : 0; }
};

std::optional<Choice> choose(const Game& g, std::uint64_t nodes) {
    BotInfo info;
    auto t = bot_turn(g, analysis_engine(nodes), &info);
    if (!t) return std::nullopt;
    Game after = g;
    if (after.apply_turn(*t)) return std::nullopt;
    Choice c{*t, info.score, std::nullopt, after};
    BotInfo info2;
    auto t2 = bot_turn_excluding(g, analysis_engine(nodes), {after}, &info2);
    if (t2 && info2.score > kNothing) c.second = info2.score;
    return c;
}

bool good(const Choice& c, const PuzzleOptions& opt) {
    return c.second && c.margin() >= opt.min_margin && mover_win(c.score) >= opt.min_win;
}

bool same_position(const Game& a, const Game& b) {
    return position_string(a) == position_string(b);
}

// How many of the line's solver turns hold with searches of `nodes` (each one the engine's best,
// by the margin; each reply before the next one the engine's).
int verified_solver_turns(const Game& start, const std::vector<Turn>& line, std::uint64_t nodes,
                          const PuzzleOptions& opt, std::string* why) {
    Game g = start;
    int ok = 0;
    auto fail = [&](const std::string& m) {
        if (why) *why = m;
        return ok;
    };
    for (size_t k = 0; k < line.size(); ++k) {
        const std::string where = "turn " + std::to_string(g.turns_played() + 1);
        Game played = g;
        if (auto e = played.apply_turn(line[k])) return fail(where + ": " + e->message);
        if (k % 2 == 0) {
            auto c = choose(g, nodes);
            if (!c) return fail(where + ": the engine has no turn");
            if (!same_position(c->after, played))
                return fail(where + ": the engine prefers " +
                            turn_to_notation(c->best, g.variant().size));
            if (!good(*c, opt))
                return fail(where + ": not the only good turn (margin " +
                            std::to_string(int(c->margin())) + ")");
            ++ok;
        } else {
            auto r = bot_turn(g, analysis_engine(nodes));
            Game best = g;
            if (!r || best.apply_turn(*r) || !same_position(best, played))
                return fail(where + ": the engine replies otherwise");
        }
        g = std::move(played);
    }
    return ok;
}

std::string puzzle_id(const std::string& position, const std::vector<Turn>& line, int size) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
    auto add = [&h](const std::string& s) {
        for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
        h = (h ^ '|') * 1099511628211ULL;
    };
    add(position);
    for (const Turn& t : line) add(turn_to_notation(t, size));
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", unsigned((h ^ (h >> 32)) & 0xffffffffu));
    return buf;
}

bool jumps(const Game& g, const Turn& t) {
    if (!t.elephant) return false;
    Cell at = t.elephant->from;
    for (Cell c : t.elephant->path) {
        if (std::abs(c.x - at.x) + std::abs(c.y - at.y) == 2 && g.variant().in_field(c))
            return true;
        at = c;
    }
    return false;
}

std::vector<std::string> themes_of(const Game& start, const std::vector<Turn>& line, int score) {
    std::vector<bool> has(puzzle_themes().size(), false);
    auto mark = [&](const std::string& name) {
        const auto& all = puzzle_themes();
        has[size_t(std::find(all.begin(), all.end(), name) - all.begin())] = true;
    };
    const Side me = start.to_move();
    Game g = start;
    for (size_t k = 0; k < line.size(); ++k) {
        const Turn& t = line[k];
        Game after = g;
        after.apply_turn(t);
        if (k % 2 == 0) {
            if (after.stats(me).captured > g.stats(me).captured) mark("capture");
            if (after.stats(me).saved > g.stats(me).saved) mark("save");
            if (!t.guardians.empty()) mark("guardian_move");
            if (t.burnt) mark("burnt_trunk");
            if (jumps(g, t)) mark("jump");
        }
        g = std::move(after);
    }
    if (score >= kForcedScore) mark("forced_win");
    if (mover_win(score) < 70) mark("defence");
    if (start.trunks_on_field() * 4 <= start.variant().initial_trunks()) mark("endgame");
    const size_t solver = (line.size() + 1) / 2;
    mark(solver == 1 ? "one_turn" : solver == 2 ? "two_turns" : "long");
    std::vector<std::string> out;
    for (size_t i = 0; i < has.size(); ++i)
        if (has[i]) out.push_back(puzzle_themes()[i]);
    return out;
}

}  // namespace

const std::vector<std::string>& puzzle_themes() {
    static const std::vector<std::string> kThemes = {
        "capture", "guardian_move", "burnt_trunk", "save",      "jump", "forced_win",
        "defence", "endgame",       "one_turn",    "two_turns", "long"};
    return kThemes;
}

std::optional<Puzzle> find_puzzle(const Game& g, const PuzzleOptions& opt) {
    if (g.phase() != Phase::Play) return std::nullopt;
    // A first, cheaper look: a position far from having one clearly best turn is left at once.
    if (opt.nodes / kPrefilterShare >= kMinAnalysisNodes) {
        auto quick = choose(g, opt.nodes / kPrefilterShare);
        if (!quick || !quick->second || quick->margin() < opt.min_margin / 2) return std::nullopt;
    }
    auto first = choose(g, opt.nodes);
    if (!first || !good(*first, opt)) return std::nullopt;
    std::vector<Turn> line{first->best};
    Game cur = first->after;
    for (int solver = 1; solver < opt.max_solver_turns && !cur.over(); ++solver) {
        auto reply = bot_turn(cur, analysis_engine(opt.nodes));
        if (!reply) break;
        Game next = cur;
        if (next.apply_turn(*reply) || next.over()) break;
        auto c = choose(next, opt.nodes);
        if (!c || !good(*c, opt)) break;
        line.push_back(*reply);
        line.push_back(c->best);
        cur = c->after;
    }
    // The deeper verification keeps the part of the line that still holds.
    const int kept = verified_solver_turns(g, line, opt.verify_nodes, opt, nullptr);
    if (kept == 0) return std::nullopt;
    line.resize(size_t(2 * kept - 1));
    Puzzle p;
    p.position = *position_string(g);
    p.line = std::move(line);
    // The margins and the evaluation of the verified line, at the verification's depth.
    Game at = g;
    p.margin = 100;
    for (size_t k = 0; k < p.line.size(); k += 2) {
        auto c = choose(at, opt.verify_nodes);
        if (k == 0) p.eval = std::clamp(c->score, -kForcedEval, kForcedEval);
        p.margin = std::min(p.margin, std::round(c->margin() * 10) / 10);
        at.apply_turn(p.line[k]);
        if (k + 1 < p.line.size()) at.apply_turn(p.line[k + 1]);
    }
    p.themes = themes_of(g, p.line, p.eval >= kForcedEval ? kForcedScore : p.eval);
    p.id = puzzle_id(p.position, p.line, g.variant().size);
    return p;
}

Expected<std::vector<Puzzle>> mine_record(const Json& record, const std::string& source,
                                          const PuzzleOptions& opt) {
    auto r = replay_record(record);
    if (!r) return r.error();
    if (r->error) return *r->error;
    Game g = start_game(r->record);
    std::vector<Puzzle> out;
    size_t skip_until = 0;
    for (size_t i = 0; i <= r->record.turns.size() && !g.over(); ++i) {
        if (i >= skip_until) {
            if (auto p = find_puzzle(g, opt)) {
                p->source = source;
                p->source_turn = g.turns_played();
                skip_until = i + p->line.size();
                out.push_back(std::move(*p));
            }
        }
        if (i < r->record.turns.size()) g.apply_turn(r->record.turns[i]);
    }
    return out;
}

bool verify_puzzle(const Puzzle& p, std::uint64_t nodes, const PuzzleOptions& opt,
                   std::string* why) {
    auto g = game_from_position(p.position);
    if (!g) {
        if (why) *why = g.error().message;
        return false;
    }
    if (p.line.empty() || p.line.size() % 2 == 0) {
        if (why) *why = "a line has an odd number of turns";
        return false;
    }
    return verified_solver_turns(*g, p.line, nodes, opt, why) == int(p.line.size() + 1) / 2;
}

Expected<Answer> judge_answer(const Puzzle& p, int k, const Turn& answer, std::uint64_t nodes) {
    auto g = game_from_position(p.position);
    if (!g) return g.error();
    if (k < 0 || k % 2 || k >= int(p.line.size()))
        return RuleError{ErrorCode::BadFormat, "the solver's turns are the even ones of the line"};
    for (int i = 0; i < k; ++i) g->apply_turn(p.line[size_t(i)]);
    Game mine = *g, theirs = *g;
    if (auto e = mine.apply_turn(answer)) return *e;
    theirs.apply_turn(p.line[size_t(k)]);
    if (same_position(mine, theirs)) return Answer::Correct;
    // Another turn: as good as the solution when a search of each position after it agrees.
    auto after_score = [&](const Game& x) {
        if (x.over()) {
            const int d = x.score(g->to_move()) - x.score(~g->to_move());
            const auto w = x.winner();
            return !w ? 0 : *w == g->to_move() ? kForcedScore + d : -kForcedScore + d;
        }
        BotInfo info;
        bot_turn(x, analysis_engine(nodes), &info);
        return -info.score;  // the search is the opponent's
    };
    const double mine_w = mover_win(after_score(mine));
    const double theirs_w = mover_win(after_score(theirs));
    return mine_w >= theirs_w - 5 && mine_w >= 50 ? Answer::Also : Answer::Wrong;
}

Json selfplay_record(std::uint64_t seed, const Variant& v) {
    Rng rng(seed * 0x2545f4914f6cdd1dULL + 7);
    const int levels[2] = {2 + int(rng.below(3)), 2 + int(rng.below(3))};
    Game g(v);
    Record rec{v, {}, {}, {}};
    for (Side s : {Side::Silver, Side::Bronze}) {
        BotOptions o;
        o.level = levels[idx(s)];
        o.seed = rng.next();
        auto setup = bot_setup(g, o);
        g.apply_setup(s, *setup);
        (s == Side::Silver ? rec.silver : rec.bronze) = *setup;
    }
    while (!g.over()) {
        BotOptions o;
        o.level = levels[idx(g.to_move())];
        o.seed = rng.next();
        auto t = bot_turn(g, o);
        if (!t || g.apply_turn(*t)) break;  // cannot happen: the bot's turns are checked
        rec.turns.push_back(std::move(*t));
    }
    return to_json(rec);
}

Json to_json(const Puzzle& p) {
    Json line = Json::array();
    for (const Turn& t : p.line) line.push_back(to_json(t));
    return Json{{"id", p.id},         {"position", p.position},      {"line", std::move(line)},
                {"themes", p.themes}, {"margin", p.margin},          {"eval", p.eval},
                {"source", p.source}, {"source_turn", p.source_turn}};
}

Expected<Puzzle> puzzle_from_json(const Json& j) {
    auto bad = [](const std::string& m) { return RuleError{ErrorCode::BadFormat, "puzzle: " + m}; };
    if (!j.is_object() || !j.contains("position") || !j["position"].is_string() ||
        !j.contains("line") || !j["line"].is_array())
        return bad("an object with a position and a line");
    Puzzle p;
    p.position = j["position"].get<std::string>();
    auto g = game_from_position(p.position);
    if (!g) return g.error();
    for (const Json& t : j["line"]) {
        auto turn = turn_from_json(t);
        if (!turn) return turn.error();
        if (auto e = g->apply_turn(*turn)) return *e;
        p.line.push_back(std::move(*turn));
    }
    if (p.line.empty() || p.line.size() % 2 == 0) return bad("a line has an odd number of turns");
    auto str = [&](const char* k, std::string& out) {
        if (j.contains(k) && j[k].is_string()) out = j[k].get<std::string>();
    };
    str("id", p.id);
    str("source", p.source);
    if (j.contains("themes") && j["themes"].is_array())
        for (const Json& t : j["themes"])
            if (t.is_string()) p.themes.push_back(t.get<std::string>());
    if (j.contains("margin") && j["margin"].is_number()) p.margin = j["margin"].get<double>();
    if (j.contains("eval") && j["eval"].is_number_integer()) p.eval = j["eval"].get<int>();
    if (j.contains("source_turn") && j["source_turn"].is_number_integer())
        p.source_turn = j["source_turn"].get<int>();
    if (p.id.empty()) p.id = puzzle_id(p.position, p.line, g->variant().size);
    return p;
}

}  // namespace tf
