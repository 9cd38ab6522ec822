// The vacation table (vacation_db.h; schema 9): per account, the calendar year (UTC) its budget is
// counted in, the time used of it by vacations that ended, and when the running one began
// (since_ms; 0: none runs). PROTOCOL.md "Vacation".
#include <algorithm>
#include <chrono>

#include "server/store/vacation_db.h"

namespace tf::server {

namespace {

int year_of(std::int64_t ms) {
    using namespace std::chrono;
    const sys_days day = floor<days>(sys_time<milliseconds>(milliseconds(ms)));
    return int(year_month_day(day).year());
}

struct Row {
    int year = 0;
    std::int64_t used_ms = 0, since_ms = 0;
};

// The row as it stands at `now_ms`: a budget counted in an earlier year starts again at zero
// once no vacation runs (a vacation that runs over New Year counts in the year it began).
Row current(SideDb& db, const std::string& player_id, std::int64_t now_ms) {
    auto rows =
        db.exec("SELECT year, used_ms, since_ms FROM vacations WHERE player_id = $1", {player_id});
    Row r{year_of(now_ms), 0, 0};
    if (rows.empty()) return r;
    r = {int(num(rows[0][0])), num(rows[0][1]), num(rows[0][2])};
    if (r.since_ms == 0 && r.year != year_of(now_ms)) r = {year_of(now_ms), 0, 0};
    return r;
}

VacationState state_of(const Row& r, std::int64_t now_ms, std::int64_t budget_ms) {
    VacationState s;
    s.on = r.since_ms != 0;
    s.since_ms = r.since_ms;
    s.used_ms = std::min(budget_ms,
                         r.used_ms + (s.on ? std::max<std::int64_t>(0, now_ms - r.since_ms) : 0));
    s.left_ms = budget_ms - s.used_ms;
    return s;
}

}  // namespace

VacationState VacationDb::vacation(const std::string& player_id, std::int64_t now_ms,
                                   std::int64_t budget_ms) {
    return state_of(current(*db_, player_id, now_ms), now_ms, budget_ms);
}

std::optional<VacationState> VacationDb::set_vacation(const std::string& player_id, bool on,
                                                      std::int64_t now_ms, std::int64_t budget_ms) {
    std::optional<VacationState> out;
    db_->transaction([&] {
        Row r = current(*db_, player_id, now_ms);
        if (on == (r.since_ms != 0)) {
            out = state_of(r, now_ms, budget_ms);
            return;
        }
        if (on) {
            if (r.used_ms >= budget_ms) return;
            r.since_ms = now_ms;
        } else {
            r.used_ms = state_of(r, now_ms, budget_ms).used_ms;
            r.since_ms = 0;
        }
        db_->exec(
            "INSERT INTO vacations (player_id, year, used_ms, since_ms) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (player_id) DO UPDATE SET year = excluded.year, used_ms = "
            "excluded.used_ms, since_ms = excluded.since_ms",
            {player_id, std::int64_t(r.year), r.used_ms, r.since_ms});
        out = state_of(r, now_ms, budget_ms);
    });
    return out;
}

std::vector<std::string> VacationDb::vacationers(std::int64_t now_ms, std::int64_t budget_ms) {
    std::vector<std::string> out;
    db_->transaction([&] {
        db_->exec(
            "UPDATE vacations SET used_ms = $2, since_ms = 0 WHERE since_ms > 0 AND used_ms + ($1 "
            "- since_ms) >= $2",
            {now_ms, budget_ms});
        for (auto& r :
             db_->exec("SELECT player_id FROM vacations WHERE since_ms > 0 ORDER BY player_id", {}))
            out.push_back(str(r[0]));
    });
    return out;
}

}  // namespace tf::server
