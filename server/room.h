// A room owns one game: seats, the rules state, the clock, the event history and who watches.
// All state lives on the room's strand; the public methods are thread-safe because each one
// posts its work there. The room talks to connections only through Participant::deliver.
//
// room.cpp: seats, watchers and play (join, watch, setup, turn, chat).
// room_endings.cpp: resign, draw offers, claim_win.
// room_timers.cpp: everything driven by time or presence (clock flag, no-start abort,
//   disconnect grace and abandonment, retention of finished games) and the ends of a game.
// room_snapshot.cpp: the room's views of itself (snapshot, lobby entry, clocks).
// room_store.cpp: durability (every event is committed to the store before anyone sees it) and
//   rebuilding a room from its journal after a restart.
#pragma once

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
#include "server/clock.h"
#include "server/config.h"
#include "server/participant.h"
#include "server/room_services.h"
#include "server/store.h"

namespace tf::server {

struct RoomParams {
    Variant variant;
    std::optional<proto::TimeControl> time_control;
    bool is_public = true;
    Side creator_side = Side::Silver;
    bool quick_match = false;      // paired by the lobby: never in the open-games list
    std::optional<int> bot_level;  // a computer opponent of this level holds the other seat
};

class Room : public std::enable_shared_from_this<Room> {
  public:
    // At or above this many messages for spectators in one operation, they go out in a handler
    // of their own after the players' (room_store.cpp).
    static constexpr std::size_t kCrowd = 64;
    using Executor = boost::asio::strand<boost::asio::io_context::executor_type>;
    using Who = std::weak_ptr<Participant>;
    enum class DrawAct { Offer, Accept, Decline };

    Room(Executor ex, std::string code, RoomParams params, Player creator, RoomServices& env);
    ~Room();
    const std::string& code() const { return code_; }

    // Called once after construction: stores the game, then sends `created` (if any) to `who`
    // and lists the game in the lobby if it is public.
    void open(Who who = {}, Msg created = nullptr);
    // Rebuilds an unfinished game from its stored row and journal (room_store.cpp), replaying
    // every event through the rules. Null, with `error` saying why, when it does not replay.
    // The same replay brings a suspended room back to its last saved state (load()).
    static std::shared_ptr<Room> restore(Executor ex, const StoredGame& row,
                                         const std::vector<JournalRow>& journal, RoomServices& env,
                                         std::string& error);
    // After restore(): registers the room's seats and listings again and restarts its timers.
    void resume();
    // `joined` (if any) is sent to `who` once the join is stored, before the snapshot.
    void join(Player p, Who who, Msg joined = nullptr);
    void watch(Player p, Who who, std::optional<std::int64_t> since);
    void leave(const Participant* who);
    void cancel(Player p, Who who);
    void setup(Player p, Who who, proto::SetupMsg m);
    void turn(Player p, Who who, proto::TurnMsg m);
    void resign(Player p, Who who);
    void draw(Player p, Who who, DrawAct act);
    void claim_win(Player p, Who who);
    void chat(Player p, Who who, std::string text);

  private:
    using Status = proto::GameStatus;
    struct Sub {
        Who who;
        std::string player_id;
    };
    using Subs = std::map<const Participant*, Sub>;

    // Every request and timer runs as one operation on the strand (on_strand). What an operation
    // sends waits in the outbox; its events are committed to the store first (end_op), and
    // operations arriving meanwhile wait their turn, so nobody ever sees an uncommitted event.
    template <class F>
    void on_strand(F&& f);
    void run_op(std::function<void()> f);
    void end_op();
    struct Out {
        Who to;
        Msg msg;
        bool crowd = false;  // to a subscriber without a seat (see committed())
        std::optional<std::optional<std::string>> ack = {};  // an ack with its ref (suspend())
    };

