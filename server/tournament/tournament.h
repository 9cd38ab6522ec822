// One tournament's decisions (docs/TOURNAMENTS.md "Running a tournament"): when it starts,
// whom it pairs and when, when a round or the whole event ends; its standings. A value with
// no I/O and no clock of its own: the service that directs it tells it what happened (a
// player joined, a game was made or ended, the time now) and carries out what step() returns
// (make these games). Its whole state is what the store keeps: the settings, the entrants,
// the games paired (each with the code the director gives it before saving, its result once
// ended) and the byes. A node that takes a tournament over rebuilds it from those and calls
// step(): what was paired is never paired again. Whether a paired game's row exists (a director
// may die between saving a pairing and making its game) is the store's to say: the service
// makes again, under the recorded code, a game it does not find (server/director/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/tournament/arena.h"
#include "server/tournament/swiss.h"

namespace tf::server::tournament {

enum class Kind { Arena, Swiss };

struct Settings {
    Kind kind = Kind::Arena;
    std::int64_t starts_at = 0;  // epoch ms
    // Arena: how long it runs from its start. Games still being played at the end do not
    // count (as lichess).
    std::int64_t length_ms = 0;
    // Swiss: the rounds, and the pause between a round's last result and the next round.
    int rounds = 0;
    std::int64_t round_gap_ms = 0;
    int max_players = 0;   // 0: no limit
    bool berserk = false;  // arena: players may halve their clock for a point more
};

enum class Phase { Created, Running, Finished, Cancelled };

// A game the tournament paired.
struct TournamentGame {
    int round = 0;          // Swiss: its round; arena: 0
    std::string code = {};  // the game's code once made; empty: paired, not made yet
    std::string silver = {}, bronze = {};
    bool ended = false;
    // The result once ended; nullopt then: aborted before a turn of play, worth nothing to
    // either (both still count as having met).
    std::optional<GameResult> result = std::nullopt;
    int turns = 0;
    bool silver_berserk = false, bronze_berserk = false;
    std::int64_t paired_at = 0, ended_at = 0;
};

// What step() asks the service to do.
struct Steps {
    bool started = false, finished = false, cancelled = false;
    int round = 0;                   // Swiss: a round began (its number); 0: none
    std::vector<std::size_t> make;   // games() indexes to make now
    std::optional<std::string> bye;  // Swiss: who sits out the round that began
};

enum class JoinRefusal { None, Over, Full };

class Tournament {
  public:
    explicit Tournament(Settings s) : settings_(s) {}
    // Rebuilds a tournament from what the store kept.
    Tournament(Settings s, Phase phase, int round, std::vector<Entrant> entrants,
               std::vector<TournamentGame> games, std::vector<SwissRecord::Bye> byes)
        : settings_(s),
          phase_(phase),
          round_(round),
          entrants_(std::move(entrants)),
          games_(std::move(games)),
          byes_(std::move(byes)) {}

    // A player joins (or comes back after withdrawing: its points stay). A Swiss entrant who
    // joins late plays from the next round; the rounds it missed score nothing.
    JoinRefusal join(const std::string& id, int rating);
    // It is paired no more (a game it is playing goes on and counts); false if not entered.
    bool withdraw(const std::string& id);
    // The game games()[i] gets `code` (the service calls it for each new pairing, before saving).
    void made(std::size_t i, std::string code);
    // A game ended: its result (nullopt: aborted without a turn of play), the turns of play
    // made and who berserked. False for a code the tournament does not know or already ended.
    bool ended(const std::string& code, std::optional<GameResult> result, int turns,
               bool silver_berserk, bool bronze_berserk, std::int64_t now);

    // What is due at `now`: the start, pairings, the next round, the end. The service calls it
    // after every change and at next_due().
    Steps step(std::int64_t now);
    // When step() next has something to do with nothing else happening (a start, an end, the
    // pause before a round); nullopt: only an event can change anything.
    std::optional<std::int64_t> next_due() const;

    const Settings& settings() const { return settings_; }
    Phase phase() const { return phase_; }
    int round() const { return round_; }
    const std::vector<Entrant>& entrants() const { return entrants_; }
    const std::vector<TournamentGame>& games() const { return games_; }
    const std::vector<SwissRecord::Bye>& byes() const { return byes_; }
    bool playing(const std::string& id) const;  // in a game of the tournament not ended yet

    // The standings so far (only the games that count: an arena's games ended in its time).
    std::vector<ArenaStanding> arena_standings() const;
    std::vector<SwissStanding> swiss_standings() const;
    SwissRecord swiss_record() const;

  private:
    void pair_arena_now(std::int64_t now, Steps& out);
    void next_round(std::int64_t now, Steps& out);
    bool round_over() const;
    std::int64_t arena_end() const { return settings_.starts_at + settings_.length_ms; }

    Settings settings_;
    Phase phase_ = Phase::Created;
    int round_ = 0;
    std::vector<Entrant> entrants_;
    std::vector<TournamentGame> games_;
    std::vector<SwissRecord::Bye> byes_;
};

}  // namespace tf::server::tournament
