// A test player or spectator: a connection plus the game it rebuilds from the server's snapshot
// and events with the client library's game mirror (checked with the rules library as it goes).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "client/lib/connection.h"
#include "client/lib/game_mirror.h"
#include "common/game.h"
#include "common/playout.h"
#include "server_process.h"

namespace tf::test {

enum class Transport { Tcp, Ws };

struct GameClient {
    std::unique_ptr<client::Connection> conn;
    std::string player_id, token, code;
    std::optional<Side> side;
    std::optional<Game> game;
    std::int64_t version = -1;
    bool over = false;
    bool aborted = false;  // an "abort" event: game_over then has no rules result
    nlohmann::json result;
    std::optional<client::GameMirror> mirror;  // the game, as the client library rebuilds it

    // Connects and says hello (with a token when given); checks the welcome.
    static GameClient connect(ServerProcess& s, Transport t, const std::string& name,
                              const std::string& token = "");
    // Applies a snapshot or event; other messages are returned to the caller unprocessed.
    bool apply(const nlohmann::json& msg);
    // Receives, applying snapshots/events, until a message of `type` arrives.
    nlohmann::json recv_until(const std::string& type);
    // Receives until the event with version >= v has been applied.
    void sync_to(std::int64_t v);
    void sync_until_over();
};

// A random legal setup or turn for `c`'s side to move, as a message with `c`'s version and `ref`.
nlohmann::json random_action(const GameClient& c, Rng& rng, const std::string& ref);
// Receives (applying snapshots and events) until an event of `kind`; returns it.
nlohmann::json until_event(GameClient& c, const std::string& kind);
// Sends `msg` and receives until the error it is answered with; returns it.
nlohmann::json send_error(GameClient& c, nlohmann::json msg);
// A connected TCP socket to 127.0.0.1:`port` (for tests that speak raw bytes).
int connect_loopback(unsigned short port);

// Creates a game as silver on `a`, joins it from `b`; both end up with the game state.
void start_game(GameClient& a, GameClient& b);
// The side to move sends one random legal setup or turn; both clients see its event.
// Returns the acknowledged version. With `sync_a` false, `a` reads nothing (it is away).
std::int64_t play_one(GameClient& a, GameClient& b, Rng& rng, bool sync_a = true);

}  // namespace tf::test
