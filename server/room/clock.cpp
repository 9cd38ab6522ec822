#include "server/room/clock.h"

#include <algorithm>
#include <cassert>

namespace tf::server {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

std::int64_t epoch_ms(TimePoint t, TimePoint now) {
    auto wall = std::chrono::system_clock::now() +
                duration_cast<std::chrono::system_clock::duration>(t - now);
    return duration_cast<milliseconds>(wall.time_since_epoch()).count();
}

Clock::Clock(const proto::TimeControl& tc, SteadyClock::duration day)
    : left_{milliseconds(tc.initial_ms), milliseconds(tc.initial_ms)},
      initial_(milliseconds(tc.initial_ms)),
      increment_(milliseconds(tc.increment_ms)),
      per_move_(tc.days_per_move * day) {
    if (per_move_ > SteadyClock::duration::zero()) left_[0] = left_[1] = per_move_;
}

void Clock::start(Side s, TimePoint now) {
    assert(!running_);
    running_ = s;
    since_ = now;
}

void Clock::press(TimePoint now, SteadyClock::duration credit) {
    assert(running_);
    Side s = *running_;
    since_ += std::clamp(credit, SteadyClock::duration::zero(), now - since_);
    stop(now);
    if (!no_increment_[idx(s)]) left_[idx(s)] += increment_;
    if (per_move_ > SteadyClock::duration::zero()) left_[0] = left_[1] = per_move_;
    start(~s, now);
}

void Clock::pass() {
    assert(!running_);
    if (per_move_ > SteadyClock::duration::zero()) left_[0] = left_[1] = per_move_;
}

void Clock::stop(TimePoint now) {
    if (!running_) return;
    auto& l = left_[idx(*running_)];
    l = std::max(SteadyClock::duration::zero(), l - (now - since_));
    running_.reset();
}

void Clock::flag(Side s) {
    running_.reset();
    left_[idx(s)] = SteadyClock::duration::zero();
}

void Clock::charge(Side s, SteadyClock::duration d) {
    left_[idx(s)] = std::max(SteadyClock::duration::zero(), left_[idx(s)] - d);
}

void Clock::berserk(Side s) {
    charge(s, initial_ / 2);
    no_increment(s);
}

void Clock::give(Side s, SteadyClock::duration d) {
    left_[idx(s)] += d;
}

void Clock::restore(std::int64_t silver_ms, std::int64_t bronze_ms, std::optional<Side> running,
                    TimePoint now) {
    left_[0] = milliseconds(silver_ms);
    left_[1] = milliseconds(bronze_ms);
    running_ = running;
    since_ = now;
}

SteadyClock::duration Clock::left(Side s, TimePoint now) const {
    auto l = left_[idx(s)];
    if (running_ == s) l -= now - since_;
    return l;
}

std::optional<TimePoint> Clock::deadline() const {
    if (!running_) return std::nullopt;
    return since_ + left_[idx(*running_)];
}

proto::ClockReading Clock::reading(TimePoint now) const {
    auto ms = [&](Side s) {
        return std::max<std::int64_t>(0, duration_cast<milliseconds>(left(s, now)).count());
    };
    return {ms(Side::Silver), ms(Side::Bronze), running_, epoch_ms(now, now)};
}

}  // namespace tf::server
