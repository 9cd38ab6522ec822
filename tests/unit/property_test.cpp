// Property tests over seeded random games: conservation and self-checks at every step, JSON and
// notation round trips, validation (apply_turn) agreeing with generation (generate/play), mutated
// turns accepted exactly when they are legal, and random full turns with burnt trunks and
// guardian moves checked against a small independent model of spec §4.2, §4.3 and §5.
// Everything is seeded: a failure names the variant, seed and turn to replay it.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/notation.h"
#include "common/playout.h"

using namespace tf;

namespace {

// The binary also runs under AddressSanitizer in a Debug build; the same properties are then
// checked over fewer games so that the whole run stays short.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kDiv = 6;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kDiv = 6;
#else
constexpr int kDiv = 1;
#endif
#else
constexpr int kDiv = 1;
#endif
#ifndef NDEBUG
constexpr int kScaleDiv = kDiv * 2;
#else
constexpr int kScaleDiv = kDiv;
#endif
constexpr bool kSlow = kScaleDiv > 1;
// Positions between two expensive checks (every position in an optimised build).
constexpr int kStride = kSlow ? 8 : 1;
int scaled(int n) {
    return std::max(1, n / kScaleDiv);
}

const Variant kVariants[] = {
    {5, 3, 2, 20}, {5, 1, 0, 2},    {6, 4, 1, 10},     {7, 4, 2, 30},
    {9, 5, 3, 40}, {11, 9, 9, 100}, {13, 11, 3, 1000}, {13, 2, 9, 50},
};

std::string vname(const Variant& v) {
    return to_json(v).dump();
}

Game started(const Variant& v, Rng& rng) {
    Game g(v);
    g.apply_setup(Side::Silver, random_setup(g, rng));
    g.apply_setup(Side::Bronze, random_setup(g, rng));
    return g;
}

// A random move, biased toward collecting and exits (3 times in 4 when there is one) so that
// random games also end by running out of trunks or elephants, not only by quiet turns.
const Move& pick(const MoveList& ml, Rng& rng) {
    if (rng.below(4) != 0) {
        int progress = 0;
        for (const Move& m : ml) progress += m.facing == kKeepFacing;
        if (progress > 0) {
            int k = int(rng.below(std::uint32_t(progress)));
            for (const Move& m : ml)
                if (m.facing == kKeepFacing && k-- == 0) return m;
        }
    }
    return ml[int(rng.below(std::uint32_t(ml.size)))];
}

// Every invariant of a position that the spec implies, computed from the public interface;
// an empty string when all hold.
std::string invariant_failure(const Game& g) {
    const Variant& v = g.variant();
    if (!g.is_ok()) return "is_ok() is false";
    int held = 0;
    for (Side s : {Side::Silver, Side::Bronze}) held += g.stats(s).trunks + g.stats(s).spent;
    if (g.trunks_on_field() + held != v.initial_trunks()) return "trunks not conserved";
    if (int(g.trunk_cells().size()) != g.trunks_on_field())
        return "trunk count differs from trunk cells";
    int count[2] = {0, 0};
    for (const ElephantInfo& e : g.elephants()) {
        ++count[idx(e.side)];
        if (!v.in_field(e.cell)) return "elephant off the field";
        if (g.is_crossing(e.cell)) return "elephant on a crossing at " + cell_name(e.cell, v.size);
        if (g.has_trunk(e.cell) || g.has_burnt(e.cell)) return "elephant on a trunk";
    }
    for (Side s : {Side::Silver, Side::Bronze}) {
        const SideStats& st = g.stats(s);
        if (count[idx(s)] != g.elephants_on_field(s)) return "elephant count differs";
        if (g.elephants_on_field(s) + st.saved + g.stats(~s).captured != v.elephants)
            return "elephants not conserved";
        if (st.trunks < 0 || st.spent < 0 || st.burnt_left < 0 || st.burnt_left > v.burnt)
            return "bad counters";
        if (g.score(s) != st.trunks + 2 * st.captured + 3 * st.saved) return "score formula";
    }
    if (int(g.burnt_cells().size()) + g.stats(Side::Silver).burnt_left +
            g.stats(Side::Bronze).burnt_left !=
        2 * v.burnt)
        return "burnt trunks not conserved";
    for (Cell c : g.burnt_cells())
        if (g.has_trunk(c)) return "burnt trunk on a trunk";
    // Guardians: 2 a side, distinct ring cells; crossings are exactly watched column x watched row.
    const auto gs = g.guardians();
    if (gs.size() != 4) return "not 4 guardians";
    std::set<Cell> gcells;
    int gcount[2] = {0, 0};
    std::set<int> cols, rows;
    for (const GuardianInfo& gi : gs) {
        if (!v.on_ring(gi.cell)) return "guardian off the ring";
        gcells.insert(gi.cell);
        ++gcount[idx(gi.side)];
        const Cell c = gi.cell;
        if ((c.y == 0 || c.y == v.size + 1) && c.x >= 1 && c.x <= v.size) cols.insert(c.x);
        if ((c.x == 0 || c.x == v.size + 1) && c.y >= 1 && c.y <= v.size) rows.insert(c.y);
    }
    if (gcells.size() != 4 || gcount[0] != 2 || gcount[1] != 2)
        return "guardians overlap or miscounted";
    std::vector<Cell> cross;
    for (int x : cols)
        for (int y : rows) cross.push_back({x, y});
    std::vector<Cell> got = g.crossings();
    std::sort(got.begin(), got.end());
    std::sort(cross.begin(), cross.end());
    if (got != cross) return "crossings differ from watched columns x rows";
    if (g.over() != (g.end_reason() != EndReason::None)) return "over and end reason disagree";
    if (!g.over()) {
        if (g.trunks_on_field() == 0) return "no trunk left but not over";
        if (g.elephants_on_field(Side::Silver) == 0 || g.elephants_on_field(Side::Bronze) == 0)
            return "a herd is gone but not over";
        if (g.quiet_turns() >= v.quiet) return "quiet limit reached but not over";
    } else if (g.end_reason() == EndReason::Trunks && g.trunks_on_field() != 0) {
        return "over by trunks with trunks left";
    } else if (g.end_reason() == EndReason::Herd && g.elephants_on_field(Side::Silver) != 0 &&
               g.elephants_on_field(Side::Bronze) != 0) {
        return "over by herd with both herds on the field";
    } else if (g.end_reason() == EndReason::Quiet && g.quiet_turns() != v.quiet) {
        return "over by quiet turns with a different count";
    }
    return {};
}

// Compares two games through their snapshots; an empty string when they are the same.
std::string state_diff(const Game& a, const Game& b) {
    const Snapshot x = a.snapshot(), y = b.snapshot();
    if (x.phase != y.phase || x.to_move != y.to_move || x.reason != y.reason || x.loser != y.loser)
        return "phase, side to move or result";
    if (x.turns_played != y.turns_played || x.quiet_turns != y.quiet_turns) return "turn counters";
    if (x.trunks != y.trunks) return "trunks";
    if (x.burnt != y.burnt) return "burnt trunks";
    if (x.elephants.size() != y.elephants.size()) return "elephant count";
    for (size_t i = 0; i < x.elephants.size(); ++i)
        if (x.elephants[i].side != y.elephants[i].side ||
            x.elephants[i].cell != y.elephants[i].cell ||
            x.elephants[i].facing != y.elephants[i].facing)
            return "elephants";
    if (x.guardians.size() != y.guardians.size()) return "guardian count";
    for (size_t i = 0; i < x.guardians.size(); ++i)
        if (x.guardians[i].side != y.guardians[i].side ||
            x.guardians[i].cell != y.guardians[i].cell)
            return "guardians";
    for (int i = 0; i < 2; ++i) {
        const SideStats &p = x.stats[i], &q = y.stats[i];
        if (p.trunks != q.trunks || p.spent != q.spent || p.burnt_left != q.burnt_left ||
            p.saved != q.saved || p.captured != q.captured)
            return "player counters";
    }
    return {};
}

std::string canonical(const ElephantMove& m) {
    return to_json(m).dump();
}

// An order on moves for fast look-ups (equal exactly when the canonical JSON is equal).
struct MoveLess {
    bool operator()(const ElephantMove& a, const ElephantMove& b) const {
        if (a.from != b.from) return a.from < b.from;
        const int fa = a.facing ? int(*a.facing) : -1, fb = b.facing ? int(*b.facing) : -1;
        if (fa != fb) return fa < fb;
        return std::lexicographical_compare(a.path.begin(), a.path.end(), b.path.begin(),
                                            b.path.end());
    }
};

std::string where(const Variant& v, std::uint64_t seed, int turn) {
    std::ostringstream o;
    o << "variant " << vname(v) << " seed " << seed << " turn " << turn;
    return o.str();
}

// Stops a property loop after the first failure, so one bug does not print a million lines.
#define PROP_FAIL(msg)                   \
    do {                                 \
        const std::string prop_ = (msg); \
        FAIL_CHECK(prop_);               \
        failed = true;                   \
    } while (0)

}  // namespace

