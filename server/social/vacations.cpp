#include "server/social/vacations.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <utility>
#include <vector>

#include "server/base/time.h"

namespace tf::server {

Vacations::Vacations(SocialService& svc, Store::Executor ex, std::chrono::milliseconds poll,
                     std::int64_t budget_ms, double day_ms, Changed changed,
                     std::function<void()> known)
    : svc_(svc),
      ex_(ex),
      timer_(ex),
      every_(poll),
      budget_ms_(budget_ms),
      day_ms_(day_ms),
      changed_(std::move(changed)),
      known_(std::move(known)) {}

void Vacations::stop() {
    boost::asio::post(ex_, [self = shared_from_this()] {
        self->stopped_ = true;
        self->timer_.cancel();
    });
}

void Vacations::poll_now() {
    boost::asio::post(ex_, [self = shared_from_this()] { self->read(); });
}

std::optional<bool> Vacations::on(const std::string& player_id) const {
    std::lock_guard lock(m_);
    if (!read_once_) return std::nullopt;
    return on_.count(player_id) != 0;
}

void Vacations::poll() {
    if (stopped_) return;
    read();
    timer_.expires_after(every_);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (!ec) self->poll();
    });
}

// One read at a time; a read asked for meanwhile follows it.
void Vacations::read() {
    if (stopped_) return;
    if (reading_) {
        again_ = true;
        return;
    }
    reading_ = true;
    const auto budget = budget_ms_;
    svc_.run<std::vector<std::string>>(
        [budget](SocialDb& db) { return db.vacations().vacationers(epoch_ms(), budget); }, ex_,
        [self = shared_from_this()](Read<std::vector<std::string>> r) {
            self->reading_ = false;
            if (r.ok())
                self->got(std::set<std::string>(r.value->begin(), r.value->end()));
            else
                spdlog::warn("vacations: cannot read them ({}); next poll", r.error);
            if (std::exchange(self->again_, false)) self->read();
        },
        false);
}

void Vacations::got(std::set<std::string> now_on) {
    std::vector<std::string> changed;
    bool first = false;
    {
        std::lock_guard lock(m_);
        first = !std::exchange(read_once_, true);
        for (const auto& p : now_on)
            if (!on_.count(p)) changed.push_back(p);
        for (const auto& p : on_)
            if (!now_on.count(p)) changed.push_back(p);
        on_ = std::move(now_on);
    }
    if (first) {
        spdlog::info("vacations: {} player(s) on vacation", on_.size());
        return known_();
    }
    for (const auto& p : changed) {
        spdlog::info("vacations: player {} {}", p, *on(p) ? "is on vacation" : "is back");
        changed_(p);
    }
}

}  // namespace tf::server
