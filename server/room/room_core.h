// A room's state and how word of it goes out: what every part of a room (room.h) works on.
// The core holds the game as recorded, its parts of state (room_parts.h), the watchers, the
// clock, the operation engine (room_ops.h) and the timer; and the room's messages: events
// (emit: journaled, kept for reconnection, sent to every watcher once committed), replies,
// acks and errors, the `spectators` count, and its entries in the lobby's open and live lists.
// It runs on the room's strand and calls only the process's services (room_services.h); the
// parts above it (RoomTime, RoomPlay, RoomRecovery) and the Room call it, never the reverse but
// for `schedule`, the Room's timer. Unit tests: tests/server/room_core_test.cpp.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "proto/messages.h"
#include "proto/status.h"
#include "server/base/participant.h"
#include "server/room/clock.h"
#include "server/room/game_record.h"
#include "server/room/lag.h"
#include "server/room/room_ops.h"
#include "server/room/room_parts.h"
#include "server/room/room_services.h"
#include "server/room/room_view.h"
#include "server/room/room_watchers.h"

namespace tf::server {

class RoomCore {
  public:
    using Who = std::weak_ptr<Participant>;
    using Status = proto::GameStatus;
    using Out = RoomOps::Out;

    // A new game of `params`, `creator` in its seat; `host` is the room the engine reports to.
    RoomCore(RoomExecutor ex, std::string code, RoomParams params, Player creator,
             RoomServices& env, RoomOps::Host& host);
    ~RoomCore();
    RoomCore(const RoomCore&) = delete;
    RoomCore& operator=(const RoomCore&) = delete;

    RoomExecutor ex;
    RoomServices& env;
    Store& store;
    std::string code;
    RoomParams params;
    RoomLimits limits;
    RoomChat chat;
    SeatRatings ratings;
    RoomDeadlines due;
    Suspension fault;      // RoomRecovery's
    EventHistory history;  // for reconnection
    GameRecord rec;        // the game as its journal records it
    Watchers watchers;
    std::optional<Clock> clock;   // nullopt: untimed
    std::optional<LagQuota> lag;  // with the clock; starts afresh on a restore
    // Armed for the earliest deadline (RoomDeadlines::next) by `schedule`, the Room's
    // (Room::schedule: its handler runs the room's tick as an operation).
    boost::asio::steady_timer timer;
    std::function<void()> schedule;
    RoomOps ops;

    // What an operation leaves to run once it is committed (RoomOps::later).
    void later(std::function<void()> f) { ops.later(std::move(f)); }

    // Versioned events: serialized once, journaled, kept in the history and addressed to every
    // watcher; the live entry learns of it once committed.
    void emit(proto::EventBody body);
    // The record's change for an event the request checked (GameRecord::apply), before the
    // room's own (the clock, the deadlines) and the emit; record() when there is none.
    void apply(const proto::EventBody& body);
    void record(proto::EventBody body) {
        apply(body);
        emit(std::move(body));
    }
    void reply(const Who& who, std::string text);
    // The request `ref` is recorded: acked with the version its event takes.
    void ack(const Who& who, const std::optional<std::string>& ref);
    void fail(const Who& who, proto::Err code, std::string message,
              std::optional<std::string> ref = {}, std::optional<std::string> rule = {});
    // A decision of the record that refuses the request: told to `who`; true then.
    bool refused(const Who& who, const Decision& d, const std::optional<std::string>& ref = {});
    // Refuses a request while suspended, lost or fenced (a fenced room sends `moved`); true
    // when it was refused.
    bool refuse_unsaved(const Who& who, const std::optional<std::string>& ref = {});
    // The version unversioned messages and errors carry: while suspended, the last saved one
    // (an operation that failed may have counted a version nobody will ever see).
    std::int64_t shown_version() const {
        return rec.status == Status::Suspended ? fault.saved_version : rec.version;
    }

    // What the room shows of itself (room_view.h): snapshots, lobby and live entries, clocks.
    RoomView view() const {
        return {code, params, rec, limits, due, ratings, chat, clock, spectators()};
    }
    std::optional<proto::ClockReading> clocks(TimePoint now) const { return view().clocks(now); }
    std::string snapshot_text(bool for_spectator) const {
        return proto::to_text(view().snapshot(for_spectator, SteadyClock::now()));
    }
    // The players' `spectators` event when the count changed (server/room/room_watchers.h).
    void count_spectators();
    int spectators() const { return watchers.spectators(); }
    void tell_spectators(int count, TimePoint now);

    // The seat of the server's own computer opponent, if any (room_bot.cpp).
    std::optional<Side> bot_side() const {
        return params.bot_level ? std::optional(~params.creator_side) : std::nullopt;
    }
    // The seat has a connection to the game (or is the computer, which never leaves).
    bool present(Side s) const;
    // Correspondence games (room_time.cpp): a clock per move of days.
    bool correspondence() const {
        return params.time_control && params.time_control->correspondence();
    }
    // When the side to move must have moved: the clock's deadline, else (setups and silver's
    // first turn) the no-start limit; nullopt when neither runs.
    std::optional<TimePoint> move_deadline() const;
    // The game's row as stored after every operation, with to_move and move_by (correspondence).
    StoredGame stored_row() const;

    // An open game in the lobby (PROTOCOL.md "Open games"): listed while it is public, not a
    // quick match's, and its creator is connected or left less than --open-away-seconds ago.
    void list_open();
    void left_open();  // no longer open: its place under the open-game limits goes
    // The entry of a public game in the lobby's live list, sent after `what`
    // (an event kind, "watch" or "leave") changed the room; turns are coalesced.
    void update_live(std::string_view what);
    // The challenger is told what became of the challenge (`kind`: challenge_accepted or
    // challenge_declined).
    void notify_challenger(const char* kind, nlohmann::json extra);

    // Ratings: `s`'s rating as the game began, from the process's book.
    void note_rating(Side s);
    // The store applied a rated game's result with its end: everyone watching hears the
    // changes (an unversioned event; the snapshot of the finished game carries them too).
    void rated(const RateGame::Outcome& outcome);
};

}  // namespace tf::server
