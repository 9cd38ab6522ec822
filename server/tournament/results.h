// What both tournament kinds share: a game's result, scores counted in half points, the
// entrants. Everything a tournament shows (pairings' inputs, standings, tie-breaks) is computed
// from its record of games, so the record is all the store needs to keep and all a node taking
// a tournament over needs to read (docs/TOURNAMENTS.md).
#pragma once

#include <optional>
#include <string>

#include "common/types.h"

namespace tf::server::tournament {

enum class GameResult { SilverWins, BronzeWins, Draw };

// A result seen from one side: 2 for a win, 1 for a draw, 0 for a loss (half points).
int half_points(GameResult r, Side s);
std::optional<Side> winner(GameResult r);

// One player in a tournament. `rating` seeds the ranking (the player's rating in the
// tournament's category when it joined); `active` is false once it withdrew: it keeps its
// games and place in the standings, and is paired no more.
struct Entrant {
    std::string id;
    int rating = 1500;
    bool active = true;
};

}  // namespace tf::server::tournament
