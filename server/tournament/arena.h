// Arena tournaments (docs/TOURNAMENTS.md "Arena"): a time-boxed event with one clock; whoever
// finishes a game is paired again at once with a free player close in the standings.
//
// Points (lichess's arena): a win 2, a draw 1, a loss 0. Two wins in a row put a player on
// fire: its next games score double (a win 4, a draw 2) until it fails to win. A player who
// berserked (halved its own clock) and won scores one point more, if the game lasted
// kBerserkMinTurns turns of play. A draw within kEarlyDrawTurns turns of play scores nothing.
// Standings: points, then performance (the opponents' mean rating, +500 per win beyond the
// losses per game), then rating, then id.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/tournament/colours.h"
#include "server/tournament/results.h"

namespace tf::server::tournament {

constexpr int kBerserkMinTurns = 7;
constexpr int kEarlyDrawTurns = 6;

// A finished arena game, in the order the games ended.
struct ArenaGame {
    std::string silver, bronze;
    GameResult result = GameResult::Draw;
    int turns = 0;  // turns of play made (setups not counted)
    bool silver_berserk = false, bronze_berserk = false;
};

// One game on a player's sheet: what it scored and whether the player was on fire.
struct SheetEntry {
    int points = 0;
    bool fire = false;
    bool berserk = false;  // berserked, and the extra point was earned
    GameResult result = GameResult::Draw;
    Side side = Side::Silver;
};

struct ArenaStanding {
    std::string id;
    int rank = 0;
    int points = 0;
    int performance = 0;
    int rating = 0;
    int played = 0, wins = 0, draws = 0, losses = 0, berserks = 0;
    bool fire = false;  // on fire now: its next win scores double
    bool active = true;
    std::vector<SheetEntry> sheet = {};
};

std::vector<ArenaStanding> arena_standings(const std::vector<Entrant>& entrants,
                                           const std::vector<ArenaGame>& record);

// A player free to be paired now, as the pairing sees it.
struct ArenaWaiting {
    std::string id;
    int rank = 0;  // its place in the standings
    SideHistory sides;
    std::optional<std::string> last_opponent;
};

struct ArenaPair {
    std::string silver, bronze;
};

// Pairs the free players, best ranked first, each with the nearest free player in the
// standings who was not its last opponent. A player left over waits for the next pairing.
// With `rematch_if_alone`, two players who have no one else may meet again at once.
std::vector<ArenaPair> pair_arena(std::vector<ArenaWaiting> waiting, bool rematch_if_alone);

}  // namespace tf::server::tournament
