// The tournaments' tables (issue 38; docs/TOURNAMENTS.md "On the server"), SQLite schema 11 or
// PostgreSQL schema 11, on a side connection (side_db.h) beside the store's: each tournament
// with its settings, phase and director; its entrants; the games it paired (each with its code,
// and its result once ended); its byes. That record is everything a tournament is: any node
// reads the standings from it, and the node directing a tournament rebuilds its decisions from
// it (server/tournament/tournament.h).
//
// One node directs a tournament at a time: it holds the tournament's lease (director, epoch,
// lease_until), renews it every pass, and every write of its decisions checks the epoch in the
// same transaction (a director that lost its lease writes nothing: Fenced). A node whose lease
// lapsed is replaced with the epoch raised.
//
// Blocking, one thread at a time (server/director/tournaments.h owns it); failures throw
// StoreError.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/store/side_db.h"

namespace tf::server {

struct StoredTournament {
    std::string id;
    std::string kind;  // "arena" | "swiss"
    std::string name;
    std::string created_by, creator_name;  // "" for the operator's schedule
    std::string settings;                  // JSON object (server/director/tournament_spec.h)
    bool is_public = true;                 // listed; private: by its link (and password)
    std::string password_hash = {};        // SHA-256 hex of the password; "" for none
    std::int64_t starts_at = 0;
    std::string phase = "created";  // created, running, finished, cancelled
    int round = 0;
    std::string director = {};
    std::int64_t epoch = 0, lease_until = 0;
    std::int64_t created_at = 0, finished_at = 0;
    std::string schedule_key = {};  // the operator's schedule: one tournament per slot
    int players = 0;                // read only: how many entered
};

struct StoredEntrant {
    std::string player_id, name;
    int rating = 1500;
    bool active = true;
    bool bot = false;
};

struct StoredPairing {
    int seq = 0;  // the order paired, from 0
    int round = 0;
    std::string code, silver, bronze;
    bool ended = false;
    std::string result = {};  // "" (not ended, or aborted), "silver", "bronze", "draw"
    int turns = 0;
    bool silver_berserk = false, bronze_berserk = false;
    std::int64_t paired_at = 0, ended_at = 0;
};

struct StoredBye {
    int round = 0;
    std::string player_id;
};

struct TournamentRows {
    StoredTournament t;
    std::vector<StoredEntrant> entrants;  // in the order they joined
    std::vector<StoredPairing> games;     // by seq
    std::vector<StoredBye> byes;          // by round
};

// A game as the games table has it, for the director (nullopt: no such row, not made yet).
struct PairedGameState {
    std::string status;  // open, playing, over, cancelled, aborted, quarantined
    std::string result;  // its JSON
    int turns = 0;
    std::int64_t finished_ms = 0;
    bool berserk[2] = {false, false};  // over: silver, bronze went berserk (journal events)
};

// The director's write was refused: another node holds the tournament now.
struct Fenced : StoreError {
    Fenced() : StoreError("another node directs this tournament now", false) {}
};

class TournamentDb {
  public:
    explicit TournamentDb(std::unique_ptr<SideDb> db) : db_(std::move(db)) {}

    // False when the id (or the schedule slot) is taken.
    bool create(const StoredTournament& t);
    // The tournaments of `created_by` not finished nor cancelled.
    int unfinished_by(const std::string& created_by);
    // Listed tournaments: created and running ones, then those finished since `finished_since`
    // (newest first), at most `limit`; with `viewer`, its private ones too.
    std::vector<StoredTournament> list(std::int64_t finished_since, int limit,
                                       const std::string& viewer = {});
    // The tournament with its entrants, games and byes.
    std::optional<TournamentRows> load(const std::string& id);
    // Its row alone (entering and withdrawing read no more).
    std::optional<StoredTournament> find(const std::string& id);
    bool schedule_taken(const std::string& key);

    enum class Join { Joined, Back, Already, NoSuchTournament, Over, Full };
    // Enters a player (or brings one that withdrew back), in one transaction with the checks:
    // the tournament is neither finished nor cancelled, and has room (max_players; 0: any).
    Join join(const std::string& id, const StoredEntrant& e, int max_players);
    // False when the player had not entered (or had withdrawn already).
    bool withdraw(const std::string& id, const std::string& player_id);
    // The player's rating in `category` (nullopt: none yet).
    std::optional<double> rating(const std::string& player_id, const std::string& category);

    // ---- the director ----
    // Tournaments this node may direct at `now` (created ones about to start, running ones,
    // finished ones with a game still being played): its own, and those whose director's lease
    // lapsed (or that have none).
    std::vector<std::string> directable(const std::string& node, std::int64_t now);
    // Takes (or renews) the lease until `until`: the epoch to write with, or nullopt when
    // another node's lease holds.
    std::optional<std::int64_t> claim(const std::string& id, const std::string& node,
                                      std::int64_t now, std::int64_t until);
    // The director's decisions since `before`: the phase and round, the games paired since
    // (seq from before.games.size()), the games that ended since, the byes since. Throws Fenced
    // when `node` does not hold epoch `epoch` any more; nothing is written then.
    void save(const std::string& node, std::int64_t epoch, const TournamentRows& before,
              const TournamentRows& after, std::int64_t now);
    std::optional<PairedGameState> game_state(const std::string& code);
    // No game and no pairing has this code.
    bool code_free(const std::string& code);

  private:
    std::unique_ptr<SideDb> db_;
};

std::unique_ptr<TournamentDb> open_sqlite_tournaments(const std::string& data_dir);
std::unique_ptr<TournamentDb> open_pg_tournaments(const std::string& conninfo);

}  // namespace tf::server
