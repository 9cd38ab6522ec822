// Swiss tournaments (docs/TOURNAMENTS.md "Swiss"): a fixed number of rounds; in each, every
// active player meets an opponent of about its score it has not met, or sits out with a bye.
//
// Scores count half points: a win 2, a draw 1, a loss 0, a bye 2 (a full point, as lichess),
// a round missed (joined late, absent) 0. Standings order by score, then Buchholz, then
// Sonneborn–Berger, then rating, then id.
//
// The pairing is Dutch-like (FIDE C.04.3 in spirit; docs/TOURNAMENTS.md lists where it
// departs): players ranked by score then rating; each score group's top half meets its bottom
// half in order; a player the group cannot pair floats down to the next group; no two players
// meet twice; absolute colour clashes are avoided where another pairing exists. The search
// backtracks from the lowest-ranked choices, so the top boards keep their natural pairings.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "server/tournament/colours.h"
#include "server/tournament/results.h"

namespace tf::server::tournament {

// The record of a Swiss tournament: every game paired (with its result once known) and every
// bye, in the order they were made.
struct SwissRecord {
    struct Game {
        int round = 0;
        std::string silver, bronze;
        std::optional<GameResult> result;  // nullopt: still being played
    };
    struct Bye {
        int round = 0;
        std::string player;
    };
    std::vector<Game> games;
    std::vector<Bye> byes;
};

// A player as the pairing sees it.
struct SwissPlayer {
    std::string id;
    int rating = 1500;
    int score = 0;  // half points
    SideHistory sides = {};
    std::set<std::string> met = {};
    bool had_bye = false;
};

// Every entrant's state from the record (finished games and byes; games in play count as met
// and as played sides, not yet as points).
std::vector<SwissPlayer> swiss_players(const std::vector<Entrant>& entrants,
                                       const SwissRecord& record);

struct SwissPairing {
    struct Game {
        std::string silver, bronze;
    };
    std::vector<Game> games;  // board order: the best ranked pair first
    std::optional<std::string> bye;
    // Departures the round could not avoid (both 0 unless no other pairing exists): games
    // between players who met before, and games between two players who both wanted the
    // same side absolutely.
    int repeats = 0;
    int side_clashes = 0;
};

// Pairs the next round among `players` (the active ones; see swiss_players). The bye, with an
// odd count, goes to the lowest-ranked player who has had none and whose absence still lets
// the others pair.
SwissPairing pair_swiss(std::vector<SwissPlayer> players);

struct SwissStanding {
    std::string id;
    int rank = 0;       // 1 for the first; equal players share no rank (the order breaks ties)
    int score = 0;      // half points
    int buchholz = 0;   // half points: the sum of the final scores of the opponents played
    int sonneborn = 0;  // quarter points: beaten opponents' scores, and half of drawn ones'
    int rating = 0;
    int played = 0, wins = 0, draws = 0, losses = 0, byes = 0;
    bool active = true;
};

// The standings after the record's finished games and byes.
std::vector<SwissStanding> swiss_standings(const std::vector<Entrant>& entrants,
                                           const SwissRecord& record);

// The downloadable report: the standings and every round's pairings and results as plain text.
std::string swiss_report(const std::string& name, const std::vector<Entrant>& entrants,
                         const SwissRecord& record);

}  // namespace tf::server::tournament
