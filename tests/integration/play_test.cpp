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

namespace tf::test {

// Rematch (PROTOCOL.md "Rematch"): refused during the game and to spectators, offered and
// declined, offered again and accepted: both players are matched in a new game with the colours
// swapped, the finished game says which, and a second acceptance is refused. Against the
// computer it is accepted at once.
TEST_CASE("rematch") {
    ServerProcess server(kFast);
    GameClient a = GameClient::connect(server, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    GameClient c = GameClient::connect(server, Transport::Tcp, "cat");
    start_game(a, b);
    const std::string code = a.code;
    auto err = [](GameClient& g, const nlohmann::json& m) {
        g.conn->send(m);
        return g.recv_until("error");
    };
    nlohmann::json rm = {{"type", "rematch"}, {"game", code}};
    CHECK(err(a, rm)["code"] == "game_not_over");
    b.conn->send({{"type", "resign"}, {"game", code}});
    a.sync_until_over();
    b.sync_until_over();
    c.conn->send({{"type", "watch"}, {"code", code}});
    c.recv_until("snapshot");
    CHECK(err(c, rm)["code"] == "not_seated");
    CHECK(err(b, {{"type", "rematch_decline"}, {"game", code}})["code"] == "no_rematch_offer");
    a.conn->send(rm);
    CHECK(b.recv_until("event")["kind"] == "rematch_offer");
    CHECK(err(a, rm)["code"] == "rematch_pending");
    b.conn->send({{"type", "rematch_decline"}, {"game", code}});
    CHECK(a.recv_until("event")["kind"] == "rematch_decline");
    b.conn->send(rm);
    CHECK(a.recv_until("event")["kind"] == "rematch_offer");
    a.conn->send(rm);  // accepts
    nlohmann::json ma = a.recv_until("matched"), mb = b.recv_until("matched");
    CHECK(ma["code"] == mb["code"]);
    CHECK(ma["code"] != code);
    CHECK(ma["side"] == "bronze");  // ann had silver
    CHECK(mb["side"] == "silver");
    nlohmann::json next;
    do next = c.conn->recv();
    while (!(next["type"] == "event" && next["kind"] == "rematch"));
    CHECK(next["payload"]["code"] == ma["code"]);
    nlohmann::json snap_b = b.recv_until("snapshot");
    CHECK(snap_b["game"] == ma["code"]);
    CHECK(err(b, rm)["code"] == "already_started");

    // Against the computer: at once, on the other side.
    a.conn->send({{"type", "create_game"},
                  {"time_control", nullptr},
                  {"color", "silver"},
                  {"public", false},
                  {"bot", 1}});
    std::string bot_game = a.recv_until("game_created")["code"];
    a.conn->send({{"type", "resign"}, {"game", bot_game}});
    nlohmann::json m;
    do m = a.conn->recv();
    while (!(m["type"] == "event" && m["kind"] == "game_over"));
    a.conn->send({{"type", "rematch"}, {"game", bot_game}});
    nlohmann::json mbot = a.recv_until("matched");
    CHECK(mbot["side"] == "bronze");
}

}  // namespace tf::test
