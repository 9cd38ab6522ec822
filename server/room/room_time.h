// A room's time and presence (room_time.cpp): the deadlines it acts on (a clock's flag, the
// no-start limit, an away seat's award, an absent creator, retention), the seats' comings and
// goings, the ends of a game (an ending event, game_over, the seats freed), vacations in
// correspondence games and the player told it is their move, and the stalling limit. It works
// on the room's core (room_core.h) and nothing else; the Room calls it. Unit tests:
// tests/server/room_time_test.cpp.
#pragma once

#include <optional>
#include <string>

#include "proto/messages.h"
#include "server/room/room_core.h"

namespace tf::server {

class RoomTime {
  public:
    using Status = proto::GameStatus;
    explicit RoomTime(RoomCore& c) : c_(c) {}

    // What of the deadlines passed at `now` needs the Room (work off the strand, the store).
    struct Due {
        bool judge_stall = false;  // the side to move sat past the stalling limit
        bool retry = false;        // suspended: the next recovery attempt is due
    };
    // Acts on every deadline that has passed (flag, abort, award, the creator's absence,
    // the `spectators` event, a held live entry, removal).
    Due check_deadlines(TimePoint now);
    // Starts or ends a seat's grace period after its connections changed; emits the events.
    void update_presence();
    // An ending event (resignation, agreement, time, abandonment, abort, a stalling claim):
    // applied, the clock stopped and the deadlines cleared (conclude()), emitted, finish()ed.
    void end(proto::EventBody ending);
    void end_timeout(Side loser);  // the flag falls first
    // Stops the clock and clears the deadlines before the game's last event.
    void conclude();
    // Emits game_over (rated in the same write), tells absent accounts, frees the seats and
    // starts the retention period.
    void finish();
    void forget_history();
    // The open game's cancellation, by the creator, for its absence, or a challenge `declined`
    // (the reason).
    void cancel_now(std::optional<std::string> declined = std::nullopt);
    // Vacation (PROTOCOL.md "Vacation"): a seat's player went on vacation or came back
    // (env.on_vacation says which now): a `vacation` event for each seat that changed.
    void check_vacations();
    // Whose time runs given the vacations: the side to move's, unless it is on vacation (then
    // nobody's); before the first turn, the no-start limit stands while either is on vacation.
    void vacation_clock(TimePoint now);
    void notify_turn();  // after a change of the side to move (correspondence: your_turn)
    void arm_stall();    // after every change of the side to move

  private:
    RoomCore& c_;
};

}  // namespace tf::server
