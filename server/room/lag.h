// Lag compensation (PROTOCOL.md "Time", "Lag"): a timed game credits each mover the network
// transit of the turn, as lichess's LagTracker does, so a player far from the server does not
// pay the round trip on every move. Two value types, no I/O:
// - LagEstimate: one connection's round-trip time, the median of its last samples (WebSocket
//   ping frames the server sends and the browser answers by itself);
// - LagQuota: per player and game, the most that may still be credited. It starts with a
//   little, grows with every turn and is capped, so a client that lies about its lag (a TCP
//   client's `lag_ms`, or pongs held back on purpose) gains at most what the quota allows.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

#include "common/types.h"
#include "proto/messages.h"

namespace tf::server {

class LagEstimate {
  public:
    using Duration = std::chrono::microseconds;
    void add(Duration rtt);
    // The median of the last kSamples samples (of fewer when fewer came); nullopt before any.
    std::optional<Duration> value() const;

  private:
    static constexpr int kSamples = 5;
    std::array<Duration, kSamples> samples_{};
    int count_ = 0;  // samples ever added
};

class LagQuota {
  public:
    using Duration = std::chrono::steady_clock::duration;
    // The figures scale with the game's expected length (initial + 40 × increment): for three
    // minutes and more, start 2 s, +1 s per turn, at most 5 s banked and 3 s per turn; shorter
    // games get proportionally less, down to a quarter.
    explicit LagQuota(const proto::TimeControl& tc);

    // The credit for `side`'s turn: its lag (the round trip its connection reported or the
    // server measured), never more than the time the turn took, the quota or the per-turn cap.
    // The quota then loses the credit and gains the per-turn allowance.
    Duration credit(Side side, Duration lag, Duration elapsed);
    Duration quota(Side side) const { return quota_[idx(side)]; }

    Duration start() const { return start_; }
    Duration gain() const { return gain_; }
    Duration max() const { return max_; }
    Duration per_turn() const { return per_turn_; }

  private:
    Duration start_, gain_, max_, per_turn_;
    std::array<Duration, 2> quota_;
};

}  // namespace tf::server
