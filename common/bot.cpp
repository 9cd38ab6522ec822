// The computer opponent: alpha-beta over whole turns with a static evaluation (see bot.h).
//
// Candidates. At a node, every legal elephant move (each facing) alone, and combined with the
// best guardian "capture plans" it can afford: one or two guardian moves that leave an enemy
// elephant on a crossing (judged before the move, adjusted for the moving elephant). A side
// without an elephant move has the empty turn plus the same plans. At the root the six most
// promising turns are also tried with a burnt trunk on the free cells that block the straight
// road of enemy elephants at most three cells from their goal edge.
//
// Search. Negamax alpha-beta with iterative deepening (whole turns), principal variation
// search, a transposition table (best turn and bound per position; the table's turn and the
// killer are tried before the candidate list is even built), killer moves, and at inner nodes
// only the best 10/16/24 quiet moves (elephant moves that end on a free cell) by a
// cheap ordering (fleeing a threatened elephant, progress toward the goal, facing the goal or a
// trunk, staying off watched lines). Captures, exits and trunk collections are always searched.
// Limits are a depth and a node count per level, never a clock: the answer is a function of
// (position, level, seed) alone. The seed shuffles the order of equally ordered root turns.
//
// Evaluation, in centipoints for the side to move: the score difference; for every elephant
// on the field the 2 points of saving it (3, less the turn it takes) discounted by 10 % per turn
// its straight road to the goal edge needs (trunks a turn each, free cells a third, burnt
// trunks and crossings a detour), cut when the trunks will run out first; small bonuses for
// elephants facing a collectable trunk and for the side to move having one; 8/10 of the best
// capture the side to move could make now, less 4/10 of the opponent's.
#include "bot.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <memory>
#include <string>
#include <vector>

#include "playout.h"

