#include "server/director/schedule.h"

#include <array>
#include <cstdio>
#include <ctime>
#include <set>

namespace tf::server {

using json = nlohmann::json;

namespace {

constexpr std::int64_t kMinute = 60'000, kHour = 60 * kMinute, kDay = 24 * kHour, kWeek = 7 * kDay;
constexpr std::array<const char*, 7> kDays = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};

// "HH:MM" as minutes of the day.
std::optional<int> hh_mm(const std::string& s) {
    int h = -1, m = -1;
    char tail = 0;
    if (s.size() != 5 || std::sscanf(s.c_str(), "%2d:%2d%c", &h, &m, &tail) != 2) return {};
    if (h < 0 || h > 23 || m < 0 || m > 59) return {};
    return h * 60 + m;
}

// "at" for `every`, into the entry; false when malformed.
bool read_at(ScheduledTournament& e, const std::string& at) {
    using Every = ScheduledTournament::Every;
    if (e.every == Every::Hour) {
        int m = -1;
        char tail = 0;
        if (at.size() != 3 || std::sscanf(at.c_str(), ":%2d%c", &m, &tail) != 1 || m < 0 || m > 59)
            return false;
        e.minute = m;
        return true;
    }
    std::string time = at;
    if (e.every == Every::Week) {
        if (at.size() != 9 || at[3] != ' ') return false;
        e.weekday = -1;
        for (int d = 0; d < 7; ++d)
            if (at.compare(0, 3, kDays[d]) == 0) e.weekday = d;
        if (e.weekday < 0) return false;
        time = at.substr(4);
    }
    const auto m = hh_mm(time);
    if (!m) return false;
    e.minute = *m;
    return true;
}

std::string entry_error(std::size_t i, const std::string& what) {
    return "--tournament-schedule: entry " + std::to_string(i + 1) + ": " + what;
}

}  // namespace

std::variant<std::vector<ScheduledTournament>, std::string> parse_schedule(
    const std::string& text) {
    using Every = ScheduledTournament::Every;
    const json all = json::parse(text, nullptr, false);
    if (!all.is_array())
        return std::string("--tournament-schedule: the file is not a JSON array of entries");
    std::vector<ScheduledTournament> out;
    std::set<std::string> names;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const json& j = all[i];
        if (!j.is_object()) return entry_error(i, "not a JSON object");
        for (const auto& [k, v] : j.items())
            if (k != "every" && k != "at" && k != "announce_minutes" && k != "tournament")
                return entry_error(i, "unknown field \"" + k + "\"");
        ScheduledTournament e;
        const std::string every =
            j.value("every", json()).is_string() ? j["every"].get<std::string>() : "";
        if (every == "hour")
            e.every = Every::Hour;
        else if (every == "day")
            e.every = Every::Day;
        else if (every == "week")
            e.every = Every::Week;
        else
            return entry_error(i, "\"every\" must be \"hour\", \"day\" or \"week\"");
        const std::string at = j.value("at", json()).is_string() ? j["at"].get<std::string>() : "";
        if (!read_at(e, at))
            return entry_error(i, "\"at\" must be " +
                                      std::string(e.every == Every::Hour  ? "\":MM\" (\":00\")"
                                                  : e.every == Every::Day ? "\"HH:MM\" (UTC)"
                                                                          : "\"mon HH:MM\" (UTC)"));
        const json announce = j.value("announce_minutes", json(60));
        if (!announce.is_number_integer() || announce.get<std::int64_t>() < 0 ||
            announce.get<std::int64_t>() * kMinute > kMaxStartsInMs)
            return entry_error(i, "\"announce_minutes\" must be 0 to 10080 (7 days)");
        e.announce_ms = announce.get<std::int64_t>() * kMinute;
        if (!j.contains("tournament") || !j["tournament"].is_object())
            return entry_error(i,
                               "\"tournament\" must be an object (POST /api/tournament's fields)");
        e.tournament = j["tournament"];
        for (const char* k : {"starts_at", "starts_in_s", "password"})
            if (e.tournament.contains(k))
                return entry_error(i, std::string("\"tournament\" has no \"") + k +
                                          "\" here (the schedule sets the start; its events are "
                                          "open to all)");
        // Checked as a request would be, for a slot an hour away.
        auto spec = slot_spec(e, kHour, 0);
        if (auto* err = std::get_if<std::string>(&spec)) return entry_error(i, *err);
        e.name = std::get<TournamentSpec>(spec).name;
        if (e.name.empty()) return entry_error(i, "the tournament needs a \"name\"");
        if (!names.insert(e.name).second)
            return entry_error(i, "another entry has the name \"" + e.name + "\"");
        out.push_back(std::move(e));
    }
    return out;
}

std::optional<std::int64_t> due_slot(const ScheduledTournament& e, std::int64_t now) {
    using Every = ScheduledTournament::Every;
    std::int64_t start = 0, period = 0;
    switch (e.every) {
        case Every::Hour:
            start = now / kHour * kHour + e.minute * kMinute;
            period = kHour;
            break;
        case Every::Day:
            start = now / kDay * kDay + e.minute * kMinute;
            period = kDay;
            break;
        case Every::Week: {
            const std::int64_t day = now / kDay;
            const std::int64_t monday = day - (day + 3) % 7;  // 1970-01-01 was a Thursday
            start = (monday + e.weekday) * kDay + e.minute * kMinute;
            period = kWeek;
            break;
        }
    }
    while (start <= now) start += period;
    if (start - e.announce_ms > now) return std::nullopt;
    return start;
}

std::string schedule_key(const ScheduledTournament& e, std::int64_t slot) {
    const std::time_t t = std::time_t(slot / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%MZ", &tm);
    return e.name + "@" + buf;
}

std::variant<TournamentSpec, std::string> slot_spec(const ScheduledTournament& e, std::int64_t slot,
                                                    std::int64_t now) {
    json j = e.tournament;
    j["starts_at"] = slot;
    return parse_spec(j, now);
}

}  // namespace tf::server
