// What the players do at the table (room_play.cpp), each request's seat already found by the
// Room (Room::check_seated: seated, the game being played, the store saving, due deadlines acted
// on first): the open seat taken, setups and turns with the clock, chat, resignation, draw
// offers, claims against an absent or stalling opponent, abort, takebacks, more time, berserk
// and the seats' preferences. It works on the core (room_core.h) and the room's time
// (room_time.h); the Room calls it. Unit tests: tests/server/room_play_test.cpp.
#pragma once

#include <optional>
#include <string>

#include "proto/messages.h"
#include "server/room/room_core.h"
#include "server/room/room_time.h"

namespace tf::server {

class RoomPlay {
  public:
    using Who = RoomCore::Who;
    using Status = proto::GameStatus;
    RoomPlay(RoomCore& c, RoomTime& t) : c_(c), t_(t) {}

    // `p` takes the open seat (the Room checked it may): the game starts. `joined` (if any) is
    // sent to `who` before the snapshot.
    void seat(const Player& p, const Who& who, const Msg& joined);
    void setup(Side side, const Who& who, const proto::SetupMsg& m);
    // `received`: when the turn reached the server (its latency is measured from then).
    void turn(Side side, const Who& who, const proto::TurnMsg& m, TimePoint received);
    // `hidden`: a shadow-restricted author's line, seen by its author alone. Checks the
    // speaker itself: a watcher may chat too.
    void chat(const Player& p, const Who& who, const std::string& text, bool hidden,
              const std::optional<std::string>& ref);
    // With a `ref`, the act is acked (`ack` with the ref and the act's version) once recorded.
    void resign(Side side, const Who& who, const std::optional<std::string>& ref);
    void draw(Side side, const Who& who, OfferAct act, const std::optional<std::string>& ref);
    void claim_win(Side side, const Who& who);
    void claim_draw(Side side, const Who& who);  // from an opponent who is stalling
    void abort(Side side, const Who& who);       // while no turn of play has been made
    // A takeback request, or the answer to the opponent's; the computer accepts at once.
    void takeback(Side side, const Who& who, OfferAct act);
    // Gives the opponent proto::kGiveTimeMs more time.
    void give_time(Side side, const Who& who);
    // Halves the player's clock for a point more (arena games).
    void berserk(Side side, const Who& who);
    void preferences(Side side, const Who& who, const proto::Preferences& m);

  private:
    void take_back(const proto::TakebackEv& ev);

    RoomCore& c_;
    RoomTime& t_;
};

}  // namespace tf::server
