// The games a connection makes: create_game (and its challenge) and quick match
// (game_maker.cpp says how). A part of Session, on the connection's strand.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "common/game.h"
#include "proto/messages.h"
#include "server/lobby/matchmaker.h"

namespace tf::server {

class Room;
class Session;
struct RoomParams;

class GameMaker {
  public:
    explicit GameMaker(Session& s) : s_(s) {}

    void create(const proto::CreateGame& m);
    void quick_match(const proto::QuickMatch& m);
    void cancel_match();
    // The pool's answers (server/session/peers.h: this node's matchmaker, or the cluster's
    // shared pool), on any thread.
    void match_found(const proto::QuickMatch& m, Seek opponent);
    void match_waiting(const proto::QuickMatch& m);
    void match_waiting_again(const proto::QuickMatch& m);  // a retry found nobody yet
    void match_done();  // matched by another node: no longer waiting
    // The connection closed or became another player: its quick-match request no longer waits.
    void stop();

  private:
    bool refuse_new_game(const std::optional<std::string>& ref = {});
    // create_game after its checks: a place under the open-game limits (with several nodes,
    // counting the other nodes' open games in the store), then the room.
    void create_game(RoomParams params, std::optional<std::string> ref);
    void create_room(RoomParams params, std::optional<std::string> ref);
    // A create_game with `to` (PROTOCOL.md "Challenges"): the named account, then create_game.
    void challenge(RoomParams params, const std::string& to, std::optional<std::string> ref);
    void created(const std::string& code, const std::optional<std::string>& ref);
    // A rated request's range widens; it is tried again every second.
    void retry_match();
    void make_match(const proto::QuickMatch& m, const Seek& opponent);
    void start_match(const std::shared_ptr<Room>& room, const Seek& opponent, Side my_side);
    // The player's rating in a rated request's category (nullopt for a casual one).
    std::optional<int> match_rating(const proto::QuickMatch& m);

    Session& s_;
    // The last create_game with a ref: a repeat within kRepeatWindow is the same request.
    struct LastCreate {
        std::string ref;
        std::chrono::steady_clock::time_point at;
        std::string code;  // "" while it is being made
        int repeats = 0;   // repeats waiting for the code
    };
    static constexpr std::chrono::seconds kRepeatWindow{5};
    std::optional<LastCreate> last_create_;
    std::optional<boost::asio::steady_timer> match_timer_;
    std::optional<proto::QuickMatch> match_req_;  // a rated request waiting
};

}  // namespace tf::server
