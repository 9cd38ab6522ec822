// A bucket of message credits (PROTOCOL.md "Limits"): full at `burst`, refilled at `rate` a
// second, one credit a message. A connection has one (Session), and so has each account on the
// HTTP API for programs (server/web/play_api.cpp). Not thread-safe.
#pragma once

#include <algorithm>
#include <chrono>

namespace tf::server {

struct CreditBucket {
    using Clock = std::chrono::steady_clock;
    double credits;
    Clock::time_point refilled;

    CreditBucket(double burst, Clock::time_point now) : credits(burst), refilled(now) {}
    // Refills up to `now`, then takes a credit; false (nothing taken) when there was none.
    bool take(double rate, double burst, Clock::time_point now) {
        credits =
            std::min(burst, credits + std::chrono::duration<double>(now - refilled).count() * rate);
        refilled = now;
        if (credits < 1) return false;
        credits -= 1;
        return true;
    }
};

}  // namespace tf::server
