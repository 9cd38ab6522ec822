// Legal elephant moves in the canonical form of spec §6: one per distinct (from, path, facing).
#include "game.h"

namespace tf {

// Walks every path of 1 to 3 steps of elephant `id` and calls emit(move) for each legal move;
// stops and returns true as soon as emit returns true.
template <class Emit>
bool Game::gen_elephant(int id, Emit&& emit) const {
    Move m;
    m.from = esq_[id];
    const Side side = side_of(id);
    const int f = efacing_[id];
    const int goal = int(goal_dir(side));
    const bool can_exit = f == goal;

    auto visited = [&](Sq t, int depth) {
        if (t == m.from) return true;
        for (int i = 0; i < depth; ++i)
            if (m.path[i] == t) return true;
        return false;
    };
    auto walk = [&](auto& self, Sq cur, int depth) -> bool {
        m.len = u8(depth + 1);
        for (int d = 0; d < 4; ++d) {
            if (can_exit && d == goal && on_goal_edge(side, cur)) {
                m.path[depth] = Sq(cur + kOffset[d]);
                m.len = u8(depth + 1);
                m.facing = kKeepFacing;
                if (emit(m)) return true;
                continue;
            }
            Sq t = Sq(cur + kOffset[d]);
            // The mover's own start square counts as empty: nothing is jumped there.
            if ((flags_[t] & kElephant) && t != m.from) t = Sq(t + kOffset[d]);
            const u8 fl = flags_[t];
            if ((fl & (kField | kCross | kBurnt | kElephant)) != kField) continue;
            if (visited(t, depth)) continue;
            m.path[depth] = t;
            m.len = u8(depth + 1);
            if (fl & kTrunk) {
                if (d == f) {
                    m.facing = kKeepFacing;
                    if (emit(m)) return true;
                }
                continue;
            }
            for (int nf = 0; nf < 4; ++nf) {
                m.facing = u8(nf);
                if (emit(m)) return true;
            }
            if (depth < 2 && self(self, t, depth + 1)) return true;
        }
        return false;
    };
    return walk(walk, m.from, 0);
}

void Game::generate(MoveList& out) const {
    out.size = 0;
    if (phase_ != Phase::Play) return;
    const int base = stm_ == Side::Silver ? 0 : kMaxElephants;
    for (int id = base; id < base + v_.elephants; ++id) {
        if (!esq_[id]) continue;
        gen_elephant(id, [&](const Move& m) {
            out.moves[out.size++] = m;
            return false;
        });
    }
}

bool Game::has_legal_move() const {
    if (phase_ != Phase::Play) return false;
    const int base = stm_ == Side::Silver ? 0 : kMaxElephants;
    for (int id = base; id < base + v_.elephants; ++id)
        if (esq_[id] && gen_elephant(id, [](const Move&) { return true; })) return true;
    return false;
}

}  // namespace tf
