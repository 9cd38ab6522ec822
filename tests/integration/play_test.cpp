// Complete games between two clients with random legal turns, over each transport, and a
// spectator who joins mid-game.
#include <doctest/doctest.h>

#include "common/json.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

// Plays to the end; `at_turn` calls `mid` once when that many events have been acknowledged.
template <class Mid>
void play_to_end(GameClient& a, GameClient& b, std::uint64_t seed, int at_turn, Mid&& mid) {
    Rng rng(seed);
    int moves = 0;
    while (!a.game->over()) {
        play_one(a, b, rng);
        if (++moves == at_turn) mid();
        REQUIRE(moves < 20000);
    }
    a.sync_until_over();
    b.sync_until_over();
    CHECK(state_to_json(*a.game) == state_to_json(*b.game));
    CHECK(a.result == b.result);
    CHECK(a.result["over"] == true);
    CHECK(a.game->turns_played() > 10);
    MESSAGE("game over after " << a.game->turns_played() << " turns, version " << a.version);
}

void play_game(Transport ta, Transport tb, std::uint64_t seed) {
    ServerProcess server(kFast);
    GameClient a = GameClient::connect(server, ta, "alice");
    GameClient b = GameClient::connect(server, tb, "bob");
    start_game(a, b);
    play_to_end(a, b, seed, -1, [] {});
    CHECK(server.alive());
}

}  // namespace

TEST_CASE("play_ws") {
    play_game(Transport::Ws, Transport::Ws, 1);
}
TEST_CASE("play_tcp") {
    play_game(Transport::Tcp, Transport::Tcp, 2);
}
TEST_CASE("play_mixed") {
    play_game(Transport::Ws, Transport::Tcp, 3);
    play_game(Transport::Tcp, Transport::Ws, 4);
}

TEST_CASE("spectator") {
    ServerProcess server(kFast);
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_game(a, b);
    GameClient s = GameClient::connect(server, Transport::Ws, "watcher");
    play_to_end(a, b, 5, 12, [&] {
        s.conn->send({{"type", "watch"}, {"code", a.code}});
        auto snap = s.recv_until("snapshot");
        CHECK(snap["status"] == "playing");
        CHECK(snap["spectators"] == 1);
        CHECK(snap["version"] == a.version);
        CHECK(!s.side);
        // A spectator can never act in the game.
        s.conn->send({{"type", "resign"}, {"game", a.code}});
        auto err = s.recv_until("error");
        CHECK(err["code"] == "not_seated");
    });
    s.sync_until_over();
    CHECK(state_to_json(*s.game) == state_to_json(*a.game));
    CHECK(s.result == a.result);
    CHECK(s.version == a.version);
}

}  // namespace tf::test