TEST_CASE("property: random games conserve trunks and elephants and pass is_ok at every step") {
    long long positions = 0, games = 0;
    int reasons[8] = {};
    bool failed = false;
    for (const Variant& v : kVariants) {
        const int n_games = scaled(v.size <= 7 ? 400 : v.size <= 9 ? 200 : 60);
        for (int k = 0; k < n_games && !failed; ++k) {
            const std::uint64_t seed =
                1000003ULL * std::uint64_t(k) + std::uint64_t(v.size * 31 + v.elephants);
            Rng rng(seed);
            Game g = started(v, rng);
            ++games;
            MoveList ml;
            for (int turn = 0; !g.over() && turn < 3000 && !failed; ++turn) {
                if (auto f = invariant_failure(g); !f.empty())
                    PROP_FAIL(where(v, seed, turn) + ": " + f);
                ++positions;
                g.generate(ml);
                const bool has = g.has_legal_move();
                if (has != (ml.size > 0))
                    PROP_FAIL(where(v, seed, turn) + ": has_legal_move disagrees with generate");
                if (ml.size == 0) {
                    g.play_pass();
                    continue;
                }
                const Move& m = pick(ml, rng);
                const Turn t = g.to_turn(m);
                // JSON and notation round trips of the turn played.
                auto back = turn_from_json(to_json(t));
                if (!back || !(*back == t))
                    PROP_FAIL(where(v, seed, turn) + ": JSON round trip of " + to_json(t).dump());
                const std::string text = turn_to_notation(t, v.size);
                auto parsed = turn_from_notation(text, v.size);
                if (!parsed || !(*parsed == t))
                    PROP_FAIL(where(v, seed, turn) + ": notation round trip of " + text);
                g.play(m);
            }
            if (!failed) {
                if (auto f = invariant_failure(g); !f.empty())
                    PROP_FAIL(where(v, seed, -1) + ": " + f);
            }
            ++reasons[int(g.end_reason())];
        }
    }
    CHECK(!failed);
    MESSAGE("games: " << games << ", positions: " << positions
                      << ", ended by trunks/herd/quiet: " << reasons[int(EndReason::Trunks)] << "/"
                      << reasons[int(EndReason::Herd)] << "/" << reasons[int(EndReason::Quiet)]);
    CHECK(positions > (kSlow ? 5000 : 100000));
    // The random games reach every kind of end the rules have.
    CHECK(reasons[int(EndReason::Trunks)] > 0);
    CHECK(reasons[int(EndReason::Herd)] > 0);
    CHECK(reasons[int(EndReason::Quiet)] > 0);
}

