// The canonical setup and turn of spec §6 as C++ values. They hold what a client sent, unchecked:
// Game::apply_setup and Game::apply_turn decide whether they are legal.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "types.h"

namespace tf {

struct Setup {
    std::vector<Cell> elephants;
    std::vector<Cell> guardians;
    friend bool operator==(const Setup&, const Setup&) = default;
};

struct ElephantMove {
    Cell from;
    std::vector<Cell> path;     // landing cell of every step; an exit lands on the ring
    std::optional<Dir> facing;  // present exactly when the move ends on a free cell
    friend bool operator==(const ElephantMove&, const ElephantMove&) = default;
};

struct GuardianMove {
    Cell from;
    Rot dir = Rot::Cw;
    std::int64_t steps = 1;
    friend bool operator==(const GuardianMove&, const GuardianMove&) = default;
};

struct Turn {
    std::optional<ElephantMove> elephant;
    std::optional<Cell> burnt;
    std::vector<GuardianMove> guardians;  // in order; empty means "not done"
    friend bool operator==(const Turn&, const Turn&) = default;
};

struct Record {
    Variant variant;
    Setup silver, bronze;
    std::vector<Turn> turns;
    // A record may start from a position string (docs/RULES.md §8) instead of the setups: a
    // game played on from the analysis board or the position editor. The setups are then empty.
    std::optional<std::string> position = std::nullopt;
};

}  // namespace tf
