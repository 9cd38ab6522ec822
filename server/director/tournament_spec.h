// A tournament as people make it (docs/TOURNAMENTS.md "Making a tournament"): the kind, the
// games' board and clock, when it starts and how long it runs, who may join. Parsed from a
// create request, kept as the store's `settings` JSON (without the password, whose hash has a
// column of its own), and the bridge between the store's rows and the tournament's decisions
// (server/tournament/tournament.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

#include "common/types.h"
#include "proto/messages.h"
#include "server/store/tournament_db.h"
#include "server/tournament/tournament.h"

namespace tf::server {

struct TournamentSpec {
    tournament::Kind kind = tournament::Kind::Arena;
    std::string name;
    Variant variant;
    proto::TimeControl clock{180'000, 2'000, 0};
    bool rated = true;
    std::int64_t starts_at = 0;  // epoch ms
    int minutes = 0;             // arena: its length
    int rounds = 0;              // Swiss
    int round_gap_s = 0;         // Swiss: the pause between rounds
    int max_players = 0;         // 0: no limit
    bool is_public = true;       // listed
    bool bots = true;            // bot accounts may join
    std::string password = {};   // only while making it; the store keeps its hash
};

// The limits of a spec (PROTOCOL.md "Tournaments").
inline constexpr int kMaxArenaMinutes = 240, kMaxRounds = 20, kMaxRoundGapS = 3600,
                     kMaxPlayers = 1000, kMaxNameLength = 40;
inline constexpr std::int64_t kMaxStartsInMs = 7LL * 24 * 3600 * 1000;
// Tournaments an account may have made that are not over yet.
inline constexpr int kMaxUnfinishedPerAccount = 2;

// A create request's JSON at `now`: the spec, or the message saying what is wrong.
std::variant<TournamentSpec, std::string> parse_spec(const nlohmann::json& j, std::int64_t now);
// The store's settings JSON, and back (nullopt: unreadable).
std::string settings_text(const TournamentSpec& s);
// The store's row of a tournament about to be made at `now` (its id and password hash are the
// maker's to set): `by` the account that makes it, or "" for the operator's schedule.
StoredTournament new_tournament(const TournamentSpec& s, const std::string& by_id,
                                const std::string& by_name, std::int64_t now);
std::optional<TournamentSpec> spec_of(const StoredTournament& t);
// The rating category its games count for (and its entrants are seeded by).
std::string category_of(const TournamentSpec& s);

// The tournament's decisions rebuilt from its rows, and the rows they make.
tournament::Tournament rebuild(const TournamentSpec& s, const TournamentRows& rows);
TournamentRows rows_of(const tournament::Tournament& t, const TournamentRows& before);

// What the API shows of a tournament: its settings and state; with `full`, the standings
// (with each player's games), the games and the byes.
nlohmann::json tournament_json(const TournamentRows& rows, const TournamentSpec& s, bool full);
// The downloadable report: the standings with their tie-breaks and every game, as plain text.
std::string tournament_report(const TournamentRows& rows, const TournamentSpec& s);

}  // namespace tf::server