TEST_CASE(
    "property: every generated move is accepted by apply_turn and gives the same state as play()") {
    long long checked = 0;
    bool failed = false;
    for (const Variant& v : kVariants) {
        const int n_games = scaled(v.size <= 7 ? 8 : 3);
        for (int k = 0; k < n_games && !failed; ++k) {
            const std::uint64_t seed = 7777ULL * std::uint64_t(k + 1) + std::uint64_t(v.size);
            Rng rng(seed);
            Game g = started(v, rng);
            MoveList ml;
            for (int turn = 0; !g.over() && turn < 200 && !failed; ++turn) {
                g.generate(ml);
                if (ml.size == 0) {
                    // No elephant move: the null elephant is the turn, and nothing else is.
                    Game a = g;
                    if (auto e = a.apply_turn(Turn{}))
                        PROP_FAIL(where(v, seed, turn) + ": pass refused: " + e->message);
                    Game b = g;
                    b.play_pass();
                    if (auto d = state_diff(a, b); !d.empty())
                        PROP_FAIL(where(v, seed, turn) + ": pass differs: " + d);
                    g.play_pass();
                    continue;
                }
                std::set<std::string> seen;
                for (const Move& m : ml) {
                    if (turn % kStride != 0) break;
                    const Turn t = g.to_turn(m);
                    if (!seen.insert(canonical(*t.elephant)).second)
                        PROP_FAIL(where(v, seed, turn) +
                                  ": generated twice: " + canonical(*t.elephant));
                    Game a = g, b = g;
                    if (auto e = a.apply_turn(t)) {
                        PROP_FAIL(where(v, seed, turn) + ": generated move " +
                                  turn_to_notation(t, v.size) + " refused: " + e->message);
                        break;
                    }
                    b.play(m);
                    if (auto d = state_diff(a, b); !d.empty()) {
                        PROP_FAIL(where(v, seed, turn) + ": apply_turn and play differ after " +
                                  turn_to_notation(t, v.size) + ": " + d);
                        break;
                    }
                    ++checked;
                }
                // A null elephant is refused while moves exist.
                Game a = g;
                auto e = a.apply_turn(Turn{});
                if (!e || e->code != ErrorCode::ElephantRequired)
                    PROP_FAIL(where(v, seed, turn) + ": pass accepted although moves exist");
                g.play(pick(ml, rng));
            }
        }
    }
    CHECK(!failed);
    MESSAGE("generated moves checked: " << checked);
    CHECK(checked > (kSlow ? 10000 : 500000));
}

