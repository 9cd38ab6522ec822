// A room owns one game: seats, the rules state, the clock, the event history and who watches.
// All state lives on the room's strand; the public methods are thread-safe because each one
// posts its work there. The room talks to connections only through Participant::deliver, and to
// the rest of the process through RoomServices (it calls them; nothing calls it back).
//
// The Room is the game's actor: each request runs as one operation on the strand, checked for
// who may ask (check_seated) and handed to its part; the work that leaves the strand (store
// reads, the computer's and the stalling judge's searches, a rematch's new room) and the timer
// are its own. Its parts, layered, each calling only those below it (docs/ARCHITECTURE.md
// "The server's parts"):
//   room_play.*: what the players do at the table (seat, setup, turn, chat, endings, offers);
//   room_recovery.*: the room and its store (replay, suspension, resumption, fencing, summary);
//   room_time.*: time and presence (deadlines, absences, the ends of a game, vacations);
//   room_core.*: the state and how word of it goes out (events, replies, lobby entries);
//   room_parts.*: the smaller parts each owning one concern's state (limits, chat, ratings,
//     deadlines, history, suspension, the computer opponent);
//   game_record.*: the game as its journal records it, every event's change in one apply();
//   room_view.*: its views (snapshot, lobby and live entries, seats, clocks);
//   room_ops.*: the operation engine (the durable outbox); room_watchers.*: subscriptions;
//   room_notices.*: the bodies of the notifications it gives.
// room.cpp has the requests, room_record.cpp restore/resume and the store reads, room_bot.cpp
// the searches off the strand.
#pragma once

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/game.h"
#include "proto/messages.h"
#include "proto/status.h"
#include "server/base/config.h"
#include "server/base/participant.h"
#include "server/room/clock.h"
#include "server/room/game_record.h"
#include "server/room/lag.h"
#include "server/room/room_core.h"
#include "server/room/room_ops.h"
#include "server/room/room_parts.h"
#include "server/room/room_play.h"
#include "server/room/room_recovery.h"
#include "server/room/room_services.h"
#include "server/room/room_time.h"
#include "server/store/store.h"

namespace tf::server {

class Room : public std::enable_shared_from_this<Room>, private RoomOps::Host {
  public:
    static constexpr std::size_t kCrowd = RoomOps::kCrowd;
    using Executor = RoomExecutor;
    using Who = std::weak_ptr<Participant>;
    using DrawAct = OfferAct;

    Room(Executor ex, std::string code, RoomParams params, Player creator, RoomServices& env);
    ~Room();
    const std::string& code() const { return c_.code; }

    // Called once after construction: stores the game, then sends `created` (if any) to `who`
    // and lists the game in the lobby if it is public. A game against the computer, or a
    // pairing's (RoomParams::opponent), is stored with both seats taken, playing.
    void open(Who who = {}, Msg created = nullptr);
    // Rebuilds an unfinished game from its stored row and journal (room_record.cpp), replaying
    // every event through the rules. Null, with `error` saying why, when it does not replay.
    // The same replay brings a suspended room back to its last saved state (load()).
    static std::shared_ptr<Room> restore(Executor ex, const StoredGame& row,
                                         const std::vector<JournalRow>& journal, RoomServices& env,
                                         std::string& error);
    // After restore(): registers the room's seats and listings again and restarts its timers.
    void resume();
    // Cluster mode, between restore() and resume(): this node owns the game from `epoch` on
    // (it claimed it, server/cluster/cluster.h); every write carries it.
    void claimed(std::int64_t epoch);
    // Cluster mode: another node owns the game now (`why` starts with kFenced): dropped here.
    void lost(std::string why);
    // `joined` (if any) is sent to `who` once the join is stored, before the snapshot. Accounts
    // that blocked one another are refused (blocked).
    void join(Player p, Who who, Msg joined = nullptr);
    void watch(Player p, Who who, std::optional<std::int64_t> since);
    void leave(const Participant* who);
    void cancel(Player p, Who who);
    // The challenged player declines a challenge (PROTOCOL.md "Challenges").
    void decline(Player p, Who who, std::string reason);
    void setup(Player p, Who who, proto::SetupMsg m);
    void turn(Player p, Who who, proto::TurnMsg m);
    // With a `ref`, the act is acked (`ack` with the ref and the act's version) once recorded.
    void resign(Player p, Who who, std::optional<std::string> ref = std::nullopt);
    void draw(Player p, Who who, DrawAct act, std::optional<std::string> ref = std::nullopt);
    void claim_win(Player p, Who who);
    // From an opponent who is stalling (RoomPlay::claim_draw); claim_win covers it too.
    void claim_draw(Player p, Who who);
    // Leaves without a result while no turn of play has been made (the setups).
    void abort(Player p, Who who);
    // A takeback request, or the answer to the opponent's (RoomPlay::takeback).
    void takeback(Player p, Who who, DrawAct act);
    // Gives the opponent proto::kGiveTimeMs more time.
    void give_time(Player p, Who who);
    // Halves the player's clock for a point more (arena games, PROTOCOL.md "Tournaments"
    // (Berserk)).
    void berserk(Player p, Who who);
    void preferences(Player p, Who who, proto::Preferences m);
    // After the game: a rematch offer (or the acceptance of the opponent's), or a decline.
    void rematch(Player p, Who who, bool decline);
    // `hidden`: a shadow-restricted author's line, seen by its author alone (Session::screen).
    void chat(Player p, Who who, std::string text, bool hidden = false,
              std::optional<std::string> ref = std::nullopt);
    // A seated player's vacation began or ended (server/social/vacations.h).
    void vacation_changed();

