#include "server/room/lag.h"

#include <algorithm>

namespace tf::server {

void LagEstimate::add(Duration rtt) {
    samples_[count_ % kSamples] = std::max(Duration::zero(), rtt);
    ++count_;
}

std::optional<LagEstimate::Duration> LagEstimate::value() const {
    const int n = std::min(count_, kSamples);
    if (n == 0) return std::nullopt;
    std::array<Duration, kSamples> s = samples_;
    for (int i = 1; i < n; ++i)  // at most five: an insertion sort
        for (int j = i; j > 0 && s[std::size_t(j)] < s[std::size_t(j - 1)]; --j)
            std::swap(s[std::size_t(j)], s[std::size_t(j - 1)]);
    const auto m = std::size_t(n / 2);
    return n % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

namespace {
using std::chrono::milliseconds;
LagQuota::Duration scaled(const proto::TimeControl& tc, milliseconds full) {
    const double expected_s = (double(tc.initial_ms) + 40.0 * double(tc.increment_ms)) / 1000.0;
    // A correspondence game (days per move) is long: the whole quota.
    const double f = tc.correspondence() ? 1.0 : std::clamp(expected_s / 180.0, 0.25, 1.0);
    return std::chrono::duration_cast<LagQuota::Duration>(full * f);
}
}  // namespace

LagQuota::LagQuota(const proto::TimeControl& tc)
    : start_(scaled(tc, milliseconds(2000))),
      gain_(scaled(tc, milliseconds(1000))),
      max_(scaled(tc, milliseconds(5000))),
      per_turn_(scaled(tc, milliseconds(3000))),
      quota_{start_, start_} {}

LagQuota::Duration LagQuota::credit(Side side, Duration lag, Duration elapsed) {
    auto& q = quota_[idx(side)];
    const Duration c = std::max(Duration::zero(), std::min({lag, elapsed, q, per_turn_}));
    q = std::min(q - c + gain_, max_);
    return c;
}

}  // namespace tf::server