namespace {

Cell random_near(Cell c, Rng& rng) {
    const Dir d = Dir(rng.below(4));
    return step_cell(c, d, 1 + int(rng.below(2)));
}

// One random change of a legal move: a path cell, a dropped or added step, the facing, the start.
ElephantMove mutate(ElephantMove m, int size, Rng& rng) {
    const int len = int(m.path.size());
    if (len == 0) {  // only adding a step makes sense
        m.path.push_back(random_near(m.from, rng));
        return m;
    }
    const int kind = int(rng.below(6));
    switch (kind) {
        case 0: {  // change a path cell
            const int i = int(rng.below(std::uint32_t(len)));
            if (rng.below(4) == 0)
                m.path[i] = {int(rng.below(std::uint32_t(size + 4))) - 1,
                             int(rng.below(std::uint32_t(size + 4))) - 1};
            else
                m.path[i] = random_near(m.path[i], rng);
            break;
        }
        case 1:  // drop a step
            m.path.erase(m.path.begin() + rng.below(std::uint32_t(len)));
            break;
        case 2: {  // change the facing, or add or drop it
            const int f = int(rng.below(5));
            m.facing = f == 4 ? std::nullopt : std::optional<Dir>(Dir(f));
            break;
        }
        case 3:  // add a step at the end
            m.path.push_back(random_near(m.path.back(), rng));
            break;
        case 4: {  // add a step in the middle
            const int i = int(rng.below(std::uint32_t(len + 1)));
            const Cell base = i == 0 ? m.from : m.path[i - 1];
            m.path.insert(m.path.begin() + i, random_near(base, rng));
            break;
        }
        default:  // move the start
            m.from = random_near(m.from, rng);
            break;
    }
    return m;
}

}  // namespace

TEST_CASE("property: mutated moves are accepted exactly when they are in the generated list") {
    long long tried = 0, accepted = 0;
    bool failed = false;
    for (const Variant& v : kVariants) {
        const int n_games = scaled(v.size <= 7 ? 60 : 20);
        for (int k = 0; k < n_games && !failed; ++k) {
            const std::uint64_t seed =
                4242ULL * std::uint64_t(k + 3) + std::uint64_t(v.size * 7 + v.burnt);
            Rng rng(seed);
            Game g = started(v, rng);
            MoveList ml;
            for (int turn = 0; !g.over() && turn < 300 && !failed; ++turn) {
                g.generate(ml);
                if (ml.size == 0) {
                    g.play_pass();
                    continue;
                }
                if (turn % (kSlow ? 6 : 3) == 0) {
                    // Keyed by the move itself; the canonical JSON of a match is compared below.
                    std::map<ElephantMove, int, MoveLess> legal;
                    for (int i = 0; i < ml.size; ++i) legal[g.to_elephant_move(ml[i])] = i;
                    for (int r = 0; r < 12 && !failed; ++r) {
                        ElephantMove m =
                            g.to_elephant_move(ml[int(rng.below(std::uint32_t(ml.size)))]);
                        m = mutate(m, v.size, rng);
                        if (rng.below(3) == 0) m = mutate(m, v.size, rng);
                        const Turn t{m, std::nullopt, {}};
                        auto it = legal.find(m);
                        Game a = g;
                        auto e = a.apply_turn(t);
                        ++tried;
                        if (!e != (it != legal.end())) {
                            PROP_FAIL(where(v, seed, turn) + ": " + canonical(m) +
                                      (e ? " refused (" + e->message + ")" : " accepted") +
                                      " but it is" + (it != legal.end() ? "" : " not") +
                                      " generated; state " + state_to_json(g).dump());
                        } else if (!e) {
                            ++accepted;
                            if (canonical(m) != canonical(g.to_elephant_move(ml[it->second])))
                                PROP_FAIL(where(v, seed, turn) + ": canonical JSON differs");
                            Game b = g;
                            b.play(ml[it->second]);
                            if (auto d = state_diff(a, b); !d.empty())
                                PROP_FAIL(where(v, seed, turn) + ": " + canonical(m) +
                                          " differs from play(): " + d);
                        } else if (auto d = state_diff(a, g); !d.empty()) {
                            PROP_FAIL(where(v, seed, turn) + ": refused " + canonical(m) +
                                      " changed the game: " + d);
                        }
                    }
                }
                g.play(pick(ml, rng));
            }
        }
    }
    CHECK(!failed);
    MESSAGE("mutations tried: " << tried << ", of which legal: " << accepted);
    CHECK(tried > (kSlow ? 1000 : 50000));
    CHECK(accepted > tried / 50);  // mutations do land on other legal moves too
}

