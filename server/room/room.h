// A room owns one game: seats, the rules state, the clock, the event history and who watches.
// All state lives on the room's strand; the public methods are thread-safe because each one
// posts its work there. The room talks to connections only through Participant::deliver, and to
// the rest of the process through RoomServices (it calls them; nothing calls it back).
//
// Its parts, each in a file (docs/ARCHITECTURE.md "The server's parts"):
//   room.cpp: seats, watchers and play (join, watch, setup, turn, chat);
//   room_endings.cpp: resign, draw offers, claim_win;
//   room_takeback.cpp: takebacks, more time and the seats' preferences for them;
//   room_stalling.cpp: a player sitting in a lost position, and the claims against it;
//   room_timers.cpp: time and presence (clock flag, no-start abort, disconnect grace and
//     abandonment, retention of finished games) and the ends of a game;
//   room_view.*: its views (snapshot, lobby and live entries, seats, clocks); room_live.cpp:
//     its place in the lobby's live list;
//   game_record.*: the game as its journal records it (seats, status, rules state, versions,
//     offers, preferences), every event's change in one apply() that play and replay share;
//   room_record.cpp: a room rebuilt from its stored row and journal (restore, load);
//   room_faults.cpp: suspension when the store fails, and resumption;
//   room_summary.cpp: a finished game kept as a summary, its state read back for late watchers;
//   room_bot.cpp: the server's computer opponent;
//   room_notices.*: the bodies of the notifications it gives (challenge, your_turn, game_over);
//   room_ops.*: the operation engine (the durable outbox);
//   room_watchers.*: subscriptions, the spectator count and its pace.
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
#include "server/room/room_ops.h"
#include "server/room/room_parts.h"
#include "server/room/room_services.h"
#include "server/room/room_view.h"
#include "server/room/room_watchers.h"
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
    const std::string& code() const { return code_; }

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
    // From an opponent who is stalling (room_stalling.cpp); claim_win covers it too.
    void claim_draw(Player p, Who who);
    // Leaves without a result while no turn of play has been made (the setups).
    void abort(Player p, Who who);
    // A takeback request, or the answer to the opponent's (room_takeback.cpp).
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

    // Every request and timer runs as one operation of the engine, on the strand (on_strand);
    // what an operation sends and journals waits in the engine until it is committed.
    template <class F>
    void on_strand(F&& f);
    // A move from a connection's handler, which does nothing after handing it over: run at
    // once when the strand is idle (net::dispatch; else queued behind what it runs), saving
    // the move one trip through the scheduler. Never nested inside the room's own handler.
    template <class F>
    void on_strand_now(F&& f);
    using Out = RoomOps::Out;
    void later(std::function<void()> f) { ops_.later(std::move(f)); }
    // RoomOps::Host
    StoredGame stored_row() const override;  // with to_move and move_by (correspondence)
    void saved() override { fault_.saved_version = rec_.version; }
    void failed(const std::string& why, const std::vector<Out>& out,
                const std::vector<std::function<void()>>& after, bool creating) override {
        if (why.rfind(kFenced, 0) == 0) return fenced(why, &out);
        suspend(why, out, after, creating);
    }
    void idle() override {
        maybe_bot();
        maybe_compact();
    }
    void rated(const RateGame::Outcome& outcome) override;
    std::shared_ptr<void> keep_alive() override { return shared_from_this(); }
    bool dropped() const override { return fault_.fenced; }
    void ack(const Who& who, const std::optional<std::string>& ref);

    // Store faults (room_faults.cpp; docs/ARCHITECTURE.md "Failures"). A failed commit suspends
    // the room: nothing of the operation is sent, everyone watching gets one store_failed, the
    // room reloads its last saved state from the store (reload(): requests wait meanwhile) and
    // stays paused, clocks stopped, until the store is healthy again; then it resumes where it
    // was saved and sends everyone a fresh snapshot. A game whose creation failed is dropped.
    void suspend(const std::string& why, const std::vector<Out>& out,
                 const std::vector<std::function<void()>>& after, bool creating);
    // A failed commit's fate is learnt from the store before anyone is told (Suspension::Doubt).
    void settle_doubt(std::optional<bool> saved);
    // Cluster mode: another node took the game over (this one stalled past its lease); the
    // write was refused, nothing of it is sent, and this node drops the game: its watchers
    // are told it moved (Participant::moved) and it leaves the directory. So is whoever waits
    // for an ack among `unsent` (the refused operation's messages: a request of a connection
    // that does not watch the game would otherwise wait for an answer that never comes).
    void fenced(const std::string& why, const std::vector<Out>* unsent = nullptr);
    void cancel_in_doubt();  // a creation that failed: its row cancelled, should it exist
    void reload();
    void reloaded(Read<std::optional<GameRows>> read);
    void try_resume();  // the recovery timer: resumes once the store is healthy
    // Resets the game to `row` and `journal` replayed through the rules; false (and `error`)
    // when they do not replay or disagree.
    bool load(const StoredGame& row, const std::vector<JournalRow>& journal, std::string& error);
    // Refuses a request while suspended (or lost); true when it was refused.
    bool refuse_unsaved(const Who& who, const std::optional<std::string>& ref = {});

    // room_bot.cpp: the server's own computer opponent in the seat opposite the creator.
    std::optional<Side> bot_side() const { return bot_.side(); }
    // After every operation: starts the bot thinking when it is its move (off the strand).
    void maybe_bot();
    void watch_now(const Player& p, const Who& who, std::optional<std::int64_t> since);
    void setup_now(const Player& p, const Who& who, const proto::SetupMsg& m);
    void turn_now(const Player& p, const Who& who, const proto::TurnMsg& m);

    void reply(const Who& who, std::string text);
    void fail(const Who& who, proto::Err code, std::string message,
              std::optional<std::string> ref = {}, std::optional<std::string> rule = {});
    // A decision of the record that refuses the request: told to `who`; true then.
    bool refused(const Who& who, const Decision& d, const std::optional<std::string>& ref = {});
    // Checks that `p` holds a seat in a game being played; the seat.
    std::optional<Side> check_seated(const Player& p, const Who& who,
                                     const std::optional<std::string>& ref = {});
    // A move of `p`'s (`same` finds it among the events) sent at `version` and applied since:
    // acknowledged again; true then.
    bool repeated(const Player& p, const Who& who, std::optional<std::int64_t> version,
                  const std::optional<std::string>& ref,
                  const std::function<bool(const proto::EventBody&)>& same);
    // Versioned events: serialized once, journaled, kept in the history and addressed to every
    // watcher (room.cpp).
    void emit(proto::EventBody body);
    // The record's change for an event the request checked (GameRecord::apply), before the
    // room's own (the clock, the deadlines) and the emit; record() when there is none.
    void apply(const proto::EventBody& body);
    void record(proto::EventBody body) {
        apply(body);
        emit(std::move(body));
    }
    // The version unversioned messages and errors carry: while suspended, the last saved one
    // (an operation that failed may have counted a version nobody will ever see).
    std::int64_t shown_version() const {
        return rec_.status == Status::Suspended ? fault_.saved_version : rec_.version;
    }

    // room_summary.cpp. Once a finished game's end (and whatever followed it) is committed to a
    // store that can give it back, the room drops what the journal rebuilds (the rules state,
    // setups, turns, history) and keeps a summary: params, seats, status and result, versions,
    // clocks, ratings, rematch state, chat log (spectators' lines are not stored), timers and
    // watchers. Anything that needs the full state (a snapshot, a catch-up behind the final
    // version) first reads it back: expand().
    void maybe_compact();  // after every operation (idle), when nothing is in flight
    // Holds the room's operations, reads the game back from the store (off the strand) and
    // replays it as load() does; then runs `then` as the next operation, or `failed` (the state
    // unchanged, still a summary) when it cannot be read back.
    void expand(std::function<void()> then, std::function<void()> failed);
    bool expanded(const Read<std::optional<GameRows>>& read);

    // room_timers.cpp
    // Acts on every deadline that has passed (flag, abort, award, removal), then re-arms.
    void tick();
    void check_deadlines(TimePoint now);
    void schedule();
    bool present(Side s) const;
    // Starts or ends a seat's grace period after its connections changed; emits the events.
    void update_presence();
    // An ending event (resignation, agreement, time, abandonment, abort, a stalling claim):
    // applied, the clock stopped and the deadlines cleared (conclude()), emitted, finish()ed.
    void end(proto::EventBody ending);
    void end_timeout(Side loser);  // the flag falls first
    // Stops the clock and clears the deadlines before the game's last event.
    void conclude();
    // Emits game_over, frees the seats and starts the retention period.
    void finish();
    void forget_history();

    // An open game in the lobby (PROTOCOL.md "Open games"): listed while it is public, not a
    // quick match's, and its creator is connected or left less than --open-away-seconds ago;
    // cancelled once the creator has been away --open-cancel-seconds (room_timers.cpp).
    void list_open();
    void left_open();  // no longer open: its place under the open-game limits goes
    // The cancellation, by the creator, for its absence, or a challenge `declined` (the reason).
    void cancel_now(std::optional<std::string> declined = std::nullopt);
    void join_now(const Player& p, const Who& who, const Msg& joined);
    void notify_challenger(const char* kind, nlohmann::json extra);

    // Correspondence games (room_correspondence.cpp): a clock per move of days; no disconnect
    // claims, stalling or quick cancel of the open game; the player to move, away, is told.
    bool correspondence() const {
        return params_.time_control && params_.time_control->correspondence();
    }
    // When the side to move must have moved: the clock's deadline, else (setups and silver's
    // first turn) the no-start limit; nullopt when neither runs.
    std::optional<TimePoint> move_deadline() const;
    void notify_turn();  // after a change of the side to move
    // Vacation (PROTOCOL.md "Vacation"): a seat's player went on vacation or came back
    // (env_.on_vacation says which now): a `vacation` event for each seat that changed.
    void check_vacations();
    // Whose time runs given the vacations: the side to move's, unless it is on vacation (then
    // nobody's); before the first turn, the no-start limit stands while either is on vacation.
    void vacation_clock(TimePoint now);

    // room_live.cpp: the entry of a public game in the lobby's live list, sent after `what`
    // (an event kind, "watch" or "leave") changed the room; turns are coalesced.
    void update_live(std::string_view what);

    // Ratings (room_endings.cpp): the category of a rated game, each seat's rating as the game
    // began (from the process's book; read from the store for a game restored at start), and
    // the changes once the store applied them with the game's end.
    void note_rating(Side s);  // ratings_.seat from the book
    void read_seat_ratings();  // after a restore
    void read_seat_rating(Side s);

    // What the room shows of itself (room_view.h): snapshots, lobby and live entries, clocks.
    RoomView view() const {
        return {code_, params_, rec_, limits_, due_, ratings_, chat_, clock_, spectators()};
    }
    std::optional<proto::ClockReading> clocks(TimePoint now) const { return view().clocks(now); }
    std::string snapshot_text(bool for_spectator) const {
        return proto::to_text(view().snapshot(for_spectator, SteadyClock::now()));
    }
    // The players' `spectators` event when the count changed (server/room/room_watchers.h).
    void count_spectators();
    int spectators() const { return watchers_.spectators(); }
    void tell_spectators(int count, TimePoint now);

    Executor ex_;
    RoomServices& env_;
    Store& store_;
    std::string code_;
    RoomParams params_;
    // Its parts (room_parts.h).
    RoomLimits limits_;
    RoomChat chat_;
    SeatRatings ratings_;
    RoomDeadlines due_;
    Suspension fault_;      // see suspend()
    EventHistory history_;  // for reconnection

    GameRecord rec_;  // the game as its journal records it
    Watchers watchers_;

    std::optional<Clock> clock_;   // nullopt: untimed
    std::optional<LagQuota> lag_;  // with the clock; starts afresh on a restore
    // room_takeback.cpp
    void take_back(const proto::TakebackEv& ev);
    // room_stalling.cpp
    void arm_stall();    // after every change of the side to move
    void judge_stall();  // the limit passed: the bot judges the position (off the strand)
    void start_rematch();
    void rematch_made(const std::shared_ptr<Room>& next, const Player& creator, Side creator_side,
                      const std::optional<Player>& joiner);
    boost::asio::steady_timer timer_;

    RoomOps ops_;
    RoomBot bot_;
};

template <class F>
void Room::on_strand(F&& f) {
    boost::asio::post(ex_, [self = shared_from_this(), f = std::forward<F>(f)]() mutable {
        self->ops_.run(std::move(f));
    });
}

template <class F>
void Room::on_strand_now(F&& f) {
    if (ex_.running_in_this_thread()) return on_strand(std::forward<F>(f));
    boost::asio::dispatch(ex_, [self = shared_from_this(), f = std::forward<F>(f)]() mutable {
        self->ops_.run(std::move(f));
    });
}

}  // namespace tf::server
