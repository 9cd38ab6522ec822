#include "server/web/vacation_api.h"

#include <boost/asio/post.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "server/base/time.h"
#include "server/social/social_service.h"
#include "server/social/vacations.h"

namespace tf::server {

namespace {

using json = nlohmann::json;

ApiResponse state_json(const VacationState& s, std::int64_t now, std::int64_t budget_ms,
                       double day_ms) {
    auto days = [&](std::int64_t ms) { return std::round(double(ms) / day_ms * 1000) / 1000; };
    return {200, "application/json",
            json{{"on", s.on},
                 {"since", s.on ? json(s.since_ms) : json(nullptr)},
                 {"budget_days", days(budget_ms)},
                 {"used_days", days(s.used_ms)},
                 {"left_days", days(s.left_ms)},
                 {"ends_at", s.on ? json(now + s.left_ms) : json(nullptr)}}
                .dump(),
            ""};
}

}  // namespace

void vacation_api(SocialService& svc, bool post, const std::string& body, const std::string& me,
                  Store::Executor ex, std::function<void(ApiResponse)> done) {
    Vacations* v = svc.vacations();
    const std::int64_t budget = v->budget_ms();
    const double day_ms = v->day_ms();
    std::optional<bool> on;
    if (post) {
        auto j = json::parse(body, nullptr, false);
        if (!j.is_object() || j.size() != 1 || !j.contains("on") || !j["on"].is_boolean())
            return boost::asio::post(ex, [done] {
                done(api_error(400, "bad_request", "send {\"on\": true} or {\"on\": false}"));
            });
        on = j["on"].get<bool>();
    }
    run_social(
        svc,
        [v, me, on, budget, day_ms](SocialDb& db) {
            const auto now = epoch_ms();
            if (!on)
                return state_json(db.vacations().vacation(me, now, budget), now, budget, day_ms);
            auto s = db.vacations().set_vacation(me, *on, now, budget);
            if (!s)
                return api_error(409, "vacation_spent",
                                 "no vacation is left this year; it comes back on 1 January");
            v->poll_now();  // this node's games at once
            return state_json(*s, now, budget, day_ms);
        },
        ex, done);
}

}  // namespace tf::server
