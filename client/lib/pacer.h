// Paces a client's messages under the server's message credits (proto/PROTOCOL.md "Limits": a
// bucket of proto::kDefaultCreditBurst per connection, refilled proto::kDefaultCreditRate a
// second; trunkfield-server --burst and --rate). The pacer is a token bucket of its own, smaller
// and slower than the server's default one, so that messages sent when it allows are not refused
// for lack of credit even when the network bunches them up (by up to a second). A server started
// with a lower --rate or --burst refuses some anyway: slow_down() then halves the pace and gives
// up the burst. No I/O, no clock of its own: the caller passes the time.
#pragma once

#include <chrono>
#include <optional>

#include "proto/messages.h"

namespace tf::client {

class Pacer {
  public:
    using Clock = std::chrono::steady_clock;
    // Messages a second: 15 where the server refills 20.
    static constexpr double kRate = proto::kDefaultCreditRate * 3 / 4;
    // Messages at once: 20 where the server's bucket holds 40.
    static constexpr double kBurst = proto::kDefaultCreditBurst / 2;
    // slow_down() goes no lower.
    static constexpr double kMinRate = 0.5;

    explicit Pacer(double rate = kRate, double burst = kBurst);
    // How long to wait from `now` before the next message may go (zero: now).
    Clock::duration delay(Clock::time_point now);
    // Counts a message sent at `now`; call it when delay(now) is zero.
    void sent(Clock::time_point now);
    // The server refused a message for lack of credit at `now`: half the rate (not below
    // kMinRate), no burst, and the next message waits for a whole credit.
    void slow_down(Clock::time_point now);
    double rate() const { return rate_; }

  private:
    void refill(Clock::time_point now);

    double rate_, burst_, credits_;
    std::optional<Clock::time_point> refilled_;  // none yet: the bucket starts full
};

}  // namespace tf::client
