// A room owns one game: seats, the rules state, the clock, the event history and who watches.
// All state lives on the room's strand; the public methods are thread-safe because each one
// posts its work there. The room talks to connections only through Participant::deliver.
//
// room.cpp: seats, watchers and play (join, watch, setup, turn, chat).
// room_endings.cpp: resign, draw offers, claim_win.
// room_timers.cpp: everything driven by time or presence (clock flag, no-start abort,
//   disconnect grace and abandonment, retention of finished games) and the ends of a game.
// room_snapshot.cpp: the room's views of itself (snapshot, lobby entry, clocks).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/game.h"
#include "proto/messages.h"
#include "server/clock.h"
#include "server/config.h"
#include "server/participant.h"

namespace tf::server {

class Lobby;

struct RoomParams {
    Variant variant;
    std::optional<proto::TimeControl> time_control;
    bool is_public = true;
    Side creator_side = Side::Silver;
    bool quick_match = false;  // paired by the lobby: never in the open-games list
};

class Room : public std::enable_shared_from_this<Room> {
  public:
    using Executor = boost::asio::strand<boost::asio::io_context::executor_type>;
    using Who = std::weak_ptr<Participant>;
    enum class DrawAct { Offer, Accept, Decline };

    Room(Executor ex, std::string code, RoomParams params, Player creator, Lobby& lobby,
         const Config& cfg);
    const std::string& code() const { return code_; }

    // Called once after construction: lists the game in the lobby if it is public.
    void open();
    void join(Player p, Who who);
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
    enum class Status { Open, Playing, Over, Cancelled, Aborted };
    struct Sub {
        Who who;
        std::string player_id;
    };

    template <class F>
    void on_strand(F&& f);
    std::optional<Side> seat_of(const std::string& player_id) const;
    void subscribe(const Player& p, const Who& who);
    void reply(const Who& who, const nlohmann::json& j);
    void fail(const Who& who, proto::Err code, std::string message,
              std::optional<std::string> ref = {}, std::optional<std::string> rule = {});
    // Checks that `p` holds a seat in a game being played; the seat.
    std::optional<Side> check_seated(const Player& p, const Who& who,
                                     const std::optional<std::string>& ref = {});
    // Also checks that it is `p`'s seat to move and that `version` is not stale.
    std::optional<Side> check_mover(const Player& p, const Who& who,
                                    const std::optional<std::string>& ref,
                                    std::optional<std::int64_t> version);
    void emit(const char* kind, nlohmann::json payload, bool changes_state = true);
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
    void end_abort(const char* why);
    // Stops the clock and clears pending offers and deadlines before the ending event.
    void conclude();
    // Emits game_over, frees the seats and starts the retention period.
    void finish();

    // room_live.cpp: the entry of a public game in the lobby's live list, sent after `what`
    // (an event kind, "watch" or "leave") changed the room; turns are coalesced.
    void update_live(std::string_view what);
    nlohmann::json live_entry() const;

    // room_snapshot.cpp
    nlohmann::json lobby_entry() const;
    nlohmann::json players_json(TimePoint now) const;
    nlohmann::json clocks_json(TimePoint now) const;
    nlohmann::json result_json() const;
    proto::SnapshotMsg snapshot() const;
    int spectators() const;

    Executor ex_;
    std::string code_;
    RoomParams params_;
    Lobby& lobby_;
    std::size_t history_limit_;
    SteadyClock::duration grace_, award_, start_timeout_, retention_, chat_window_;
    int chat_lines_;

    Status status_ = Status::Open;
    Game game_;
    std::optional<Player> seats_[2];
    std::optional<Setup> setups_[2];
    std::vector<Turn> turns_;
    std::int64_t version_ = 0;        // last event of any kind
    std::int64_t state_version_ = 0;  // last event that changed the game
    std::deque<std::pair<std::int64_t, Msg>> history_;
    std::map<const Participant*, Sub> subs_;

    std::optional<Clock> clock_;               // nullopt: untimed
    std::optional<TimePoint> start_deadline_;  // until silver's first turn
    std::optional<TimePoint> away_since_[2];   // a seat without any connection
    std::optional<TimePoint> remove_at_;       // a finished game leaves memory then
    std::optional<Side> draw_offer_;           // the side whose offer stands
    bool offered_[2] = {false, false};         // offered since that side's last turn
    std::map<std::string, std::deque<TimePoint>> chat_times_;  // per player id
    boost::asio::steady_timer timer_;
};

template <class F>
void Room::on_strand(F&& f) {
    boost::asio::post(ex_, [self = shared_from_this(), f = std::forward<F>(f)]() mutable { f(); });
}

}  // namespace tf::server
