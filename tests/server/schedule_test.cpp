// The operator's schedule of tournaments (server/director/schedule.h; docs/TOURNAMENTS.md
// "The operator's schedule"): the file's checks, each entry's slots in UTC, the slot's key.
#include <doctest/doctest.h>

#include <string>

#include "server/director/schedule.h"

using namespace tf::server;

namespace {

constexpr std::int64_t kMinute = 60'000;
// Monday 2026-12-07 10:10 UTC and 10:30 UTC; Sunday 2026-12-13 18:00 UTC.
constexpr std::int64_t kMon1010 = 1796638200000, kMon1030 = 1796639400000, kSun1800 = 1797184800000;

const char* kArena =
    R"({"kind": "arena", "name": "Hourly blitz", "minutes": 55,
        "time_control": {"initial_ms": 180000, "increment_ms": 2000}})";

std::string entry(const std::string& every, const std::string& at, const std::string& more = "",
                  const std::string& tournament = kArena) {
    return R"({"every": ")" + every + R"(", "at": ")" + at + "\"" + more + R"(, "tournament": )" +
           tournament + "}";
}

ScheduledTournament one(const std::string& text) {
    auto parsed = parse_schedule("[" + text + "]");
    REQUIRE(std::holds_alternative<std::vector<ScheduledTournament>>(parsed));
    return std::get<std::vector<ScheduledTournament>>(parsed).at(0);
}

std::string error_of(const std::string& text) {
    auto parsed = parse_schedule(text);
    REQUIRE(std::holds_alternative<std::string>(parsed));
    return std::get<std::string>(parsed);
}

}  // namespace

TEST_CASE("schedule: the file's entries, each checked as a request would be") {
    const auto e = one(entry("hour", ":30"));
    CHECK(e.every == ScheduledTournament::Every::Hour);
    CHECK(e.minute == 30);
    CHECK(e.announce_ms == 60 * kMinute);
    CHECK(e.name == "Hourly blitz");
    const auto w = one(entry("week", "sun 18:00", R"(, "announce_minutes": 1440)"));
    CHECK(w.weekday == 6);
    CHECK(w.minute == 18 * 60);
    CHECK(w.announce_ms == 1440 * kMinute);

    CHECK(error_of("{}").find("not a JSON array") != std::string::npos);
    CHECK(error_of("[" + entry("minute", ":30") + "]").find("entry 1: \"every\"") !=
          std::string::npos);
    CHECK(error_of("[" + entry("hour", "30") + "]").find("\"at\" must be \":MM\"") !=
          std::string::npos);
    CHECK(error_of("[" + entry("day", "25:00") + "]").find("\"HH:MM\" (UTC)") != std::string::npos);
    CHECK(error_of("[" + entry("week", "sunday 18:00") + "]").find("\"mon HH:MM\"") !=
          std::string::npos);
    CHECK(error_of("[" + entry("day", "18:00", R"(, "announce_minutes": 20000)") + "]")
              .find("announce_minutes") != std::string::npos);
    CHECK(error_of("[" + entry("day", "18:00", R"(, "color": 1)") + "]")
              .find("unknown field \"color\"") != std::string::npos);
    CHECK(error_of("[" + entry("day", "18:00", "", R"({"kind": "arena", "name": "A", "minutes": 5,
        "time_control": {"initial_ms": 60000, "increment_ms": 0}, "password": "x"})") +
                   "]")
              .find("no \"password\"") != std::string::npos);
    CHECK(error_of("[" + entry("day", "18:00", "", R"({"kind": "arena", "name": "A", "minutes": 5,
        "time_control": {"initial_ms": 60000, "increment_ms": 0}, "starts_in_s": 5})") +
                   "]")
              .find("no \"starts_in_s\"") != std::string::npos);
    // The tournament's own refusals, as POST /api/tournament's, naming the entry.
    const std::string no_minutes =
        error_of("[" + entry("day", "18:00") + ", " +
                 entry("day", "19:00", "", R"({"kind": "arena", "name": "Bee",
            "time_control": {"initial_ms": 60000, "increment_ms": 0}})") +
                 "]");
    CHECK(no_minutes.rfind("--tournament-schedule: entry 2: ", 0) == 0);
    CHECK(no_minutes.find("minutes") != std::string::npos);
    CHECK(error_of("[" + entry("day", "18:00", "", R"({"kind": "arena", "minutes": 5,
        "time_control": {"initial_ms": 60000, "increment_ms": 0}})") +
                   "]")
              .find("needs a \"name\"") != std::string::npos);
    CHECK(error_of("[" + entry("hour", ":00") + ", " + entry("day", "18:00") + "]")
              .find("entry 2: another entry has the name \"Hourly blitz\"") != std::string::npos);
}

TEST_CASE("schedule: the slot due at a time, in UTC, once within its announce time") {
    const auto hourly = one(entry("hour", ":30"));
    CHECK(due_slot(hourly, kMon1010) == kMon1030);
    CHECK(due_slot(hourly, kMon1030) == kMon1030 + 60 * kMinute);  // the next one, once started
    CHECK(due_slot(hourly, kMon1030 - 1) == kMon1030);
    const auto soon = one(entry("hour", ":30", R"(, "announce_minutes": 10)"));
    CHECK(!due_slot(soon, kMon1010));  // 20 minutes before: not announced yet
    CHECK(due_slot(soon, kMon1030 - 10 * kMinute) == kMon1030);
    const auto daily = one(entry("day", "10:30", R"(, "announce_minutes": 1440)"));
    CHECK(due_slot(daily, kMon1010) == kMon1030);
    CHECK(due_slot(daily, kMon1030) == kMon1030 + 24 * 60 * kMinute);
    const auto weekly = one(entry("week", "sun 18:00", R"(, "announce_minutes": 10080)"));
    CHECK(due_slot(weekly, kMon1010) == kSun1800);
    CHECK(due_slot(weekly, kSun1800) == kSun1800 + 7 * 24 * 60 * kMinute);
    const auto monday = one(entry("week", "mon 10:30", R"(, "announce_minutes": 60)"));
    CHECK(due_slot(monday, kMon1010) == kMon1030);
    CHECK(!due_slot(one(entry("week", "sun 18:00")), kMon1010));  // days away, announced 1 h ahead
}

TEST_CASE("schedule: a slot's key and its tournament") {
    const auto hourly = one(entry("hour", ":30"));
    CHECK(schedule_key(hourly, kMon1030) == "Hourly blitz@2026-12-07T10:30Z");
    auto spec = slot_spec(hourly, kMon1030, kMon1010);
    REQUIRE(std::holds_alternative<TournamentSpec>(spec));
    const auto& s = std::get<TournamentSpec>(spec);
    CHECK(s.starts_at == kMon1030);
    CHECK(s.minutes == 55);
    CHECK(s.clock.initial_ms == 180000);
}