    using After = std::vector<std::function<void()>>;
    void committed(const std::optional<std::string>& error, std::vector<Out>& out, After& after);
    // Hands the messages to their participants, a crowd's after the players' (committed()).
    void deliver(std::vector<Out>& out);
    // Runs the operations that waited for a commit or a reload, while none is in flight.
    void drain_waiting();
    // Runs `f` once the current operation is committed (lobby changes), or at once if nothing
    // needs committing.
    void later(std::function<void()> f) { after_.push_back(std::move(f)); }
    void ack(const Who& who, const std::optional<std::string>& ref);

    // Store faults (room_store.cpp; docs/ARCHITECTURE.md "Failures"). A failed commit suspends
    // the room: nothing of the operation is sent, everyone watching gets one store_failed, the
    // room reloads its last saved state from the store (reload(): requests wait meanwhile) and
    // stays paused, clocks stopped, until the store is healthy again; then it resumes where it
    // was saved and sends everyone a fresh snapshot. A game whose creation failed is dropped.
    void suspend(const std::string& why, const std::vector<Out>& out);
    void reload();
    void reloaded(Read<std::optional<GameRows>> read);
    void try_resume();  // the recovery timer: resumes once the store is healthy
    // Resets the game to `row` and `journal` replayed through the rules; false (and `error`)
    // when they do not replay or disagree.
    bool load(const StoredGame& row, const std::vector<JournalRow>& journal, std::string& error);
    struct Replayer;  // one journaled event into the state (room_store.cpp)
    // Refuses a request while suspended (or lost); true when it was refused.
    bool refuse_unsaved(const Who& who, const std::optional<std::string>& ref = {});
    StoredGame stored_row() const;

    // room_bot.cpp: the server's own computer opponent in the seat opposite the creator.
    std::optional<Side> bot_side() const;
    // After every operation: starts the bot thinking when it is its move (off the strand).
    void maybe_bot();
    void setup_now(const Player& p, const Who& who, const proto::SetupMsg& m);
    void turn_now(const Player& p, const Who& who, const proto::TurnMsg& m);

    std::optional<Side> seat_of(const std::string& player_id) const;
    // subs_ changes only through these three, which keep spectators_ (room_snapshot.cpp).
    void subscribe(const Player& p, const Who& who);
    Subs::iterator unsubscribe(Subs::iterator it);
    void recount_spectators();  // after a seat was filled
    void reply(const Who& who, std::string text);
    void fail(const Who& who, proto::Err code, std::string message,
              std::optional<std::string> ref = {}, std::optional<std::string> rule = {});
    // Checks that `p` holds a seat in a game being played; the seat.
    std::optional<Side> check_seated(const Player& p, const Who& who,
                                     const std::optional<std::string>& ref = {});
    // Also checks that it is `p`'s seat to move and that `version` is not stale.
    std::optional<Side> check_mover(const Player& p, const Who& who,
                                    const std::optional<std::string>& ref,
                                    std::optional<std::int64_t> version);
    // Versioned events: serialized once, journaled, kept in the history and addressed to every
    // watcher (room.cpp).
    void emit(proto::EventBody body);
    bool started() const { return !turns_.empty(); }

    // room_timers.cpp
    // Acts on every deadline that has passed (flag, abort, award, removal), then re-arms.
    void tick();
    void check_deadlines(TimePoint now);
    void schedule();
    bool present(Side s) const;
    // Starts or ends a seat's grace period after its connections changed; emits the events.
    void update_presence();
    void end_timeout(Side loser);
    void end_abandon(Side loser, bool claimed);
    void end_abort(proto::AbortReason why);
    // Stops the clock and clears pending offers and deadlines before the ending event.
    void conclude();
    // Emits game_over, frees the seats and starts the retention period.
    void finish();

    // room_live.cpp: the entry of a public game in the lobby's live list, sent after `what`
    // (an event kind, "watch" or "leave") changed the room; turns are coalesced.
    void update_live(std::string_view what);
    proto::LiveGame live_entry() const;
    std::optional<TimePoint> live_flush_at_;  // the lobby holds a change of ours back until then

