// Invariants of the rules library shared by the rules fuzzers (header-only, aborts on failure).
#pragma once

#include <nlohmann/json.hpp>

#include "common/game.h"
#include "common/json.h"
#include "common/notation.h"
#include "tests/fuzz/fuzz_check.h"

namespace tf::fuzz {

// Two games in the same position: every square's flags and elephant, every elephant's square and
// facing, each guardian's side, the counters and the result; cheap enough to run per move.
inline bool same_state(const Game& a, const Game& b) {
    if (!(a.variant() == b.variant() && a.phase() == b.phase() && a.to_move() == b.to_move() &&
          a.turns_played() == b.turns_played() && a.quiet_turns() == b.quiet_turns() &&
          a.end_reason() == b.end_reason() && a.winner() == b.winner() &&
          a.trunks_on_field() == b.trunks_on_field()))
        return false;
    for (Side s : {Side::Silver, Side::Bronze}) {
        const SideStats &p = a.stats(s), &q = b.stats(s);
        if (p.trunks != q.trunks || p.spent != q.spent || p.burnt_left != q.burnt_left ||
            p.saved != q.saved || p.captured != q.captured ||
            a.elephants_on_field(s) != b.elephants_on_field(s) || a.score(s) != b.score(s))
            return false;
    }
    for (int sq = 0; sq < kSqCount; ++sq)
        if (a.flags(Sq(sq)) != b.flags(Sq(sq)) || a.elephant_id(Sq(sq)) != b.elephant_id(Sq(sq)))
            return false;
    for (int id = 0; id < 2 * kMaxElephants; ++id)
        if (a.elephant_sq(id) != b.elephant_sq(id) ||
            (a.elephant_sq(id) && a.elephant_facing(id) != b.elephant_facing(id)))
            return false;
    const auto ga = a.guardians(), gb = b.guardians();  // which side owns which guardian
    if (ga.size() != gb.size()) return false;
    for (std::size_t i = 0; i < ga.size(); ++i)
        if (ga[i].side != gb[i].side || ga[i].cell != gb[i].cell) return false;
    return true;
}

// Every generated move is accepted by apply_turn as an elephant-only turn and lands on the same
// state as the generator's play(); with no move, the empty turn is accepted like play_pass().
inline void check_generator_agrees(const Game& g) {
    if (g.phase() != Phase::Play) return;
    MoveList ml;
    g.generate(ml);
    if (ml.size == 0) {
        Game a = g;
        TF_FUZZ_CHECK(!a.apply_turn(Turn{}));
        Game b = g;
        b.play_pass();
        TF_FUZZ_CHECK(same_state(a, b));
        return;
    }
    for (const Move& m : ml) {
        Game a = g;
        TF_FUZZ_CHECK(!a.apply_turn(g.to_turn(m)));
        Game b = g;
        b.play(m);
        TF_FUZZ_CHECK(b.is_ok());
        TF_FUZZ_CHECK(same_state(a, b));
    }
}

// A consistent game whose snapshot rebuilds it, and whose state JSON reads back to itself.
inline void check_representable(const Game& g) {
    TF_FUZZ_CHECK(g.is_ok());
    Json state = state_to_json(g);
    auto from_snap = Game::from_snapshot(g.snapshot());
    TF_FUZZ_CHECK(from_snap);
    TF_FUZZ_CHECK(state_to_json(*from_snap) == state);
    auto from_json = game_from_json(state);
    TF_FUZZ_CHECK(from_json);
    TF_FUZZ_CHECK(state_to_json(*from_json) == state);
}

// The turns the notation can write down (common/notation.cpp): cells on the board, a path of
// 1 to 3 steps, at most 8 parts, guardian moves of 1 to 10^9 cells. Every legal turn is one.
inline bool writable(const Turn& t, const Variant& v) {
    if (t.elephant) {
        if (!v.on_board(t.elephant->from)) return false;
        if (t.elephant->path.empty() || t.elephant->path.size() > 3) return false;
        for (Cell c : t.elephant->path)
            if (!v.on_board(c)) return false;
    }
    if (t.burnt && !v.on_board(*t.burnt)) return false;
    if (1 + (t.burnt ? 1 : 0) + t.guardians.size() > 8) return false;
    for (const GuardianMove& gm : t.guardians)
        if (!v.on_board(gm.from) || gm.steps < 1 || gm.steps > 1000000000) return false;
    return true;
}

// The canonical JSON reads back to the same turn, and so does the notation of a writable turn.
inline void check_turn_prints(const Turn& t, const Variant& v) {
    auto back = turn_from_json(to_json(t));
    TF_FUZZ_CHECK(back);
    TF_FUZZ_CHECK(*back == t);
    if (!writable(t, v)) return;
    auto parsed = turn_from_notation(turn_to_notation(t, v.size), v.size);
    TF_FUZZ_CHECK(parsed);
    TF_FUZZ_CHECK(*parsed == t);
}

}  // namespace tf::fuzz
