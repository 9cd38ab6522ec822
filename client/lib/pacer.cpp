#include "client/lib/pacer.h"

#include <algorithm>

namespace tf::client {

Pacer::Pacer(double rate, double burst) : rate_(rate), burst_(burst), credits_(burst) {}

void Pacer::refill(Clock::time_point now) {
    if (refilled_ && now > *refilled_)
        credits_ = std::min(
            burst_, credits_ + std::chrono::duration<double>(now - *refilled_).count() * rate_);
    if (!refilled_ || now > *refilled_) refilled_ = now;
}

namespace {
// Rounding of the refill in floating point: a credit short of this much is whole, or waiting
// out a delay() could leave a nanosecond more to wait.
constexpr double kRounding = 1e-6;
}  // namespace

Pacer::Clock::duration Pacer::delay(Clock::time_point now) {
    refill(now);
    if (credits_ >= 1 - kRounding) return Clock::duration::zero();
    // Rounded up: after waiting this long a whole credit is there.
    return std::chrono::ceil<Clock::duration>(
        std::chrono::duration<double>((1 - credits_) / rate_));
}

void Pacer::sent(Clock::time_point now) {
    refill(now);
    credits_ -= 1;
}

void Pacer::slow_down(Clock::time_point now) {
    refill(now);
    rate_ = std::max(kMinRate, rate_ / 2);
    burst_ = 1;
    credits_ = std::min(credits_, 0.0);
}

}  // namespace tf::client
