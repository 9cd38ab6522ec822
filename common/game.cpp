#include "game.h"

#include <cassert>

namespace tf {

std::string_view end_reason_name(EndReason r) {
    switch (r) {
        case EndReason::None:
            return "";
        case EndReason::Trunks:
            return "trunks";
        case EndReason::Herd:
            return "herd";
        case EndReason::Quiet:
            return "quiet";
        case EndReason::Resign:
            return "resign";
        case EndReason::Time:
            return "time";
        case EndReason::Agreement:
            return "agreement";
        case EndReason::Abandon:
            return "abandon";
        case EndReason::Stalling:
            return "stalling";
    }
    return "";
}

Game::Game(const Variant& v) : v_(v) {
    assert(!check_variant(v));
    const int n = v.size;
    for (int y = 1; y <= n; ++y)
        for (int x = 1; x <= n; ++x) {
            Cell c{x, y};
            u8& f = flags_[sq_of(c)];
            f = kField;
            if (!v.in_start_zone(Side::Silver, c) && !v.in_start_zone(Side::Bronze, c) &&
                !(x == 1 && y == 1)) {
                f |= kTrunk;
                ++trunks_on_field_;
            }
        }
    stats_[0].burnt_left = stats_[1].burnt_left = v.burnt;
}

// Ring positions run clockwise from SW: up the west edge, along the north edge to NE, down the
// east edge to SE, back along the south edge.
int Game::ring_index(Cell c) const {
    const int n = v_.size;
    if (!v_.on_ring(c)) return -1;
    if (c.x == 0) return c.y;
    if (c.y == n + 1) return n + 1 + c.x;
    if (c.x == n + 1) return 2 * n + 2 + (n + 1 - c.y);
    return 3 * n + 3 + (n + 1 - c.x);
}

Cell Game::ring_cell(int pos) const {
    const int n = v_.size;
    if (pos <= n + 1) return {0, pos};
    if (pos <= 2 * n + 2) return {pos - (n + 1), n + 1};
    if (pos <= 3 * n + 3) return {n + 1, n + 1 - (pos - (2 * n + 2))};
    return {n + 1 - (pos - (3 * n + 3)), 0};
}

std::optional<Side> Game::winner() const {
    if (!over() || drawn_) return std::nullopt;
    if (loser_) return ~*loser_;
    const int s = score(Side::Silver), b = score(Side::Bronze);
    if (s == b) return std::nullopt;
    return s > b ? Side::Silver : Side::Bronze;
}

int Game::score(Side s) const {
    const SideStats& st = stats_[idx(s)];
    return st.trunks + 2 * st.captured + 3 * st.saved;
}

std::optional<ElephantInfo> Game::elephant_on(Cell c) const {
    if (!v_.in_field(c)) return std::nullopt;
    const int id = elephant_id(sq_of(c));
    if (id < 0) return std::nullopt;
    return ElephantInfo{side_of(id), c, Dir(efacing_[id])};
}

std::optional<GuardianInfo> Game::guardian_on(Cell c) const {
    if (!v_.on_ring(c)) return std::nullopt;
    for (int g = 0; g < 4; ++g)
        if (gsq_[g] && gsq_[g] == sq_of(c))
            return GuardianInfo{g < 2 ? Side::Silver : Side::Bronze, c};
    return std::nullopt;
}

std::vector<ElephantInfo> Game::elephants() const {
    std::vector<ElephantInfo> out;
    for (int id = 0; id < 2 * kMaxElephants; ++id)
        if (esq_[id]) out.push_back({side_of(id), cell_of(esq_[id]), Dir(efacing_[id])});
    return out;
}

std::vector<GuardianInfo> Game::guardians() const {
    std::vector<GuardianInfo> out;
    for (int g = 0; g < 4; ++g)
        if (gsq_[g]) out.push_back({g < 2 ? Side::Silver : Side::Bronze, cell_of(gsq_[g])});
    return out;
}

std::vector<Cell> Game::crossings() const {
    std::vector<Cell> out;
    for (int i = 0; i < ncross_; ++i) out.push_back(cell_of(cross_[i]));
    return out;
}

std::vector<Cell> Game::trunk_cells() const {
    std::vector<Cell> out;
    for (int y = 1; y <= v_.size; ++y)
        for (int x = 1; x <= v_.size; ++x)
            if (has_trunk({x, y})) out.push_back({x, y});
    return out;
}

std::vector<Cell> Game::burnt_cells() const {
    std::vector<Cell> out;
    for (int y = 1; y <= v_.size; ++y)
        for (int x = 1; x <= v_.size; ++x)
            if (has_burnt({x, y})) out.push_back({x, y});
    return out;
}

namespace {

// Spec §2: a guardian on [x, 0] or [x, N+1] (1 <= x <= N) watches column x; on [0, y] or
// [N+1, y] it watches row y; corners watch nothing. The one place this rule is written.
bool guardian_watches_column(Cell g, int x, int n) {
    return x >= 1 && x <= n && g.x == x && (g.y == 0 || g.y == n + 1);
}
bool guardian_watches_row(Cell g, int y, int n) {
    return y >= 1 && y <= n && g.y == y && (g.x == 0 || g.x == n + 1);
}

}  // namespace

bool Game::watches_column(int x) const {
    for (Sq g : gsq_)
        if (g && guardian_watches_column(cell_of(g), x, v_.size)) return true;
    return false;
}

bool Game::watches_row(int y) const {
    for (Sq g : gsq_)
        if (g && guardian_watches_row(cell_of(g), y, v_.size)) return true;
    return false;
}

void Game::place_elephant(int id, Sq s, Dir facing) {
    esq_[id] = s;
    efacing_[id] = u8(facing);
    ele_[s] = u8(id + 1);
    flags_[s] |= kElephant;
}

void Game::remove_elephant(int id) {
    const Sq s = esq_[id];
    ele_[s] = 0;
    flags_[s] &= u8(~kElephant);
    esq_[id] = 0;
    --on_field_[idx(side_of(id))];
}

void Game::place_guardian(int g, Sq s) {
    if (gsq_[g]) flags_[gsq_[g]] &= u8(~kGuard);
    gsq_[g] = s;
    flags_[s] |= kGuard;
}

void Game::update_crossings() {
    for (int i = 0; i < ncross_; ++i) flags_[cross_[i]] &= u8(~kCross);
    ncross_ = 0;
    const int n = v_.size;
    for (int x = 1; x <= n; ++x) {
        if (!watches_column(x)) continue;
        for (int y = 1; y <= n; ++y)
            if (watches_row(y)) {
                const Sq s = sq_of({x, y});
                flags_[s] |= kCross;
                cross_[ncross_++] = s;
            }
    }
}

void Game::capture_on_crossings(bool& progress) {
    for (int i = 0; i < ncross_; ++i) {
        const int id = elephant_id(cross_[i]);
        if (id < 0) continue;
        remove_elephant(id);
        ++stats_[idx(~side_of(id))].captured;
        progress = true;
    }
}

void Game::check_end() {
    if (over()) return;
    if (trunks_on_field_ == 0) {
        phase_ = Phase::Over;
        reason_ = EndReason::Trunks;
    } else if (on_field_[0] == 0 || on_field_[1] == 0) {
        phase_ = Phase::Over;
        reason_ = EndReason::Herd;
    }
}

void Game::finish_turn(bool progress) {
    ++turns_;
    if (over()) return;
    quiet_ = progress ? 0 : quiet_ + 1;
    if (quiet_ >= v_.quiet) {
        phase_ = Phase::Over;
        reason_ = EndReason::Quiet;
        return;
    }
    stm_ = ~stm_;
}

void Game::resign(Side loser, EndReason why) {
    if (over()) return;
    phase_ = Phase::Over;
    reason_ = why;
    loser_ = loser;
}

void Game::agree_draw(EndReason why) {
    if (over()) return;
    phase_ = Phase::Over;
    reason_ = why;
    drawn_ = true;
}

std::optional<RuleError> Game::apply_setup(Side s, const Setup& setup) {
    if (auto e = check_setup(s, setup)) return e;
    const int base = s == Side::Silver ? 0 : kMaxElephants;
    const Dir facing = s == Side::Silver ? Dir::N : Dir::E;
    for (size_t i = 0; i < setup.elephants.size(); ++i)
        place_elephant(base + int(i), sq_of(setup.elephants[i]), facing);
    on_field_[idx(s)] = int(setup.elephants.size());
    for (int g = 0; g < 2; ++g)
        place_guardian((s == Side::Silver ? 0 : 2) + g, sq_of(setup.guardians[g]));
    update_crossings();
    phase_ = s == Side::Silver ? Phase::SetupBronze : Phase::Play;
    stm_ = s == Side::Silver ? Side::Bronze : Side::Silver;
    return std::nullopt;
}

std::optional<RuleError> Game::check_setup(Side s, const Setup& st) const {
    const int n = v_.size;
    auto err = [](ErrorCode c, std::string m) { return RuleError{c, std::move(m)}; };
    auto name = [&](Cell c) { return cell_name(c, n); };
    const std::string who(side_name(s));
    if (over()) return err(ErrorCode::GameOver, "the game is over");
    const Phase want = s == Side::Silver ? Phase::SetupSilver : Phase::SetupBronze;
    if (phase_ != want) {
        if (phase_ == Phase::Play)
            return err(ErrorCode::WrongPhase, "both setups are already made");
        return err(ErrorCode::WrongPhase, phase_ == Phase::SetupSilver
                                              ? "silver sets up first"
                                              : "silver's setup is already made");
    }
    if (int(st.elephants.size()) != v_.elephants)
        return err(ErrorCode::SetupCount,
                   who + "'s setup places " + std::to_string(st.elephants.size()) +
                       " elephants; this variant needs " + std::to_string(v_.elephants));
    if (st.guardians.size() != 2)
        return err(ErrorCode::SetupCount, who + "'s setup places " +
                                              std::to_string(st.guardians.size()) +
                                              " guardians; a setup places exactly 2");
    const std::string zone = s == Side::Silver ? "b1 to " + name({n, 1}) : "a2 to " + name({1, n});
    for (size_t i = 0; i < st.elephants.size(); ++i) {
        const Cell c = st.elephants[i];
        if (!v_.in_start_zone(s, c))
            return err(ErrorCode::SetupZone, "elephant " + std::to_string(i + 1) + " at " +
                                                 name(c) + " is outside " + who +
                                                 "'s start zone (" + zone + ")");
        for (size_t j = 0; j < i; ++j)
            if (st.elephants[j] == c)
                return err(ErrorCode::SetupDuplicate, "elephants " + std::to_string(j + 1) +
                                                          " and " + std::to_string(i + 1) +
                                                          " are both on " + name(c));
    }
    for (int g = 0; g < 2; ++g) {
        const Cell c = st.guardians[g];
        if (!v_.on_ring(c))
            return err(ErrorCode::SetupRing, "guardian " + std::to_string(g + 1) + " at " +
                                                 name(c) + " is not on the ring");
        if (guardian_on(c))
            return err(ErrorCode::SetupTaken, "guardian " + std::to_string(g + 1) + " at " +
                                                  name(c) +
                                                  " stands where a silver guardian already is");
    }
    if (st.guardians[0] == st.guardians[1])
        return err(ErrorCode::SetupDuplicate,
                   "guardians 1 and 2 are both on " + name(st.guardians[0]));

    // Crossings once placed: silver's against its own guardians; bronze's against all four.
    std::vector<Cell> gs = st.guardians;
    if (s == Side::Bronze)
        for (const GuardianInfo& g : guardians()) gs.push_back(g.cell);
    auto watched_col = [&](int x) {
        for (Cell g : gs)
            if (guardian_watches_column(g, x, n)) return true;
        return false;
    };
    auto watched_row = [&](int y) {
        for (Cell g : gs)
            if (guardian_watches_row(g, y, n)) return true;
        return false;
    };
    auto on_crossing = [&](Cell c) { return watched_col(c.x) && watched_row(c.y); };
    for (Cell c : st.elephants)
        if (on_crossing(c))
            return err(ErrorCode::SetupCrossing, "the " + who + " elephant at " + name(c) +
                                                     " would stand on a crossing (column " +
                                                     std::string(1, char('a' + c.x - 1)) +
                                                     " and row " + std::to_string(c.y) +
                                                     " are watched)");
    if (s == Side::Bronze)
        for (const ElephantInfo& e : elephants())
            if (e.side == Side::Silver && on_crossing(e.cell))
                return err(ErrorCode::SetupCrossing,
                           "bronze's guardians would put the silver elephant at " + name(e.cell) +
                               " on a crossing");
    return std::nullopt;
}

void Game::apply_move(const Move& m, bool& progress) {
    const int id = elephant_id(m.from);
    const Side s = side_of(id);
    const Dir facing = Dir(efacing_[id]);
    ele_[m.from] = 0;
    flags_[m.from] &= u8(~kElephant);
    Sq cur = m.from;
    for (int i = 0; i < m.len; ++i) {
        const int diff = int(m.path[i]) - int(cur);
        if (diff == 2 || diff == -2 || diff == 2 * kW || diff == -2 * kW) {
            const int jumped = elephant_id(Sq(cur + diff / 2));
            efacing_[jumped] = u8(opposite(Dir(efacing_[jumped])));
        }
        cur = m.path[i];
    }
    if (!(flags_[cur] & kField)) {  // exit: saved
        esq_[id] = 0;
        --on_field_[idx(s)];
        ++stats_[idx(s)].saved;
        progress = true;
    } else if (flags_[cur] & kTrunk) {
        flags_[cur] &= u8(~kTrunk);
        --trunks_on_field_;
        ++stats_[idx(s)].trunks;
        place_elephant(id, cur, facing);
        progress = true;
    } else {
        place_elephant(id, cur, Dir(m.facing));
    }
}

void Game::play(const Move& m) {
    bool progress = false;
    apply_move(m, progress);
    check_end();
    finish_turn(progress);
}

void Game::play_pass() {
    finish_turn(false);
}

ElephantMove Game::to_elephant_move(const Move& m) const {
    ElephantMove em;
    em.from = cell_of(m.from);
    for (int i = 0; i < m.len; ++i) em.path.push_back(cell_of(m.path[i]));
    if (m.facing != kKeepFacing) em.facing = Dir(m.facing);
    return em;
}

bool Game::is_ok() const {
    int trunks = 0, field[2] = {0, 0};
    for (int y = 1; y <= v_.size; ++y)
        for (int x = 1; x <= v_.size; ++x) {
            const Sq s = sq_of({x, y});
            if (flags_[s] & kTrunk) ++trunks;
            if ((flags_[s] & kTrunk) && (flags_[s] & kBurnt)) return false;
            const int id = elephant_id(s);
            if (bool(flags_[s] & kElephant) != (id >= 0)) return false;
            if (id >= 0) {
                if (esq_[id] != s || (flags_[s] & (kTrunk | kBurnt))) return false;
                ++field[idx(side_of(id))];
            }
        }
    if (trunks != trunks_on_field_) return false;
    const int held = stats_[0].trunks + stats_[1].trunks + stats_[0].spent + stats_[1].spent;
    if (phase_ != Phase::SetupSilver && trunks + held != v_.initial_trunks()) return false;
    for (int s = 0; s < 2; ++s) {
        if (field[s] != on_field_[s]) return false;
        if (phase_ == Phase::Play || phase_ == Phase::Over) {
            if (on_field_[s] + stats_[s].saved + stats_[1 - s].captured != v_.elephants)
                return false;
        }
    }
    return true;
}

}  // namespace tf

