// Legal elephant moves in the canonical form of spec §6: one per distinct (from, path, facing).
#include <bit>
#include <cstdint>
#include <cstring>

#include "game.h"

namespace tf {

static_assert(std::endian::native == std::endian::little, "Move words are little-endian");

namespace {

enum Landing { kBlocked, kFree, kTrunkEnd, kExit };

}  // namespace

// Visits every path of 1 to 3 steps of elephant `id`, three nested loops instead of recursion
// (this is the engine's hottest code). For each legal move it calls emit(bits), the move as the
// 64-bit image of a Move, with the facing
// set: kKeepFacing for a trunk or an exit, 0..3 for the four choices on a free cell (or, with
// PerPath, one call with kAnyFacing standing for the four). Stops and
// returns true as soon as emit returns true.
template <bool PerPath, class Emit>
bool Game::gen_elephant(int id, Emit&& emit) const {
    using u64 = std::uint64_t;
    const Sq from = esq_[id];
    const Side side = side_of(id);
    const int f = efacing_[id];
    const int goal = int(goal_dir(side));
    // An exit is a plain forward step off the field by an elephant facing its goal direction
    // (a plain step that leaves the field in the goal direction starts on the goal edge).
    const int exit_dir = f == goal ? goal : -1;
    // Where a step in direction d from cur lands, and what ends there. The mover's own start
    // square still has its kElephant flag: it counts as empty (nothing is jumped there) and as
    // visited (nothing lands there).
    auto land = [&](Sq cur, int d, Sq& t) -> Landing {
        t = Sq(cur + kOffset[d]);
        u8 fl = flags_[t];
        if (fl & kElephant) {
            if (t == from) return kBlocked;
            t = Sq(t + kOffset[d]);
            fl = flags_[t];
            if ((fl & (kField | kCross | kBurnt | kElephant)) != kField || t == from)
                return kBlocked;
        } else {
            if (!(fl & kField)) return d == exit_dir ? kExit : kBlocked;
            if (fl & (kCross | kBurnt)) return kBlocked;
        }
        if (fl & kTrunk) return d == f ? kTrunkEnd : kBlocked;
        return kFree;
    };
    // Moves are built as 64-bit words in the layout of Move: from, path[0..2], len, facing.
    auto out = [&](u64 bits, Landing k) {
        if (k != kFree) return emit(bits | u64(kKeepFacing) << 40);
        if constexpr (PerPath) return emit(bits | u64(kAnyFacing) << 40);
        for (u64 nf = 0; nf < 4; ++nf)
            if (emit(bits | nf << 40)) return true;
        return false;
    };
    const u64 b0 = u64(from);
    for (int d1 = 0; d1 < 4; ++d1) {
        Sq t1;
        const Landing k1 = land(from, d1, t1);
        if (k1 == kBlocked) continue;
        const u64 b1 = b0 | u64(t1) << 8;
        if (out(b1 | u64(1) << 32, k1)) return true;
        if (k1 != kFree) continue;
        // Turning straight back always fails: a plain step lands on the square just left, and a
        // jump back over the elephant just jumped lands there too. So d2 != d1 ^ 2, d3 != d2 ^ 2.
        for (int d2 = 0; d2 < 4; ++d2) {
            if (d2 == (d1 ^ 2)) continue;
            Sq t2;
            const Landing k2 = land(t1, d2, t2);
            if (k2 == kBlocked) continue;  // t2 != t1 always; t2 == from is blocked by land
            const u64 b2 = b1 | u64(t2) << 16;
            if (out(b2 | u64(2) << 32, k2)) return true;
            if (k2 != kFree) continue;
            for (int d3 = 0; d3 < 4; ++d3) {
                if (d3 == (d2 ^ 2)) continue;  // the only way back onto t1
                Sq t3;
                const Landing k3 = land(t2, d3, t3);
                if (k3 == kBlocked) continue;
                if (out(b2 | u64(t3) << 24 | u64(3) << 32, k3)) return true;
            }
        }
    }
    return false;
}

template <bool PerPath>
void Game::generate_into(MoveList& out) const {
    out.size = 0;
    if (phase_ != Phase::Play) return;
    const int base = stm_ == Side::Silver ? 0 : kMaxElephants;
    // A local cursor: stores of byte-sized Move fields may alias anything, so writing through
    // out.size would reload it (and the board) after every move.
    Move* cur = out.moves.data();
    for (int id = base; id < base + v_.elephants; ++id) {
        if (!esq_[id]) continue;
        gen_elephant<PerPath>(id, [&cur](std::uint64_t bits) {
            std::memcpy(cur++, &bits, sizeof(Move));
            return false;
        });
    }
    out.size = int(cur - out.moves.data());
}

void Game::generate(MoveList& out) const {
    generate_into<false>(out);
}
void Game::generate_paths(MoveList& out) const {
    generate_into<true>(out);
}

bool Game::has_legal_move() const {
    if (phase_ != Phase::Play) return false;
    const int base = stm_ == Side::Silver ? 0 : kMaxElephants;
    for (int id = base; id < base + v_.elephants; ++id)
        if (esq_[id] && gen_elephant<true>(id, [](std::uint64_t) { return true; })) return true;
    return false;
}

}  // namespace tf
