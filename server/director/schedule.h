// The operator's schedule of tournaments (docs/TOURNAMENTS.md "The operator's schedule";
// --tournament-schedule FILE): e.g. an hourly blitz arena and a weekly Swiss, made by the server
// itself ahead of their start, each slot exactly once however many nodes run (the store's
// schedule_key is unique). Pure: the file's parsing and the slots' arithmetic, in UTC.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "server/director/tournament_spec.h"

namespace tf::server {

struct ScheduledTournament {
    enum class Every { Hour, Day, Week };
    Every every = Every::Hour;
    int weekday = 0;               // Week: 0 Monday .. 6 Sunday
    int minute = 0;                // Hour: of the hour; Day, Week: of the day (UTC)
    std::int64_t announce_ms = 0;  // made (listed, open to join) this long before its start
    nlohmann::json tournament;     // POST /api/tournament's fields, without the start
    std::string name;              // the tournament's; with the slot, its schedule key
};

// The schedule file's text: a JSON array of {"every": "hour" | "day" | "week", "at": ":MM" |
// "HH:MM" | "mon HH:MM", "announce_minutes" (default 60, at most 7 days), "tournament": {...}}.
// Every tournament is checked as POST /api/tournament would (no password: the schedule's events
// are open to all; names unique). The entries, or what is wrong, naming the entry.
std::variant<std::vector<ScheduledTournament>, std::string> parse_schedule(const std::string& text);

// The start of the entry's slot to have made at `now`: the next start after `now` once within
// its announce time, else nullopt.
std::optional<std::int64_t> due_slot(const ScheduledTournament& e, std::int64_t now);
// The slot's key in the store: "NAME@2026-12-07T10:00Z".
std::string schedule_key(const ScheduledTournament& e, std::int64_t slot);
// The tournament of the slot starting at `slot`, checked at `now` (parse_spec).
std::variant<TournamentSpec, std::string> slot_spec(const ScheduledTournament& e, std::int64_t slot,
                                                    std::int64_t now);

}  // namespace tf::server