namespace tf {

namespace {

constexpr int kInf = 100'000'000;
constexpr int kWin = 10'000'000;  // a won game is worth this plus the score difference
constexpr int kMaxPly = 24;

// What a level may do: search at most `depth` whole turns ahead and visit at most `nodes`
// positions. The first iteration (depth 1) evaluates every root candidate once, or a seeded
// random sample of `nodes` of them when there are more. Level 1 judges a sample of 8 turns,
// level 2 of 40, level 3 all of them (greedy), level 4 searches 3 turns (its move, the reply,
// its next move), level 5 5 turns within 150,000 positions. Odd depths only above 1: with this
// evaluation a search to an even depth plays no better than one a turn shallower (measured:
// depth 4 against depth 3 scored 50 %, depth 3 against depth 2 70 %). The node caps of levels
// 3 and 4 only bound rare huge positions. See docs/BENCHMARKS.md "Bot strength".
struct Level {
    int depth;
    std::uint64_t nodes;
};
constexpr Level kLevels[kMaxBotLevel + 1] = {{0, 0},      {1, 8},      {1, 40},
                                             {1, 20'000}, {3, 50'000}, {5, 150'000}};
// Quiet moves searched at an inner node, by remaining depth (1, 2, 3 or more).
constexpr int kQuietLimit[4] = {0, 10, 16, 24};

// Evaluation weights, in centipoints.
constexpr int kSaveValue = 200;  // an elephant about to be saved (3 points, less the turn it costs)
constexpr int kReady = 10;       // an elephant facing a trunk it can collect next turn
constexpr int kTempo = 60;       // the side to move can collect a trunk now
// Shares (in tenths) of the best capture available to the side to move, and to the other side.
constexpr int kMyCapture = 8, kTheirCapture = 4;

// ---- Ring geometry: positions run clockwise from SW (spec §4.3), as in the rules library.

struct Ring {
    int n = 0, len = 0;
    explicit Ring(int size) : n(size), len(4 * size + 4) {}
    int index(Cell c) const {
        if (c.x == 0) return c.y;
        if (c.y == n + 1) return n + 1 + c.x;
        if (c.x == n + 1) return 2 * n + 2 + (n + 1 - c.y);
        return 3 * n + 3 + (n + 1 - c.x);
    }
    Cell cell(int pos) const {
        if (pos <= n + 1) return {0, pos};
        if (pos <= 2 * n + 2) return {pos - (n + 1), n + 1};
        if (pos <= 3 * n + 3) return {n + 1, n + 1 - (pos - (2 * n + 2))};
        return {n + 1 - (pos - (3 * n + 3)), 0};
    }
    // The column (1..n) a guardian at `pos` watches, or 0.
    int column(int pos) const {
        const Cell c = cell(pos);
        return (c.y == 0 || c.y == n + 1) && c.x >= 1 && c.x <= n ? c.x : 0;
    }
    // The row (1..n) a guardian at `pos` watches, or 0.
    int row(int pos) const {
        const Cell c = cell(pos);
        return (c.x == 0 || c.x == n + 1) && c.y >= 1 && c.y <= n ? c.y : 0;
    }
};

// The four guardians of a position by ring index, with their owners.
struct Guards {
    int pos[4] = {-1, -1, -1, -1};
    Side owner[4] = {Side::Silver, Side::Silver, Side::Bronze, Side::Bronze};
    int count = 0;

    Guards(const Game& g, const Ring& r) {
        for (int p = 0; p < r.len && count < 4; ++p) {
            const Cell c = r.cell(p);
            if (!(g.flags(sq_of(c)) & kGuard)) continue;
            const auto gi = g.guardian_on(c);
            if (!gi) continue;
            pos[count] = p;
            owner[count] = gi->side;
            ++count;
        }
    }
    // Columns and rows watched (bit x / bit y), leaving out guardian `skip`.
    void lines(const Ring& r, int skip, unsigned& cols, unsigned& rows) const {
        cols = rows = 0;
        for (int i = 0; i < count; ++i) {
            if (i == skip) continue;
            if (int x = r.column(pos[i])) cols |= 1u << x;
            if (int y = r.row(pos[i])) rows |= 1u << y;
        }
    }
    // Steps from guardian i to ring position t turning `dir`, or 0 when another guardian is in
    // the way (or t is where it stands).
    int distance(const Ring& r, int i, int t, Rot dir) const {
        const int a = pos[i];
        const int k = dir == Rot::Cw ? (t - a + r.len) % r.len : (a - t + r.len) % r.len;
        if (k == 0) return 0;
        for (int j = 0; j < count; ++j) {
            if (j == i) continue;
            const int kj =
                dir == Rot::Cw ? (pos[j] - a + r.len) % r.len : (a - pos[j] + r.len) % r.len;
            if (kj >= 1 && kj <= k) return 0;
        }
        return k;
    }
};

// One or two guardian moves of the side to move that capture at least one enemy elephant,
// as judged before the turn's elephant move.
struct Plan {
    struct Step {
        Cell from;
        Rot dir;
        int steps;
    };
    Step step[2];
    int nsteps = 0;
    int cost = 0;      // trunks paid
    int value = 0;     // enemy worth captured minus own worth captured, centipoints
    Sq cells[8] = {};  // every crossing after some step: an elephant ending there is lost
    int ncells = 0;
    Sq own[4] = {};  // own elephants captured (before the elephant move)
    int own_value[4] = {};
    int nown = 0;

    bool covers(Sq s) const {
        for (int i = 0; i < ncells; ++i)
            if (cells[i] == s) return true;
        return false;
    }
};

// 0.9 ^ (t / 3) * 1024, for t in thirds of a turn.
struct DecayTable {
    std::array<int, 256> v{};
    constexpr DecayTable() {
        // 0.9^(1/3) = 0.96549 per third of a turn, in 1/65536ths.
        long long f = 65536;
        for (int t = 0; t < 256; ++t) {
            v[t] = int(f >> 6);
            f = f * 63274 / 65536;
        }
    }
};
constexpr DecayTable kDecay{};

// A candidate turn: an elephant move (or none), a capture plan, a burnt trunk. 20 bytes.
struct Cand {
    Move move;                // valid when has_move
    int key = 0;              // ordering: higher first
    std::uint16_t order = 0;  // generation order: breaks ties, so every sort gives one order
    std::int16_t plan = -1;   // index into the node's plans, or -1
    Sq burnt = 0;             // square of the burnt trunk placed, 0 for none
    bool has_move = false;
    bool quiet = false;  // an elephant move alone that ends on a free cell
};

// Higher key first, then generation order: a total order, so that the result does not depend
// on the sorting algorithm (or the standard library that implements it).
bool before(const Cand& a, const Cand& b) {
    return a.key != b.key ? a.key > b.key : a.order < b.order;
}

bool same_move(const Move& a, const Move& b) {
    return a.from == b.from && a.len == b.len && a.facing == b.facing && a.path[0] == b.path[0] &&
           (a.len < 2 || a.path[1] == b.path[1]) && (a.len < 3 || a.path[2] == b.path[2]);
}

class Searcher {
  public:
    Searcher(const Game& root, const BotOptions& opt)
        : v_(root.variant()),
          ring_(v_.size),
          rng_(opt.seed * 0x9e3779b97f4a7c15ULL + 17),
          budget_(opt.nodes ? opt.nodes : kLevels[opt.level].nodes),
          max_depth_(opt.depth > 0 ? std::min(opt.depth, kLevels[opt.level].depth)
                                   : kLevels[opt.level].depth) {
        plies_.reserve(kMaxPly + 2);
    }

    Turn choose(const Game& g, BotInfo& info);
    int evaluate(const Game& g) const;
    // Root turns whose resulting position is (keep: is not) one of these are not considered
    // (puzzles: the best turn other than a given one; analysis: one turn's score). Not owned.
    void filter(const std::vector<Game>* positions, bool keep) {
        filter_ = positions;
        keep_ = keep;
    }

  private:
    struct Ply {
        std::unique_ptr<MoveList> moves = std::make_unique<MoveList>();
        std::vector<Cand> cands;
        size_t count = 0;
        std::vector<Plan> plans;
        Move killer{};
        bool has_killer = false;
    };

    // A transposition table entry: the position's hash, its value from a search of `depth`
    // turns (exact, or a bound), and the generation order of the best candidate found there.
    struct Entry {
        std::uint64_t key = 0;
        int value = 0;
        std::int8_t depth = -1;
        u8 bound = 0;                 // kExact, kLower, kUpper
        std::uint16_t best = 0xffff;  // generation order of the best candidate, if known
        bool plain = false;           // the best is the elephant move `move` alone
        Move move{};
    };
    enum : u8 { kExact = 1, kLower = 2, kUpper = 3 };

    int search(const Game& g, int depth, int alpha, int beta, int ply);
    std::uint64_t hash(const Game& g) const;
    int terminal(const Game& g, Side persp) const;
    // Fills p.cands from p.moves (generated by the caller); the first p.count of them, in search
    // order, are the ones to search.
    // `first`, when >= 0, is the generation order of a candidate to search first (the table's).
    void candidates(const Game& g, Ply& p, bool root, int quiet_limit, int first = -1);
    void capture_plans(const Game& g, const Guards& gs, Side side, int budget,
                       std::vector<Plan>& out, bool pairs) const;
    int best_capture(const Game& g, const Guards& gs, Side side) const;
    int worth(const Game& g, int id) const;  // 200 (captured) + what it still can bring
    int potential(const Game& g, int id) const;
    bool make(const Game& g, const Cand& c, const Ply& p, Game& child) const;
    Turn to_turn(const Game& g, const Cand& c, const Ply& p) const;
    void add_burnt(const Game& g, Ply& p);
    Ply& ply(int i) {
        while (int(plies_.size()) <= i) plies_.emplace_back();
        return plies_[i];
    }

    Variant v_;
    Ring ring_;
    Rng rng_;
    std::uint64_t budget_;
    int max_depth_;
    std::uint64_t nodes_ = 0;
    bool limited_ = false;  // the budget applies (after the first iteration)
    bool aborted_ = false;
    std::vector<Ply> plies_;  // reserved up front: references to a ply stay valid
    std::vector<Entry> table_;
    std::uint64_t mask_ = 0;
    mutable std::vector<Plan> scratch_;
    const std::vector<Game>* filter_ = nullptr;
    bool keep_ = false;
};

// ---- Evaluation

int Searcher::potential(const Game& g, int id) const {
    const int n = v_.size;
    const Side s = Game::side_of(id);
    const Sq sq = g.elephant_sq(id);
    const Dir goal = goal_dir(s);
    const Cell c = cell_of(sq);
    const int d = s == Side::Silver ? n - c.y : n - c.x;
    // Thirds of a turn to walk straight to the goal edge and off it: a free cell is one step
    // (three a turn), a trunk a whole turn (collecting ends the move), a burnt trunk or a
    // crossing a detour of about two turns; facing away first costs a turn to turn round.
    int t = 1;
    Sq q = sq;
    const int off = kOffset[int(goal)];
    for (int i = 0; i < d; ++i) {
        q = Sq(q + off);
        const u8 fl = g.flags(q);
        t += (fl & (kBurnt | kCross)) ? 6 : (fl & kTrunk) ? 3 : 1;
    }
    const Dir f = g.elephant_facing(id);
    if (f != goal) t += 3;
    int save = kSaveValue * kDecay.v[std::min(t, 255)] / 1024;
    // The game ends when the trunks run out: each side gets about half of them as turns.
    const int horizon = 3 * ((g.trunks_on_field() + 1) / 2) + 3;
    if (t > horizon + 6)
        save = 0;
    else if (t > horizon)
        save = save * (horizon + 6 - t) / 6;
    int v = save;
    const u8 ahead = g.flags(Sq(sq + kOffset[int(f)]));
    if ((ahead & (kTrunk | kCross)) == kTrunk) v += kReady;
    return v;
}

int Searcher::worth(const Game& g, int id) const {
    return 200 + potential(g, id);
}

// Capture plans of `side` that pay at most `budget` trunks. One guardian move captures when it
// starts watching the row (column) of an enemy elephant whose column (row) another guardian
// watches; with `pairs`, two moves that watch both lines of an enemy elephant are tried too.
void Searcher::capture_plans(const Game& g, const Guards& gs, Side side, int budget,
                             std::vector<Plan>& out, bool pairs) const {
    out.clear();
    if (budget <= 0) return;
    const int n = v_.size;
    const Ring& r = ring_;
    int mine[2], nmine = 0;
    for (int i = 0; i < gs.count; ++i)
        if (gs.owner[i] == side && nmine < 2) mine[nmine++] = i;
    const int base = side == Side::Silver ? kMaxElephants : 0;  // enemy ids
    // Applies the plan's steps to a copy of the guardians and records what they capture.
    auto simulate = [&](Plan& p, const int* gidx, const int* target) {
        Guards cur = gs;
        int captured[8], ncap = 0;
        p.value = -100 * p.cost;
        for (int s = 0; s < p.nsteps; ++s) {
            cur.pos[gidx[s]] = target[s];
            unsigned cols, rows;
            cur.lines(r, -1, cols, rows);
            for (unsigned cs = cols; cs; cs &= cs - 1) {
                const int x = std::countr_zero(cs);
                for (unsigned rs = rows; rs; rs &= rs - 1) {
                    const int y = std::countr_zero(rs);
                    const Sq q = sq_of({x, y});
                    if (!p.covers(q) && p.ncells < 8) p.cells[p.ncells++] = q;
                    const int id = g.elephant_id(q);
                    if (id < 0) continue;
                    bool seen = false;
                    for (int k = 0; k < ncap; ++k) seen |= captured[k] == id;
                    if (seen || ncap == 8) continue;
                    captured[ncap++] = id;
                    const int w = worth(g, id);
                    if (Game::side_of(id) == side) {
                        p.value -= w;
                        if (p.nown < 4) {
                            p.own[p.nown] = q;
                            p.own_value[p.nown++] = w;
                        }
                    } else {
                        p.value += w;
                    }
                }
            }
        }
    };
    auto add = [&](Plan& p) {
        for (const Plan& q : out)
            if (q.nsteps == p.nsteps && q.step[0].from == p.step[0].from &&
                q.step[0].dir == p.step[0].dir && q.step[0].steps == p.step[0].steps &&
                (p.nsteps == 1 ||
                 (q.step[1].from == p.step[1].from && q.step[1].dir == p.step[1].dir &&
                  q.step[1].steps == p.step[1].steps)))
                return;
        out.push_back(p);
    };
    for (int id = base; id < base + v_.elephants; ++id) {
        const Sq sq = g.elephant_sq(id);
        if (!sq) continue;
        const Cell e = cell_of(sq);
        const int targets_row[2] = {r.index({0, e.y}), r.index({n + 1, e.y})};
        const int targets_col[2] = {r.index({e.x, 0}), r.index({e.x, n + 1})};
        bool single = false;
        for (int a = 0; a < nmine; ++a) {
            const int gi = mine[a];
            unsigned cols, rows;
            gs.lines(r, gi, cols, rows);
            for (int kind = 0; kind < 2; ++kind) {
                // kind 0: the column is watched, move to watch the row; kind 1: the reverse.
                if (kind == 0 ? !(cols >> e.x & 1) : !(rows >> e.y & 1)) continue;
                single = true;
                const int* ts = kind == 0 ? targets_row : targets_col;
                for (int ti = 0; ti < 2; ++ti)
                    for (Rot dir : {Rot::Cw, Rot::Ccw}) {
                        const int k = gs.distance(r, gi, ts[ti], dir);
                        if (k == 0 || k > budget) continue;
                        Plan p;
                        p.nsteps = 1;
                        p.step[0] = {r.cell(gs.pos[gi]), dir, k};
                        p.cost = k;
                        const int gidx[1] = {gi}, tgt[1] = {ts[ti]};
                        simulate(p, gidx, tgt);
                        add(p);
                    }
            }
        }
        if (!pairs || single || nmine < 2) continue;
        // Two moves: one guardian to the elephant's column, the other to its row, either first.
        for (int first = 0; first < 2; ++first)
            for (int kind = 0; kind < 2; ++kind) {
                const int g1 = mine[first], g2 = mine[1 - first];
                const int* t1s = kind == 0 ? targets_col : targets_row;
                const int* t2s = kind == 0 ? targets_row : targets_col;
                for (int i1 = 0; i1 < 2; ++i1)
                    for (Rot d1 : {Rot::Cw, Rot::Ccw}) {
                        const int k1 = gs.distance(r, g1, t1s[i1], d1);
                        if (k1 == 0 || k1 >= budget) continue;
                        Guards mid = gs;
                        mid.pos[g1] = t1s[i1];
                        for (int i2 = 0; i2 < 2; ++i2)
                            for (Rot d2 : {Rot::Cw, Rot::Ccw}) {
                                const int k2 = mid.distance(r, g2, t2s[i2], d2);
                                if (k2 == 0 || k1 + k2 > budget) continue;
                                Plan p;
                                p.nsteps = 2;
                                p.step[0] = {r.cell(gs.pos[g1]), d1, k1};
                                p.step[1] = {r.cell(gs.pos[g2]), d2, k2};
                                p.cost = k1 + k2;
                                const int gidx[2] = {g1, g2}, tgt[2] = {t1s[i1], t2s[i2]};
                                simulate(p, gidx, tgt);
                                add(p);
                            }
                    }
            }
    }
}

// The best value of a one-move capture plan `side` could play now (0 when none pays).
int Searcher::best_capture(const Game& g, const Guards& gs, Side side) const {
    capture_plans(g, gs, side, g.stats(side).trunks, scratch_, false);
    int best = 0;
    for (const Plan& p : scratch_) best = std::max(best, p.value);
    return best;
}

int Searcher::terminal(const Game& g, Side persp) const {
    const int diff = g.score(persp) - g.score(~persp);
    const auto w = g.winner();
    if (!w) return 0;
    return (*w == persp ? kWin : -kWin) + 100 * diff;
}

int Searcher::evaluate(const Game& g) const {
    const Side me = g.to_move();
    int sum[2] = {100 * g.score(Side::Silver), 100 * g.score(Side::Bronze)};
    for (int id = 0; id < 2 * kMaxElephants; ++id)
        if (g.elephant_sq(id)) sum[idx(Game::side_of(id))] += potential(g, id);
    const Guards gs(g, ring_);
    const int mine = best_capture(g, gs, me), theirs = best_capture(g, gs, ~me);
    int tempo = 0;
    const int base = me == Side::Silver ? 0 : kMaxElephants;
    for (int id = base; id < base + v_.elephants && !tempo; ++id) {
        const Sq sq = g.elephant_sq(id);
        if (!sq) continue;
        const u8 ahead = g.flags(Sq(sq + kOffset[int(g.elephant_facing(id))]));
        if ((ahead & (kTrunk | kCross)) == kTrunk) tempo = kTempo;
    }
    return sum[idx(me)] - sum[idx(~me)] + tempo + mine * kMyCapture / 10 -
           theirs * kTheirCapture / 10;
}

// ---- Candidates

void Searcher::candidates(const Game& g, Ply& p, bool root, int quiet_limit, int first) {
    const Side me = g.to_move();
    p.cands.clear();
    const Guards gs(g, ring_);
    const int trunks = g.stats(me).trunks;
    capture_plans(g, gs, me, trunks + 1, p.plans, true);
    std::stable_sort(p.plans.begin(), p.plans.end(),
                     [](const Plan& a, const Plan& b) { return a.value > b.value; });
    const int n = v_.size;
    const Dir goal = goal_dir(me);
    auto dist = [&](Cell c) { return me == Side::Silver ? n - c.y : n - c.x; };
    auto add_plans = [&](const Cand& base, int own_trunks, Sq from, Sq to, int mover_worth) {
        int added = 0;
        for (int i = 0; i < int(p.plans.size()) && added < 2; ++i) {
            const Plan& pl = p.plans[i];
            if (pl.cost > own_trunks) continue;
            int value = pl.value;
            for (int k = 0; k < pl.nown; ++k)
                if (pl.own[k] == from) value += pl.own_value[k];  // it walked away
            if (to && pl.covers(to)) value -= mover_worth;
            if (value <= 0) continue;
            Cand c = base;
            c.plan = std::int16_t(i);
            c.quiet = false;
            c.key = 4'000'000 + value;
            p.cands.push_back(c);
            ++added;
        }
    };
    // Own elephants the opponent could capture with one guardian move: moving them comes first
    // among the quiet moves.
    capture_plans(g, gs, ~me, g.stats(~me).trunks, scratch_, false);
    Sq threatened[kMaxElephants];
    int nthreat = 0;
    for (const Plan& pl : scratch_) {
        if (pl.value <= 0) continue;
        for (int i = 0; i < pl.ncells; ++i) {
            const int id = g.elephant_id(pl.cells[i]);
            if (id < 0 || Game::side_of(id) != me || nthreat == kMaxElephants) continue;
            bool dup = false;
            for (int k = 0; k < nthreat; ++k) dup |= threatened[k] == pl.cells[i];
            if (!dup) threatened[nthreat++] = pl.cells[i];
        }
    }
    unsigned cols, rows;
    gs.lines(ring_, -1, cols, rows);
    const int own_on_field = g.elephants_on_field(me);
    int mover_worth[2 * kMaxElephants];
    for (int& w : mover_worth) w = -1;
    for (const Move& m : *p.moves) {
        Cand c;
        c.move = m;
        c.has_move = true;
        const Sq to = m.path[m.len - 1];
        const u8 fl = g.flags(to);
        const bool exit = !(fl & kField);
        const bool trunk = !exit && (fl & kTrunk);
        const Cell from = cell_of(m.from);
        bool fleeing = false;
        for (int k = 0; k < nthreat; ++k) fleeing |= threatened[k] == m.from;
        if (exit) {
            c.key = 3'000'000;
        } else {
            const Cell dest = cell_of(to);
            int k = (trunk ? 2'000'000 : 1'000'000) + 100 * (dist(from) - dist(dest));
            if (!trunk) {
                c.quiet = true;
                const Dir f = Dir(m.facing);
                if (f == goal) k += 150;
                const u8 ahead = g.flags(Sq(to + kOffset[int(f)]));
                if ((ahead & (kTrunk | kCross)) == kTrunk) k += 100;
            }
            // A cell on a watched line can become a crossing with one guardian move.
            if ((cols >> dest.x & 1) || (rows >> dest.y & 1)) k -= 80;
            if (fleeing) k += 600'000;
            c.key = k;
        }
        p.cands.push_back(c);
        // The game ends with this move: nothing may follow it.
        if ((trunk && g.trunks_on_field() == 1) || (exit && own_on_field == 1)) continue;
        if (!p.plans.empty()) {
            const int id = g.elephant_id(m.from);
            if (mover_worth[id] < 0) mover_worth[id] = worth(g, id);
            add_plans(c, trunks + (trunk ? 1 : 0), m.from, exit ? 0 : to, mover_worth[id]);
        }
    }
    if (p.moves->size == 0) {
        Cand c;
        p.cands.push_back(c);
        add_plans(c, trunks, 0, 0, 0);
    }
    if (root) add_burnt(g, p);
    for (size_t i = 0; i < p.cands.size(); ++i) p.cands[i].order = std::uint16_t(i);
    if (root) {
        // The seed picks among equal turns: a seeded shuffle decides the order of equal keys.
        for (int i = int(p.cands.size()) - 1; i > 0; --i)
            std::swap(p.cands[i].order, p.cands[rng_.below(std::uint32_t(i + 1))].order);
        std::sort(p.cands.begin(), p.cands.end(), before);
        p.count = p.cands.size();
        return;
    }
    // Inner nodes: the last refutation found at this ply right after the captures and exits,
    // then the other forcing turns (trunks) in order, then the best `quiet_limit` quiet moves.
    if (p.has_killer)
        for (Cand& c : p.cands)
            if (c.has_move && c.plan < 0 && !c.burnt && same_move(c.move, p.killer)) {
                c.key = std::max(c.key, 2'999'999);
                c.quiet = false;
                break;
            }
    if (first >= 0 && size_t(first) < p.cands.size())
        for (Cand& c : p.cands)
            if (c.order == first) {
                c.key = kInf;
                c.quiet = false;
                break;
            }
    auto quiet_begin =
        std::partition(p.cands.begin(), p.cands.end(), [](const Cand& c) { return !c.quiet; });
    std::sort(p.cands.begin(), quiet_begin, before);
    const size_t forcing = size_t(quiet_begin - p.cands.begin());
    const size_t quiet = std::min(p.cands.size() - forcing, size_t(std::max(quiet_limit, 0)));
    if (quiet < p.cands.size() - forcing)
        std::nth_element(quiet_begin, quiet_begin + long(quiet), p.cands.end(), before);
    std::sort(quiet_begin, quiet_begin + long(quiet), before);
    p.count = forcing + quiet;
}

// Burnt trunk candidates (root only): the free cells on the straight road of the enemy
// elephants nearest their goal, each with the best few turns found so far.
void Searcher::add_burnt(const Game& g, Ply& p) {
    const Side me = g.to_move();
    if (g.stats(me).burnt_left == 0) return;
    const Side them = ~me;
    const int n = v_.size;
    const int base = them == Side::Silver ? 0 : kMaxElephants;
    const int off = kOffset[int(goal_dir(them))];
    struct Target {
        Cell cell;
        int dist;
    };
    std::vector<Target> cells;
    for (int id = base; id < base + v_.elephants; ++id) {
        const Sq sq = g.elephant_sq(id);
        if (!sq) continue;
        const Cell c = cell_of(sq);
        const int d = them == Side::Silver ? n - c.y : n - c.x;
        if (d > 3) continue;
        Sq q = sq;
        for (int i = 0; i < d; ++i) {
            q = Sq(q + off);
            const u8 fl = g.flags(q);
            if (fl & (kTrunk | kBurnt)) break;  // already blocked, or collected on the way
            if (fl & kElephant) continue;
            bool dup = false;
            for (const Target& t : cells) dup |= t.cell == cell_of(q);
            if (!dup) cells.push_back({cell_of(q), d});
            break;
        }
    }
    if (cells.empty()) return;
    std::stable_sort(cells.begin(), cells.end(),
                     [](const Target& a, const Target& b) { return a.dist < b.dist; });
    if (cells.size() > 3) cells.resize(3);
    // Stable: the candidates have no generation order yet (all 0), so `before` alone would leave
    // equal keys in an order of the standard library's choosing (libstdc++ natively and libc++
    // in WebAssembly chose different turns); stable keeps them in generation order.
    std::vector<Cand> best(p.cands);
    std::stable_sort(best.begin(), best.end(), before);
    if (best.size() > 6) best.resize(6);
    for (const Cand& b : best) {
        for (const Target& t : cells) {
            if (b.has_move && cell_of(b.move.path[b.move.len - 1]) == t.cell) continue;
            Cand c = b;
            c.burnt = sq_of(t.cell);
            c.quiet = false;
            c.key = b.key - 1;
            p.cands.push_back(c);
        }
    }
}

Turn Searcher::to_turn(const Game& g, const Cand& c, const Ply& p) const {
    Turn t;
    if (c.has_move) t = g.to_turn(c.move);
    if (c.burnt) t.burnt = cell_of(c.burnt);
    if (c.plan >= 0) {
        const Plan& pl = p.plans[c.plan];
        for (int i = 0; i < pl.nsteps; ++i)
            t.guardians.push_back({pl.step[i].from, pl.step[i].dir, pl.step[i].steps});
    }
    return t;
}

// Plays candidate `c` on a copy; false when the rules refuse it (a plan judged before the
// elephant move can turn out illegal after it; the search then skips it).
bool Searcher::make(const Game& g, const Cand& c, const Ply& p, Game& child) const {
    child = g;
    if (c.plan < 0 && !c.burnt) {
        if (c.has_move)
            child.play(c.move);
        else
            child.play_pass();
        return true;
    }
    return !child.apply_turn(to_turn(g, c, p));
}

// ---- Search

// Everything the search and the evaluation read: the board (trunks, burnt trunks, elephants
// with their facings, guardians with their owners), the side to move, the players' counters
// and the quiet-turn count.
std::uint64_t Searcher::hash(const Game& g) const {
    std::uint64_t h = 0x6a09e667f3bcc909ULL;
    auto add = [&h](std::uint64_t x) {
        h = (h ^ x) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    };
    const int n = v_.size;
    for (int y = 0; y <= n + 1; ++y)
        for (int x = 0; x <= n + 1; ++x) {
            const Sq sq = sq_of({x, y});
            const u8 f = g.flags(sq) & (kTrunk | kBurnt | kElephant | kGuard);
            if (!f || f == kTrunk) {  // trunks are the common case: hash their absence
                if (!f && v_.in_field({x, y})) add(std::uint64_t(sq) << 8 | 0xff);
                continue;
            }
            std::uint64_t code = f;
            if (f & kElephant) {
                const int id = g.elephant_id(sq);
                code |= std::uint64_t(idx(Game::side_of(id)) * 4 + int(g.elephant_facing(id))) << 6;
            }
            if (f & kGuard) {
                const auto gi = g.guardian_on({x, y});
                code |= std::uint64_t(gi && gi->side == Side::Bronze) << 7;
            }
            add(std::uint64_t(sq) << 8 | code);
        }
    add(std::uint64_t(idx(g.to_move())) << 40 | std::uint64_t(g.quiet_turns()) << 20);
    for (Side s : {Side::Silver, Side::Bronze}) {
        const SideStats& st = g.stats(s);
        add(std::uint64_t(st.trunks) | std::uint64_t(st.saved) << 12 |
            std::uint64_t(st.captured) << 24 | std::uint64_t(st.burnt_left) << 36 |
            std::uint64_t(idx(s)) << 48);
    }
    return h;
}

int Searcher::search(const Game& g, int depth, int alpha, int beta, int ply_index) {
    ++nodes_;
    if (limited_ && nodes_ > budget_) {
        aborted_ = true;
        return 0;
    }
    if (depth == 0 || ply_index >= kMaxPly) return evaluate(g);
    const std::uint64_t key = hash(g);
    Entry& e = table_[key & mask_];
    int first = -1;
    Move tried[2];
    int ntried = 0;
    if (e.key == key) {
        first = e.best == 0xffff ? -1 : e.best;
        if (e.depth >= depth && (e.bound == kExact || (e.bound == kLower && e.value >= beta) ||
                                 (e.bound == kUpper && e.value <= alpha)))
            return e.value;
        if (e.plain) tried[ntried++] = e.move;
    }
    const int alpha0 = alpha;
    Ply& p = ply(ply_index);
    if (p.has_killer && !(ntried && same_move(tried[0], p.killer))) tried[ntried++] = p.killer;
    g.generate(*p.moves);
    const Side me = g.to_move();
    int best = -kInf, best_order = -1;
    Move best_move{};
    bool best_plain = false;
    Game child(v_);
    bool searched = false;
    // Searches one child; true when it refutes this node (beta cutoff).
    auto visit = [&](const Game& c, bool plain, const Move& m, int order) {
        int v;
        if (c.over()) {
            ++nodes_;
            v = terminal(c, me);
        } else if (!searched) {
            v = -search(c, depth - 1, -beta, -alpha, ply_index + 1);
        } else {
            // Principal variation search: prove the later turns worse with a null window.
            v = -search(c, depth - 1, -alpha - 1, -alpha, ply_index + 1);
            if (!aborted_ && v > alpha && v < beta)
                v = -search(c, depth - 1, -beta, -alpha, ply_index + 1);
        }
        if (aborted_) return true;
        searched = true;
        if (v <= best) return false;
        best = v;
        best_order = order;
        best_plain = plain;
        best_move = m;
        if (v > alpha) alpha = v;
        if (alpha < beta) return false;
        if (plain) {
            p.killer = m;
            p.has_killer = true;
        }
        return true;
    };
    // Stage 1: the table's move and the killer, when they are legal elephant moves here. One of
    // them often refutes the node, which then costs no candidate list.
    bool cut = false;
    for (int t = 0; t < ntried && !cut; ++t) {
        bool legal = false;
        for (const Move& m : *p.moves) legal |= same_move(m, tried[t]);
        if (!legal) {
            tried[t] = tried[--ntried];
            --t;
            continue;
        }
        child = g;
        child.play(tried[t]);
        cut = visit(child, true, tried[t], -1);
    }
    // Stage 2: the other candidates (late quiet moves are not searched: the ordering puts the
    // plausible ones first).
    if (!cut) {
        candidates(g, p, false, kQuietLimit[std::min(depth, 3)], first);
        for (size_t i = 0; i < p.count && !cut; ++i) {
            const Cand& c = p.cands[i];
            const bool plain = c.has_move && c.plan < 0 && !c.burnt;
            bool done = false;
            for (int t = 0; t < ntried && plain; ++t) done |= same_move(c.move, tried[t]);
            if (done || !make(g, c, p, child)) continue;  // make() cannot fail; see there
            cut = visit(child, plain, c.move, c.order);
        }
    }
    if (aborted_) return 0;
    if (best == -kInf) return evaluate(g);
    e.key = key;
    e.value = best;
    e.depth = std::int8_t(depth);
    e.bound = best <= alpha0 ? kUpper : best >= beta ? kLower : kExact;
    e.best = best_order < 0 ? 0xffff : std::uint16_t(best_order);
    e.plain = best_plain;
    e.move = best_move;
    return best;
}

Turn Searcher::choose(const Game& g, BotInfo& info) {
    // About one table entry per two nodes of the budget: 4 K to 256 K entries (96 KiB to 6 MiB).
    std::uint64_t size = 1 << 12;
    while (size < (1u << 18) && size * 2 < budget_) size *= 2;
    table_.assign(size, Entry{});
    mask_ = size - 1;
    Ply& root = ply(0);
    g.generate(*root.moves);
    candidates(g, root, true, 0);
    const Side me = g.to_move();
    std::vector<Cand> order = root.cands;
    std::vector<int> score(order.size(), -kInf);
    std::vector<char> legal(order.size(), 1);
    int best = -1, best_score = -kInf;
    Game child(v_);
    info.candidates = int(order.size());
    // A budget smaller than the candidates: a seeded random sample of them (level 1).
    if (order.size() > budget_) {
        for (size_t i = 0; i < size_t(budget_); ++i)
            std::swap(order[i], order[i + rng_.below(std::uint32_t(order.size() - i))]);
        order.resize(size_t(std::max<std::uint64_t>(budget_, 1)));
        score.resize(order.size());
        legal.resize(order.size());
    }
    for (int depth = 1; depth <= max_depth_; ++depth) {
        limited_ = depth > 1;
        int alpha = -kInf, it_best = -1;
        bool complete = true;
        for (size_t i = 0; i < order.size(); ++i) {
            if (!legal[i]) continue;
            if (!make(g, order[i], root, child)) {
                legal[i] = 0;
                continue;
            }
            if (filter_ && depth == 1) {
                const std::uint64_t h = hash(child);
                bool listed = false;
                for (const Game& x : *filter_) listed = listed || hash(x) == h;
                if (listed != keep_) {
                    legal[i] = 0;
                    continue;
                }
            }
            int v;
            if (child.over()) {
                ++nodes_;
                v = terminal(child, me);
            } else if (it_best < 0) {
                v = -search(child, depth - 1, -kInf, -alpha, 1);
            } else {
                v = -search(child, depth - 1, -alpha - 1, -alpha, 1);
                if (!aborted_ && v > alpha) v = -search(child, depth - 1, -kInf, -alpha, 1);
            }
            if (aborted_) {
                complete = false;
                break;
            }
            score[i] = v;
            if (v > alpha) {
                alpha = v;
                it_best = int(i);
            }
        }
        // A partial iteration's best is sound: it is the previous best (searched first) or a
        // turn proved better than that one at this depth.
        if (it_best >= 0) {
            best = it_best;
            best_score = alpha;
            info.score_depth = depth;
        }
        if (!complete) break;
        info.depth = depth;
        if (best < 0) break;  // no legal candidate at all (cannot happen: see bot_turn)
        // The best first, the others by their (bound) scores.
        std::vector<size_t> idx(order.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
            if (a == size_t(best) || b == size_t(best)) return a == size_t(best) && b != a;
            return score[a] > score[b];
        });
        std::vector<Cand> o2;
        std::vector<int> s2;
        std::vector<char> l2;
        for (size_t i : idx) {
            o2.push_back(order[i]);
            s2.push_back(score[i]);
            l2.push_back(legal[i]);
        }
        order.swap(o2);
        score.swap(s2);
        legal.swap(l2);
        best = 0;
        if (order.size() == 1 || best_score >= kWin / 2 || best_score <= -kWin / 2) break;
        if (nodes_ > budget_) break;
    }
    info.nodes = nodes_;
    info.score = best_score;
    if (best < 0) return Turn{};
    return to_turn(g, order[best], root);
}

}  // namespace

std::uint64_t bot_node_budget(int level) {
    return level >= kMinBotLevel && level <= kMaxBotLevel ? kLevels[level].nodes : 0;
}

namespace {

std::optional<RuleError> check_level(const BotOptions& opt) {
    if (opt.level < kMinBotLevel || opt.level > kMaxBotLevel)
        return RuleError{ErrorCode::BadFormat,
                         "bot level " + std::to_string(opt.level) + " is out of range (1 to 5)"};
    return std::nullopt;
}

}  // namespace

Expected<Setup> bot_setup(const Game& g, const BotOptions& opt) {
    if (auto e = check_level(opt)) return *e;
    if (g.over()) return RuleError{ErrorCode::GameOver, "the game is over"};
    if (g.phase() != Phase::SetupSilver && g.phase() != Phase::SetupBronze)
        return RuleError{ErrorCode::WrongPhase, "both setups are already made"};
    // Seeded random legal setups, judged by the evaluation of the position they make from the
    // setting-up side's view (its guardians' capture chances against the other's) plus a
    // preference for guardians off the corners (a cornered guardian watches nothing).
    const Side me = g.to_move();
    Rng rng(opt.seed * 0x2545f4914f6cdd1dULL + 7);
    Searcher s(g, opt);
    const int samples = 16 + 8 * opt.level;
    Setup best;
    int best_score = -kInf;
    const Ring ring(g.variant().size);
    for (int i = 0; i < samples; ++i) {
        Setup st = random_setup(g, rng);
        Game probe = g;
        if (probe.apply_setup(me, st)) continue;  // cannot happen: random_setup is legal
        int v = 0;
        if (probe.phase() == Phase::Play) {
            // Silver moves next: evaluate from silver's view, then turn it to ours.
            const int e = s.evaluate(probe);
            v = probe.to_move() == me ? e : -e;
        }
        for (Cell c : st.guardians) {
            const int p = ring.index(c);
            if (ring.column(p) || ring.row(p)) v += 30;
        }
        v += int(rng.below(20));
        if (v > best_score) {
            best_score = v;
            best = st;
        }
    }
    if (best.elephants.empty()) return random_setup(g, rng);
    return best;
}

Expected<Turn> bot_turn_excluding(const Game& g, const BotOptions& opt,
                                  const std::vector<Game>& exclude, BotInfo* info) {
    if (auto e = check_level(opt)) return *e;
    if (g.over()) return RuleError{ErrorCode::GameOver, "the game is over"};
    if (g.phase() != Phase::Play)
        return RuleError{ErrorCode::WrongPhase, "the game is waiting for a setup"};
    BotInfo local;
    BotInfo& out = info ? *info : local;
    Searcher s(g, opt);
    s.filter(&exclude, false);
    Turn t = s.choose(g, out);
    Game probe = g;
    if (probe.apply_turn(t))
        return RuleError{ErrorCode::NoLegalMove, "every turn the engine considers is excluded"};
    return t;
}

std::optional<int> bot_turn_score(const Game& g, const BotOptions& opt, const Turn& turn,
                                  int depth) {
    if (check_level(opt) || g.phase() != Phase::Play || depth < 1) return std::nullopt;
    Game after = g;
    if (after.apply_turn(turn)) return std::nullopt;
    const std::vector<Game> only{after};
    BotOptions o = opt;
    o.depth = depth;
    BotInfo info;
    Searcher s(g, o);
    s.filter(&only, true);
    Turn t = s.choose(g, info);
    Game probe = g;
    if (info.score_depth == 0 || probe.apply_turn(t)) return std::nullopt;
    return info.score;
}

Expected<Turn> bot_turn(const Game& g, const BotOptions& opt, BotInfo* info) {
    if (auto e = check_level(opt)) return *e;
    if (g.over()) return RuleError{ErrorCode::GameOver, "the game is over"};
    if (g.phase() != Phase::Play)
        return RuleError{ErrorCode::WrongPhase, "the game is waiting for a setup"};
    BotInfo local;
    Searcher s(g, opt);
    Turn t = s.choose(g, info ? *info : local);
    Game probe = g;
    if (!probe.apply_turn(t)) return t;
    // Never reached: every candidate was played through apply_turn or the generator. Should it
    // happen, fall back to the first legal elephant move alone (or a pass).
    assert(false && "bot chose an illegal turn");
    MoveList ml;
    g.generate(ml);
    return ml.size ? g.to_turn(ml[0]) : Turn{};
}

std::optional<int> stall_judgement(const Game& g) {
    BotOptions judge;
    judge.level = kStallJudgeLevel;
    BotInfo info;
    if (!bot_turn(g, judge, &info)) return std::nullopt;
    return info.score;
}

bool judged_lost(const Game& g) {
    const auto score = stall_judgement(g);
    return score && *score <= -kStallLostScore;
}

}  // namespace tf
