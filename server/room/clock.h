// A Fischer game clock kept on the server's steady clock: time left per side, which side's
// time is running, and the increment added after each timed turn. Plain value type with no
// I/O and no timers; the room reads deadline() to arm its timer.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "common/types.h"
#include "proto/messages.h"

namespace tf::server {

using SteadyClock = std::chrono::steady_clock;
using TimePoint = SteadyClock::time_point;

// Server epoch milliseconds (system clock) of a steady-clock instant, for the wire.
std::int64_t epoch_ms(TimePoint t, TimePoint now);

class Clock {
  public:
    // `day`: the length of a day of a correspondence time control (days_per_move), whose clock
    // is per move: after each turn both sides have the whole of it again.
    explicit Clock(const proto::TimeControl& tc,
                   SteadyClock::duration day = std::chrono::hours(24));

    // Starts `s`'s time at `now`; nobody's time may be running.
    void start(Side s, TimePoint now);
    // The running side completed a turn at `now`: its elapsed time less `credit` (the lag
    // compensation, see lag.h) is deducted, the increment added, and the other side's time
    // starts.
    void press(TimePoint now, SteadyClock::duration credit = SteadyClock::duration::zero());
    // A turn made while nobody's time runs (the mover on vacation, PROTOCOL.md "Vacation"): a
    // correspondence clock gives both sides the whole time of a move again; nothing else moves.
    void pass();
    // How long the running side's time has run (zero when none runs).
    SteadyClock::duration elapsed(TimePoint now) const {
        return running_ ? now - since_ : SteadyClock::duration::zero();
    }
    // Deducts the running side's elapsed time; nobody's time runs afterwards.
    void stop(TimePoint now);
    // Sets `s`'s time to zero and stops the clock (a loss on time).
    void flag(Side s);
    // Deducts `d` from `s`'s time (not below zero).
    void charge(Side s, SteadyClock::duration d);
    // Adds `d` to `s`'s time (time given by the opponent).
    void give(Side s, SteadyClock::duration d);
    // `s` went berserk (PROTOCOL.md "Tournaments" (Berserk)): half the initial time is deducted
    // from its time (not below zero) and it gets no increment from now on.
    void berserk(Side s);
    // `s` gets no increment from now on (a berserk player's clock, restored from its reading).
    void no_increment(Side s) { no_increment_[idx(s)] = true; }
    // Puts back a reading taken earlier (reading()'s silver_ms, bronze_ms, running), with the
    // running side's time starting again at `now`: the time in between is not charged.
    void restore(std::int64_t silver_ms, std::int64_t bronze_ms, std::optional<Side> running,
                 TimePoint now);

    std::optional<Side> running() const { return running_; }
    SteadyClock::duration left(Side s, TimePoint now) const;
    // True when the running side has no time left at `now`.
    bool expired(TimePoint now) const { return running_ && left(*running_, now).count() <= 0; }
    // When the running side's time runs out; nullopt when no time is running.
    std::optional<TimePoint> deadline() const;

    // The reading at `now` (its wire form is proto's).
    proto::ClockReading reading(TimePoint now) const;

  private:
    SteadyClock::duration left_[2];
    SteadyClock::duration initial_;
    SteadyClock::duration increment_;
    bool no_increment_[2] = {false, false};  // berserk
    SteadyClock::duration per_move_;         // correspondence: the time for each move; else zero
    std::optional<Side> running_;
    TimePoint since_;  // when the running side's time started
};

}  // namespace tf::server
