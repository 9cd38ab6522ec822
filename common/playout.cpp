#include "playout.h"

#include <algorithm>
#include <vector>

namespace tf {

Setup random_setup(const Game& g, Rng& rng) {
    const Variant& v = g.variant();
    const Side s = g.to_move();
    std::vector<Cell> zone, ring;
    for (int i = 2; i <= v.size; ++i) zone.push_back(s == Side::Silver ? Cell{i, 1} : Cell{1, i});
    for (int y = 0; y <= v.size + 1; ++y)
        for (int x = 0; x <= v.size + 1; ++x)
            if (v.on_ring({x, y}) && !g.guardian_on({x, y})) ring.push_back({x, y});
    for (;;) {
        Setup st;
        for (int i = 0; i < v.elephants; ++i) {
            std::swap(zone[i], zone[i + rng.below(std::uint32_t(zone.size() - i))]);
            st.elephants.push_back(zone[i]);
        }
        for (int i = 0; i < 2; ++i) {
            std::swap(ring[i], ring[i + rng.below(std::uint32_t(ring.size() - i))]);
            st.guardians.push_back(ring[i]);
        }
        Game probe = g;
        if (!probe.apply_setup(s, st)) return st;
    }
}

bool random_move(const Game& g, Rng& rng, MoveList& scratch, Move& out) {
    g.generate_paths(scratch);
    if (scratch.size == 0) return false;
    // Uniform over moves: a free-cell path stands for four moves (one per facing).
    std::uint32_t total = 0;
    for (const Move& m : scratch) total += m.facing == kAnyFacing ? 4 : 1;
    std::uint32_t r = rng.below(total);
    for (const Move& m : scratch) {
        const std::uint32_t w = m.facing == kAnyFacing ? 4 : 1;
        if (r < w) {
            out = m;
            if (m.facing == kAnyFacing) out.facing = u8(r);
            return true;
        }
        r -= w;
    }
    return false;  // unreachable
}

int play_random_game(Game& g, Rng& rng, int max_turns) {
    while (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze)
        g.apply_setup(g.to_move(), random_setup(g, rng));
    MoveList ml;
    Move m;
    int played = 0;
    while (!g.over() && played < max_turns) {
        if (random_move(g, rng, ml, m))
            g.play(m);
        else
            g.play_pass();
        ++played;
    }
    return played;
}

std::uint64_t perft(const Game& g, int depth) {
    if (depth == 0) return 1;
    if (g.phase() != Phase::Play) return 0;  // over, or setups still due: no turns
    MoveList ml;
    g.generate(ml);
    if (ml.size == 0) {
        Game next = g;
        next.play_pass();
        return perft(next, depth - 1);
    }
    if (depth == 1) return std::uint64_t(ml.size);
    std::uint64_t total = 0;
    for (const Move& m : ml) {
        Game next = g;
        next.play(m);
        total += perft(next, depth - 1);
    }
    return total;
}

}  // namespace tf