TEST_CASE("property: exhaustive search of 1-3 step paths accepts exactly the generated moves") {
    // Every path of 1 to 3 steps of length 1 or 2 in any direction (off the board too), with and
    // without a facing, is offered to apply_turn; the accepted set must equal the generated one.
    long long positions = 0, offered = 0;
    bool failed = false;
    const Variant small[] = {{5, 3, 3, 20}, {6, 2, 2, 20}, {7, 5, 3, 40}};
    for (const Variant& v : small) {
        const int n_games = scaled(v.size == 7 ? 10 : 16);
        for (int k = 0; k < n_games && !failed; ++k) {
            const std::uint64_t seed = 99ULL * std::uint64_t(k + 1) + std::uint64_t(v.size);
            Rng rng(seed);
            Game g = started(v, rng);
            MoveList ml;
            for (int turn = 0; !g.over() && turn < 120 && !failed; ++turn) {
                g.generate(ml);
                if (turn % 6 == 0) {
                    ++positions;
                    std::set<std::string> generated, found;
                    for (const Move& m : ml) generated.insert(canonical(g.to_elephant_move(m)));
                    for (const ElephantInfo& e : g.elephants()) {
                        if (e.side != g.to_move()) continue;
                        ElephantMove m{e.cell, {}, std::nullopt};
                        auto walk = [&](auto& self, Cell cur) -> void {
                            for (int d = 0; d < 4; ++d)
                                for (int k2 = 1; k2 <= 2; ++k2) {
                                    m.path.push_back(step_cell(cur, Dir(d), k2));
                                    for (int f = -1; f <= 0; ++f) {
                                        m.facing =
                                            f < 0 ? std::nullopt : std::optional<Dir>(Dir::N);
                                        Game a = g;
                                        ++offered;
                                        if (!a.apply_turn(Turn{m, std::nullopt, {}})) {
                                            if (!m.facing) {
                                                found.insert(canonical(m));
                                            } else {
                                                for (int nf = 0; nf < 4; ++nf) {
                                                    m.facing = Dir(nf);
                                                    found.insert(canonical(m));
                                                }
                                            }
                                        }
                                    }
                                    if (m.path.size() < 3) self(self, m.path.back());
                                    m.path.pop_back();
                                }
                        };
                        walk(walk, e.cell);
                    }
                    if (found != generated) {
                        std::vector<std::string> only_found, only_gen;
                        std::set_difference(found.begin(), found.end(), generated.begin(),
                                            generated.end(), std::back_inserter(only_found));
                        std::set_difference(generated.begin(), generated.end(), found.begin(),
                                            found.end(), std::back_inserter(only_gen));
                        PROP_FAIL(where(v, seed, turn) + ": accepted but not generated: " +
                                  (only_found.empty() ? "-" : only_found[0]) +
                                  "; generated but not accepted: " +
                                  (only_gen.empty() ? "-" : only_gen[0]) + "; state " +
                                  state_to_json(g).dump());
                    }
                }
                if (ml.size == 0)
                    g.play_pass();
                else
                    g.play(pick(ml, rng));
            }
        }
    }
    CHECK(!failed);
    MESSAGE("exhaustive: positions " << positions << ", paths offered " << offered);
    CHECK(positions > (kSlow ? 20 : 200));
}

// ---------------------------------------------------------------- full turns against a model

