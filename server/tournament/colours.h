// Who plays silver in a tournament game (docs/TOURNAMENTS.md "Colours"). Silver sets up first
// and moves first (rules §3), so each player should play both sides about equally often and
// rarely the same side twice in a row. Both tournament kinds use this: the Swiss pairing weighs
// preferences when it chooses opponents, and the arena only when it seats a pair.
#pragma once

#include <optional>
#include <vector>

#include "common/types.h"

namespace tf::server::tournament {

// A player's sides so far, oldest first (games played; byes and absences add nothing).
struct SideHistory {
    std::vector<Side> played;
    // Silver games minus bronze games.
    int difference() const;
};

// How much a player wants a side (FIDE C.04.1 "colour preference", with silver for white):
//   Absolute: the difference is beyond ±1, or the last two games were on the same side;
//   Strong: the difference is ±1;
//   Mild: the difference is 0 after some games: the side not played last;
//   None: no game yet.
struct SidePreference {
    enum Strength { None = 0, Mild = 1, Strong = 2, Absolute = 3 };
    Strength strength = None;
    Side side = Side::Silver;  // meaningless with None
};
SidePreference preference(const SideHistory& h);

// Both want the same side absolutely: a pairing to avoid (the Swiss only departs from it when
// nothing else pairs the round).
bool side_conflict(const SideHistory& a, const SideHistory& b);

// The side of `higher` (the better ranked of the two) against `lower`:
//   1. both preferences granted when they differ;
//   2. else the stronger preference is granted;
//   3. else (equally strong, same side) they alternate from the latest game in which they
//      played different sides: each takes the side the other had then;
//   4. else the higher ranked player's preference; when neither has played yet, `fresh`
//      (the Swiss alternates it by board in the first round, as FIDE's round 1 does).
Side side_of_higher(const SideHistory& higher, const SideHistory& lower, Side fresh = Side::Silver);

}  // namespace tf::server::tournament