    // room_snapshot.cpp
    proto::OpenGame lobby_entry() const;
    std::optional<proto::Seat> seat_view(Side s, TimePoint now) const;
    std::optional<proto::ClockReading> clocks(TimePoint now) const;
    proto::Result result() const;
    static proto::PlayerRef ref(const Player& p) { return {p.id, p.name}; }
    proto::SnapshotMsg snapshot() const;
    // Subscriptions of connections whose player holds no seat (a player watching from a second
    // connection is not a spectator); counted as subs_ changes, not scanned (live_entry() reads
    // it after every event).
    int spectators() const;
    int scan_spectators() const;          // the same, counted the slow way (recount, debug checks)
    void count_spectators();              // reports this room's spectators to the metrics
    void tell_spectators(TimePoint now);  // the `spectators` event to the players, if changed

    Executor ex_;
    RoomServices& env_;
    Store& store_;
    std::string code_;
    RoomParams params_;
    std::size_t history_limit_;
    SteadyClock::duration grace_, award_, start_timeout_, retention_, chat_window_;
    SteadyClock::duration spectators_interval_;  // --live-interval-ms
    int chat_lines_;

    Status status_ = Status::Open;
    Game game_;
    std::optional<Player> seats_[2];
    std::optional<Setup> setups_[2];
    std::vector<Turn> turns_;
    std::int64_t version_ = 0;        // last event of any kind
    std::int64_t state_version_ = 0;  // last event that changed the game
    std::deque<std::pair<std::int64_t, Msg>> history_;
    Subs subs_;
    int spectators_ = 0;  // see spectators()

    std::optional<Clock> clock_;               // nullopt: untimed
    std::optional<TimePoint> start_deadline_;  // until silver's first turn
    std::optional<TimePoint> away_since_[2];   // a seat without any connection
    std::optional<TimePoint> remove_at_;       // a finished game leaves memory then
    std::optional<Side> draw_offer_;           // the side whose offer stands
    bool offered_[2] = {false, false};         // offered since that side's last turn
    std::map<std::string, std::deque<TimePoint>> chat_times_;  // per player id
    boost::asio::steady_timer timer_;

    std::int64_t created_ms_ = 0, finished_ms_ = 0;  // epoch ms
    bool committing_ = false;  // a commit (or a reload after a failure) is in flight
    bool creating_ = false;    // ... and it inserts the game
    // Faults: see suspend().
    bool lost_ = false;   // the game's creation failed: it exists nowhere
    bool loaded_ = true;  // the state is the store's (false until a reload worked)
    Status resume_status_ = Status::Playing;  // the saved status, restored by try_resume()
    std::optional<Side> resume_running_;      // whose time runs again at the resumption
    std::int64_t saved_version_ = 0;          // the last committed version
    std::int64_t suspended_ms_ = 0;           // epoch ms of the failure
    std::int64_t last_clock_at_ms_ = 0;       // `at` of the last saved clock reading
    std::optional<TimePoint> suspended_at_;
    std::optional<TimePoint> recover_at_;  // the next recovery attempt
    SteadyClock::duration recover_backoff_{};
    std::deque<std::function<void()>> waiting_;  // operations behind the one being committed
    std::optional<StoredGame> pending_create_;
    std::vector<JournalRow> pending_rows_;
    std::vector<Out> outbox_;
    int crowd_pending_ = 0;  // crowd deliveries posted and not yet run
    After after_;
    bool bot_busy_ = false;                        // a search is running for the bot's move
    int reported_spectators_ = 0;                  // to the metrics
    int told_spectators_ = 0;                      // to the players, in a `spectators` event
    std::optional<TimePoint> spectators_told_at_;  // when
    std::optional<TimePoint> spectators_due_;      // a change waits for the interval to end
};

template <class F>
void Room::on_strand(F&& f) {
    boost::asio::post(ex_, [self = shared_from_this(), f = std::forward<F>(f)]() mutable {
        self->run_op(std::move(f));
    });
}

}  // namespace tf::server