namespace tf {

Snapshot Game::snapshot() const {
    Snapshot s;
    s.variant = v_;
    s.phase = phase_;
    s.to_move = stm_;
    s.turns_played = turns_;
    s.quiet_turns = quiet_;
    s.reason = reason_;
    s.loser = loser_;
    s.trunks = trunk_cells();
    s.burnt = burnt_cells();
    s.elephants = elephants();
    s.guardians = guardians();
    s.stats[0] = stats_[0];
    s.stats[1] = stats_[1];
    return s;
}

Expected<Game> Game::from_snapshot(const Snapshot& s) {
    auto bad = [](const std::string& m) { return RuleError{ErrorCode::BadFormat, "state: " + m}; };
    if (auto e = check_variant(s.variant))
        return RuleError{ErrorCode::BadVariant, "variant: " + *e};
    const Variant& v = s.variant;
    Game g(v);
    for (int y = 1; y <= v.size; ++y)
        for (int x = 1; x <= v.size; ++x) g.flags_[sq_of({x, y})] &= u8(~kTrunk);
    g.trunks_on_field_ = 0;
    auto name = [&](Cell c) { return cell_name(c, v.size); };
    for (Cell c : s.trunks) {
        if (!v.in_field(c) || (g.flags_[sq_of(c)] & kTrunk))
            return bad("bad trunk cell " + name(c));
        g.flags_[sq_of(c)] |= kTrunk;
        ++g.trunks_on_field_;
    }
    for (Cell c : s.burnt) {
        if (!v.in_field(c) || (g.flags_[sq_of(c)] & (kTrunk | kBurnt)))
            return bad("bad burnt trunk cell " + name(c));
        g.flags_[sq_of(c)] |= kBurnt;
    }
    int count[2] = {0, 0};
    for (const ElephantInfo& e : s.elephants) {
        const int side = idx(e.side);
        if (!v.in_field(e.cell) || (g.flags_[sq_of(e.cell)] & (kTrunk | kBurnt | kElephant)))
            return bad("bad elephant cell " + name(e.cell));
        if (count[side] >= v.elephants) return bad("too many elephants");
        g.place_elephant(side * kMaxElephants + count[side]++, sq_of(e.cell), e.facing);
    }
    int gcount[2] = {0, 0};
    for (const GuardianInfo& gi : s.guardians) {
        const int side = idx(gi.side);
        if (!v.on_ring(gi.cell) || (g.flags_[sq_of(gi.cell)] & kGuard))
            return bad("bad guardian cell " + name(gi.cell));
        if (gcount[side] >= 2) return bad("too many guardians");
        g.place_guardian(side * 2 + gcount[side]++, sq_of(gi.cell));
    }
    g.update_crossings();
    for (int i = 0; i < g.ncross_; ++i)
        if (g.flags_[g.cross_[i]] & kElephant)
            return bad("an elephant stands on the crossing " + name(cell_of(g.cross_[i])));
    g.on_field_[0] = count[0];
    g.on_field_[1] = count[1];
    for (int i = 0; i < 2; ++i) {
        const SideStats& st = s.stats[i];
        if (st.trunks < 0 || st.spent < 0 || st.saved < 0 || st.captured < 0 || st.burnt_left < 0 ||
            st.burnt_left > v.burnt || st.trunks > v.initial_trunks() ||
            st.spent > v.initial_trunks())
            return bad("player counters out of range");
        g.stats_[i] = st;
    }
    const int placed_burnt = int(s.burnt.size());
    if (placed_burnt != 2 * v.burnt - s.stats[0].burnt_left - s.stats[1].burnt_left)
        return bad("burnt trunks on the field do not match the ones left to place");
    g.phase_ = s.phase;
    g.stm_ = s.to_move;
    g.turns_ = s.turns_played;
    g.quiet_ = s.quiet_turns;
    g.reason_ = s.reason;
    g.loser_ = s.loser;
    g.drawn_ = s.phase == Phase::Over &&
               (s.reason == EndReason::Agreement || (s.reason == EndReason::Stalling && !s.loser));
    bool setup_done = s.phase == Phase::Play || s.phase == Phase::Over;
    if ((s.phase == Phase::Over) != (s.reason != EndReason::None))
        return bad("phase and end reason disagree");
    if (s.quiet_turns < 0 || s.quiet_turns >= v.quiet + (s.phase == Phase::Over))
        return bad("quiet turn count out of range");
    // A game can end during the setups (a resignation, the clock, an agreement, an
    // abandonment): then a side that had not set up has nothing on the field, and no turn was
    // played (docs/RULES.md §9.2).
    if (s.phase == Phase::Over && s.turns_played == 0 && (gcount[0] != 2 || gcount[1] != 2)) {
        const bool outside_rules = s.reason == EndReason::Resign || s.reason == EndReason::Time ||
                                   s.reason == EndReason::Agreement ||
                                   s.reason == EndReason::Abandon ||
                                   s.reason == EndReason::Stalling;
        for (int i = 0; i < 2; ++i)
            if (gcount[i] != 0 && gcount[i] != 2)
                return bad("each side has 2 guardians in play, or none before its setup");
        for (const ElephantInfo& e : s.elephants)
            if (gcount[idx(e.side)] == 0) return bad("elephants of a side that did not set up");
        if (!outside_rules) return bad("a game ended by the rules before the setups were done");
        setup_done = false;
    }
    if (setup_done && (gcount[0] != 2 || gcount[1] != 2))
        return bad("each side has 2 guardians in play");
    if (setup_done && !g.is_ok()) return bad("trunks or elephants are not conserved");
    return g;
}

}  // namespace tf
