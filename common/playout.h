// Engine helpers on top of the rules: a seeded RNG, random setups, random games and perft.
#pragma once

#include <cstdint>

#include "game.h"

namespace tf {

// A fast RNG: splitmix64 (Steele, Lea and Flood); deterministic for a seed on every platform.
class Rng {
  public:
    explicit Rng(std::uint64_t seed) : s_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n), n > 0.
    std::uint32_t below(std::uint32_t n) { return std::uint32_t(((next() >> 32) * n) >> 32); }

  private:
    std::uint64_t s_;
};

// A uniformly drawn legal setup for the side whose setup is expected.
Setup random_setup(const Game& g, Rng& rng);

// A uniformly drawn legal elephant move of the side to move (each (from, path, facing) equally
// likely); false when there is none. `scratch` is working space.
bool random_move(const Game& g, Rng& rng, MoveList& scratch, Move& out);

// Plays both setups (if still due) and random elephant-only turns until the game ends or
// `max_turns` turns were played. Returns the number of turns played.
int play_random_game(Game& g, Rng& rng, int max_turns = 1 << 30);

// Number of turn sequences of length `depth` where every turn is an elephant move alone (or
// the empty turn when no elephant move exists). A finished game has no turns.
std::uint64_t perft(const Game& g, int depth);

}  // namespace tf