namespace {

// The ring in clockwise order from SW: up the west edge, east along the north edge, down the east
// edge, west along the south edge (spec §4.3: SW -> NW -> NE -> SE -> SW). Written here without
// looking at the engine's ring arithmetic.
std::vector<Cell> ring_cw(int n) {
    std::vector<Cell> r;
    for (int y = 0; y <= n + 1; ++y) r.push_back({0, y});
    for (int x = 1; x <= n + 1; ++x) r.push_back({x, n + 1});
    for (int y = n; y >= 0; --y) r.push_back({n + 1, y});
    for (int x = n; x >= 1; --x) r.push_back({x, 0});
    return r;
}

struct Prediction {
    std::optional<ErrorCode> error;
    std::vector<GuardianInfo> guardians;
    std::vector<ElephantInfo> elephants;
    std::vector<Cell> burnt;
    SideStats stats[2];
    int quiet = 0;
    bool over = false;
    EndReason reason = EndReason::None;
    int captures = 0;
};

// Predicts apply_turn(t) on g: the elephant part by the engine's own elephant-only turn (checked
// by the properties above), everything after it by the model of §4.2, §4.3, §4.4 and §5.
Prediction predict(const Game& g, const Turn& t) {
    Prediction p;
    const Variant& v = g.variant();
    const Side me = g.to_move();
    Game after = g;  // the state after the elephant part
    if (t.elephant) {
        if (!g.has_legal_move()) {
            p.error = ErrorCode::NoLegalMove;
            return p;
        }
        if (auto e = after.apply_turn(Turn{t.elephant, std::nullopt, {}})) {
            p.error = e->code;
            return p;
        }
    } else if (g.has_legal_move()) {
        p.error = ErrorCode::ElephantRequired;
        return p;
    }
    bool progress =
        after.stats(me).trunks != g.stats(me).trunks || after.stats(me).saved != g.stats(me).saved;
    bool over = after.over() && after.end_reason() != EndReason::Quiet;
    p.reason = over ? after.end_reason() : EndReason::None;
    if (over && (t.burnt || !t.guardians.empty())) {
        p.error = ErrorCode::AfterEnd;
        return p;
    }
    p.stats[0] = after.stats(Side::Silver);
    p.stats[1] = after.stats(Side::Bronze);
    p.burnt = after.burnt_cells();
    p.elephants = after.elephants();
    p.guardians = after.guardians();
    SideStats& mine = p.stats[idx(me)];
    if (t.burnt) {
        const Cell c = *t.burnt;
        if (mine.burnt_left == 0) {
            p.error = ErrorCode::NoBurntLeft;
            return p;
        }
        bool taken = !v.in_field(c) || after.has_trunk(c) || after.has_burnt(c);
        for (const ElephantInfo& e : p.elephants) taken = taken || e.cell == c;
        if (taken) {
            p.error = ErrorCode::BurntCell;
            return p;
        }
        --mine.burnt_left;
        p.burnt.push_back(c);
        std::sort(p.burnt.begin(), p.burnt.end(),
                  [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    }
    const std::vector<Cell> ring = ring_cw(v.size);
    auto ring_pos = [&](Cell c) {
        auto it = std::find(ring.begin(), ring.end(), c);
        return it == ring.end() ? -1 : int(it - ring.begin());
    };
    std::vector<Cell> moved_to;
    for (const GuardianMove& gm : t.guardians) {
        if (over) {
            p.error = ErrorCode::AfterEnd;
            return p;
        }
        int gi = -1;
        for (int i = 0; i < int(p.guardians.size()); ++i)
            if (p.guardians[i].side == me && p.guardians[i].cell == gm.from) gi = i;
        if (gi < 0) {
            p.error = ErrorCode::GuardianNotOwn;
            return p;
        }
        if (std::find(moved_to.begin(), moved_to.end(), gm.from) != moved_to.end()) {
            p.error = ErrorCode::GuardianTwice;
            return p;
        }
        if (gm.steps < 1) {
            p.error = ErrorCode::GuardianSteps;
            return p;
        }
        if (gm.steps > mine.trunks) {
            p.error = ErrorCode::NotEnoughTrunks;
            return p;
        }
        const int len = int(ring.size());
        int pos = ring_pos(gm.from);
        for (std::int64_t k = 0; k < gm.steps; ++k) {
            pos = (pos + (gm.dir == Rot::Cw ? 1 : len - 1)) % len;
            for (const GuardianInfo& o : p.guardians)
                if (o.cell == ring[pos]) {
                    p.error = ErrorCode::GuardianBlocked;
                    return p;
                }
        }
        mine.trunks -= int(gm.steps);
        mine.spent += int(gm.steps);
        p.guardians[gi].cell = ring[pos];
        moved_to.push_back(ring[pos]);
        // Captures on every crossing after this entry.
        auto watched_col = [&](int x) {
            for (const GuardianInfo& o : p.guardians)
                if (o.cell.x == x && (o.cell.y == 0 || o.cell.y == v.size + 1)) return true;
            return false;
        };
        auto watched_row = [&](int y) {
            for (const GuardianInfo& o : p.guardians)
                if (o.cell.y == y && (o.cell.x == 0 || o.cell.x == v.size + 1)) return true;
            return false;
        };
        std::vector<ElephantInfo> kept;
        int on_field[2] = {0, 0};
        for (const ElephantInfo& e : p.elephants) {
            if (watched_col(e.cell.x) && watched_row(e.cell.y)) {
                ++p.stats[idx(~e.side)].captured;
                ++p.captures;
                progress = true;
            } else {
                kept.push_back(e);
                ++on_field[idx(e.side)];
            }
        }
        p.elephants = kept;
        if (on_field[0] == 0 || on_field[1] == 0) {
            over = true;
            p.reason = EndReason::Herd;
        }
    }
    p.quiet = g.quiet_turns();
    if (!over) {
        p.quiet = progress ? 0 : g.quiet_turns() + 1;
        if (p.quiet >= v.quiet) {
            over = true;
            p.reason = EndReason::Quiet;
        }
    }
    p.over = over;
    return p;
}

std::string compare(const Game& g, const Prediction& p) {
    const auto gs = g.guardians();
    if (gs.size() != p.guardians.size()) return "guardian count";
    for (size_t i = 0; i < gs.size(); ++i)
        if (gs[i].cell != p.guardians[i].cell || gs[i].side != p.guardians[i].side)
            return "guardian cells";
    const auto es = g.elephants();
    if (es.size() != p.elephants.size()) return "elephants on the field";
    for (size_t i = 0; i < es.size(); ++i)
        if (es[i].cell != p.elephants[i].cell || es[i].facing != p.elephants[i].facing)
            return "elephant cells";
    if (g.burnt_cells() != p.burnt) return "burnt cells";
    for (Side s : {Side::Silver, Side::Bronze}) {
        const SideStats &a = g.stats(s), &b = p.stats[idx(s)];
        if (a.trunks != b.trunks || a.spent != b.spent || a.burnt_left != b.burnt_left ||
            a.saved != b.saved || a.captured != b.captured)
            return std::string(side_name(s)) + " counters";
    }
    if (g.over() != p.over || g.end_reason() != p.reason) return "end of game";
    if (g.quiet_turns() != p.quiet) return "quiet turns";
    return {};
}

// A random candidate turn: usually a generated elephant move (sometimes none or a wrong one), often
// a burnt trunk, often one or two guardian moves, mostly of the mover's own guardians with a
// plausible cost, sometimes anything at all.
Turn random_turn(const Game& g, const MoveList& ml, Rng& rng) {
    const Variant& v = g.variant();
    const Side me = g.to_move();
    Turn t;
    if (ml.size > 0 && rng.below(20) != 0) {
        t.elephant = g.to_elephant_move(pick(ml, rng));
        if (rng.below(15) == 0) t.elephant = mutate(*t.elephant, v.size, rng);
    } else if (ml.size == 0 && rng.below(10) == 0) {
        t.elephant = ElephantMove{{1, 1}, {{1, 2}}, Dir::N};
    }
    if (rng.below(3) == 0) {
        const int span = v.size + 2;
        t.burnt = Cell{int(rng.below(std::uint32_t(span))), int(rng.below(std::uint32_t(span)))};
        if (rng.below(2) == 0 && !g.trunk_cells().empty()) {
            // Aim at a free cell near an elephant half of the time.
            const auto es = g.elephants();
            t.burnt = random_near(es[rng.below(std::uint32_t(es.size()))].cell, rng);
        }
    }
    const int entries = rng.below(2) == 0 ? 0 : 1 + int(rng.below(rng.below(8) == 0 ? 3 : 2));
    std::vector<Cell> own;
    for (const GuardianInfo& gi : g.guardians())
        if (gi.side == me || rng.below(12) == 0) own.push_back(gi.cell);
    const int budget = g.stats(me).trunks + 1;
    const auto ring = ring_cw(v.size);
    for (int i = 0; i < entries; ++i) {
        GuardianMove gm;
        gm.from = rng.below(10) == 0 ? ring[rng.below(std::uint32_t(ring.size()))]
                                     : own[rng.below(std::uint32_t(own.size()))];
        gm.dir = rng.below(2) ? Rot::Cw : Rot::Ccw;
        gm.steps = 1 + int(rng.below(std::uint32_t(std::max(1, std::min(budget, v.size)))));
        if (rng.below(40) == 0) gm.steps = -int(rng.below(3));
        t.guardians.push_back(gm);
    }
    return t;
}

}  // namespace

TEST_CASE("property: random turns with burnt trunks and guardian moves follow the model") {
    long long turns = 0, accepted = 0, with_burnt = 0, with_guardians = 0, captures = 0,
              two_guardians = 0;
    std::set<std::string> codes;
    bool failed = false;
    for (const Variant& v : kVariants) {
        const int n_games = scaled(v.size <= 7 ? 100 : 35);
        for (int k = 0; k < n_games && !failed; ++k) {
            const std::uint64_t seed =
                31337ULL * std::uint64_t(k + 1) + std::uint64_t(v.size * 3 + v.quiet);
            Rng rng(seed);
            Game g = started(v, rng);
            MoveList ml;
            for (int turn = 0; !g.over() && turn < 600 && !failed; ++turn) {
                g.generate(ml);
                const Turn t = random_turn(g, ml, rng);
                const Prediction p = predict(g, t);
                const std::string before = state_to_json(g).dump();
                const Side me = g.to_move();
                Game a = g;
                auto e = a.apply_turn(t);
                ++turns;
                // Round trips of the candidate turn, legal or not.
                // (steps < 1 has no canonical JSON: the format needs an integer >= 1.)
                bool steps_ok = true;
                for (const GuardianMove& gm : t.guardians) steps_ok = steps_ok && gm.steps >= 1;
                auto back = turn_from_json(to_json(t));
                if (steps_ok && (!back || !(*back == t)))
                    PROP_FAIL(where(v, seed, turn) + ": JSON round trip of " + to_json(t).dump());
                bool on_board = v.on_board(t.burnt.value_or(Cell{0, 0}));
                for (const GuardianMove& gm : t.guardians)
                    on_board = on_board && v.on_board(gm.from) && gm.steps >= 1;
                if (t.elephant) {
                    on_board = on_board && v.on_board(t.elephant->from) &&
                               !t.elephant->path.empty() && t.elephant->path.size() <= 3;
                    for (Cell c : t.elephant->path) on_board = on_board && v.on_board(c);
                }
                if (on_board) {
                    const std::string text = turn_to_notation(t, v.size);
                    auto parsed = turn_from_notation(text, v.size);
                    if (!parsed || !(*parsed == t))
                        PROP_FAIL(where(v, seed, turn) + ": notation round trip of " + text);
                }
                const std::string desc =
                    where(v, seed, turn) + ": " + to_json(t).dump() + " on " + before;
                if (bool(e) != bool(p.error)) {
                    PROP_FAIL(desc + (e ? ": refused (" + e->message + ") but the model accepts it"
                                        : ": accepted but the model expects " +
                                              std::string(error_code_name(*p.error))));
                    break;
                }
                if (e) {
                    codes.insert(std::string(error_code_name(e->code)));
                    if (e->code != *p.error)
                        PROP_FAIL(desc + ": error " + std::string(error_code_name(e->code)) + " (" +
                                  e->message + "), the model expects " +
                                  std::string(error_code_name(*p.error)));
                    if (state_to_json(a).dump() != before)
                        PROP_FAIL(desc + ": a refused turn changed the game");
                    // Move on with a legal turn.
                    if (ml.size == 0)
                        g.play_pass();
                    else
                        g.play(pick(ml, rng));
                    continue;
                }
                ++accepted;
                with_burnt += t.burnt.has_value();
                with_guardians += !t.guardians.empty();
                two_guardians += t.guardians.size() == 2;
                captures += p.captures;
                if (auto d = compare(a, p); !d.empty())
                    PROP_FAIL(desc + ": differs from the model in " + d);
                if (auto f = invariant_failure(a); !f.empty()) PROP_FAIL(desc + ": " + f);
                if (a.turns_played() != g.turns_played() + 1)
                    PROP_FAIL(desc + ": turn not counted");
                if (!a.over() && a.to_move() != ~me)
                    PROP_FAIL(desc + ": the other player is not to move");
                g = a;
            }
        }
    }
    CHECK(!failed);
    MESSAGE("full turns: " << turns << ", accepted " << accepted << " (burnt " << with_burnt
                           << ", guardians " << with_guardians << ", two guardian moves "
                           << two_guardians << ", captures " << captures
                           << "); error codes seen: " << codes.size());
    // The random turns exercise every part of the rules they are meant to.
    CHECK(with_burnt > (kSlow ? 50 : 1000));
    CHECK(with_guardians > (kSlow ? 100 : 2000));
    CHECK(two_guardians > (kSlow ? 10 : 200));
    CHECK(captures > (kSlow ? 10 : 200));
    if (!kSlow)
        for (const char* code : {"elephant_required", "no_legal_move", "no_burnt_left",
                                 "burnt_cell", "guardian_not_own", "guardian_twice",
                                 "guardian_steps", "guardian_blocked", "not_enough_trunks"})
            CHECK_MESSAGE(codes.count(code), code);
}
