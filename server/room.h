// A room owns one game: seats, the rules state, the event history and who watches.
// All state lives on the room's strand; the public methods are thread-safe because each one
// posts its work there. The room talks to connections only through Participant::deliver.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/game.h"
#include "proto/messages.h"
#include "server/participant.h"

namespace tf::server {

class Lobby;

struct RoomParams {
    Variant variant;
    std::optional<proto::TimeControl> time_control;
    bool is_public = true;
    Side creator_side = Side::Silver;
};

class Room : public std::enable_shared_from_this<Room> {
  public:
    using Executor = boost::asio::strand<boost::asio::io_context::executor_type>;
    using Who = std::weak_ptr<Participant>;

    Room(Executor ex, std::string code, RoomParams params, Player creator, Lobby& lobby,
         std::size_t history_limit);
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
    void chat(Player p, Who who, std::string text);

  private:
    enum class Status { Open, Playing, Over, Cancelled };
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
    // Checks that the game is playing and that `p` holds the seat to move.
    std::optional<Side> check_mover(const Player& p, const Who& who,
                                    const std::optional<std::string>& ref,
                                    std::optional<std::int64_t> version);
    void emit(const char* kind, nlohmann::json payload, bool changes_state = true);
    void finish();
    nlohmann::json lobby_entry() const;
    nlohmann::json players_json() const;
    proto::SnapshotMsg snapshot() const;
    int spectators() const;

    Executor ex_;
    std::string code_;
    RoomParams params_;
    Lobby& lobby_;
    std::size_t history_limit_;
    Status status_ = Status::Open;
    Game game_;
    std::optional<Player> seats_[2];
    std::optional<Setup> setups_[2];
    std::vector<Turn> turns_;
    std::int64_t version_ = 0;        // last event of any kind
    std::int64_t state_version_ = 0;  // last event that changed the game
    std::deque<std::pair<std::int64_t, Msg>> history_;
    std::map<const Participant*, Sub> subs_;
};

}  // namespace tf::server