  private:
    using Status = proto::GameStatus;
    using Out = RoomOps::Out;

    // Every request and timer runs as one operation of the engine, on the strand (on_strand);
    // what an operation sends and journals waits in the engine until it is committed.
    template <class F>
    void on_strand(F&& f);
    // A move from a connection's handler, which does nothing after handing it over: run at
    // once when the strand is idle (net::dispatch; else queued behind what it runs), saving
    // the move one trip through the scheduler. Never nested inside the room's own handler.
    template <class F>
    void on_strand_now(F&& f);

    // RoomOps::Host
    StoredGame stored_row() const override { return c_.stored_row(); }
    void saved() override { c_.fault.saved_version = c_.rec.version; }
    void failed(const std::string& why, const std::vector<Out>& out,
                const std::vector<std::function<void()>>& after, bool creating) override {
        if (why.rfind(kFenced, 0) == 0) return fenced(why, &out);
        if (recovery_.suspend(why, out, after, creating)) reload();
    }
    void idle() override {
        maybe_bot();
        recovery_.compact();
    }
    void rated(const RateGame::Outcome& outcome) override { c_.rated(outcome); }
    std::shared_ptr<void> keep_alive() override { return shared_from_this(); }
    bool dropped() const override { return c_.fault.fenced; }

    // Checks that `p` holds a seat in a game being played, after acting on every deadline due
    // (a flag that fell refuses the late turn); the seat.
    std::optional<Side> check_seated(const Player& p, const Who& who,
                                     const std::optional<std::string>& ref = {});
    // A move of `p`'s (`same` finds it among the events) sent at `version` and applied since:
    // acknowledged again; true then.
    bool repeated(const Player& p, const Who& who, std::optional<std::int64_t> version,
                  const std::optional<std::string>& ref,
                  const std::function<bool(const proto::EventBody&)>& same);
    void join_now(const Player& p, const Who& who, const Msg& joined);
    void watch_now(const Player& p, const Who& who, std::optional<std::int64_t> since);
    void setup_now(const Player& p, const Who& who, const proto::SetupMsg& m);
    void turn_now(const Player& p, const Who& who, const proto::TurnMsg& m);

    // The timer (room_time.h): acts on every deadline that has passed (RoomTime's, then the
    // stalling judge and the recovery attempt), then re-arms; schedule() arms it for the
    // earliest deadline that can act (RoomDeadlines::next), or cancels it.
    void tick();
    void schedule();

    // The store's answers, off the strand (room_record.cpp). reload(): the saved game read back
    // after a failed commit, requests held meanwhile (RoomRecovery::reloaded). expand(): a
    // finished game kept as a summary read back whole, then `then` runs as the next operation,
    // or `failed` (the state unchanged) when it cannot be read back.
    void reload();
    void expand(std::function<void()> then, std::function<void()> failed);
    // Cluster mode: another node took the game over (RoomRecovery::fenced).
    void fenced(const std::string& why, const std::vector<Out>* unsent = nullptr);

    // room_bot.cpp: after every operation, starts the computer thinking when it is its move;
    // the stalling judge, once the side to move sat past the limit. Both search off the strand.
    void maybe_bot();
    void judge_stall();
    // A rematch accepted: its room made by the directory, then opened with both seats.
    void start_rematch();
    void rematch_made(const std::shared_ptr<Room>& next, const Player& creator, Side creator_side,
                      const std::optional<Player>& joiner);
    // Seats whose ratings this node may not have seen (a restored game, a house bot): read
    // from the store.
    void read_seat_ratings();
    void read_seat_rating(Side s);

    RoomCore c_;  // the state and its messages, for every part
    RoomTime time_;
    RoomRecovery recovery_;
    RoomPlay play_;
    RoomBot bot_;
};

template <class F>
void Room::on_strand(F&& f) {
    boost::asio::post(c_.ex, [self = shared_from_this(), f = std::forward<F>(f)]() mutable {
        self->c_.ops.run(std::move(f));
    });
}

template <class F>
void Room::on_strand_now(F&& f) {
    if (c_.ex.running_in_this_thread()) return on_strand(std::forward<F>(f));
    boost::asio::dispatch(c_.ex, [self = shared_from_this(), f = std::forward<F>(f)]() mutable {
        self->c_.ops.run(std::move(f));
    });
}

}  // namespace tf::server
