// Play against the computer: create_game with "bot" seats the server's own bot, which answers
// every setup and turn by itself (thinking on the worker pool) until the game ends; its games
// survive a restart like any other.
#include <doctest/doctest.h>

#include <chrono>

#include "client/lib/traffic_log.h"
#include "common/json.h"
#include "game_client.h"

namespace tf::test {
namespace {

using nlohmann::json;

// The human (silver) plays random legal turns; the bot answers each. Returns the human.
void play_against_bot(GameClient& h, Rng& rng, int max_turns = 100000) {
    for (int n = 0; !h.over && n < max_turns; ++n) {
        if (h.game->over()) break;
        if (h.game->to_move() != *h.side) {
            h.recv_until("event");  // the bot's move
            continue;
        }
        h.conn->send(random_action(h, rng, "r"));
        h.sync_to(h.recv_until("ack")["version"]);
    }
}

json create_vs_bot(GameClient& h, json bot) {
    h.conn->send({{"type", "create_game"},
                  {"variant", {{"size", 7}, {"elephants", 4}}},
                  {"time_control", nullptr},
                  {"color", "silver"},
                  {"public", true},
                  {"bot", bot}});
    return h.conn->recv();
}

}  // namespace

TEST_CASE("bot_seat") {
    ServerProcess s({"--rate", "1000000", "--burst", "1000000"});
    GameClient h = GameClient::connect(s, Transport::Tcp, "human");
    for (json bad : {json(0), json(6), json("3"), json(2.5)}) {
        client::traffic::Probe probe;  // deliberately invalid: not schema-checked
        json e = create_vs_bot(h, bad);
        CHECK(e["type"] == "error");
        CHECK(e["code"] == "bad_message");
    }
    json created = create_vs_bot(h, 1);
    REQUIRE(created["type"] == "game_created");
    json snap = h.recv_until("snapshot");
    CHECK(snap["status"] == "playing");  // the bot sat down at once
    CHECK(snap["players"]["bronze"]["id"] == "bot1");
    CHECK(snap["players"]["bronze"]["away"].is_null());
    Rng rng(3);
    play_against_bot(h, rng);
    h.sync_until_over();
    CHECK(h.result["over"] == true);
    MESSAGE("game against level 1 over after " << h.game->turns_played()
                                               << " turns: " << h.result.dump());
    CHECK(s.alive());
}

TEST_CASE("bot_seat_restart") {
    auto s = std::make_unique<ServerProcess>(
        std::vector<std::string>{"--rate", "1000000", "--burst", "1000000"});
    const std::string dir = s->data_dir();
    GameClient h = GameClient::connect(*s, Transport::Tcp, "human");
    REQUIRE(create_vs_bot(h, 2)["type"] == "game_created");
    h.recv_until("snapshot");
    Rng rng(4);
    play_against_bot(h, rng, 8);
    // The server dies; the restarted one (same data) brings the bot back to its seat.
    std::vector<std::string> args = {"--rate", "1000000", "--burst", "1000000", "--data", dir};
    auto copy_token = h.token;
    auto code = h.code;
    s->kill_hard();
    ServerProcess s2(args);
    GameClient h2 = GameClient::connect(s2, Transport::Ws, "", copy_token);
    h2.conn->send({{"type", "watch"}, {"code", code}});
    h2.recv_until("snapshot");
    h2.side = Side::Silver;
    play_against_bot(h2, rng);
    h2.sync_until_over();
    CHECK(h2.result["over"] == true);
}

}  // namespace tf::test

namespace tf::test {
namespace {

// Issue 32: the computer shows its move no sooner than a human-like moment after the position
// (a setup 0.8 s, a turn at level 5 0.85 s): measured from the human's ack to the bot's event,
// a lower bound the server's timer guarantees.
TEST_CASE("bot_pace") {
    ServerProcess s({"--rate", "1000000", "--burst", "1000000", "--bot-pace", "1"});
    GameClient h = GameClient::connect(s, Transport::Tcp, "human");
    REQUIRE(create_vs_bot(h, 5)["type"] == "game_created");
    h.recv_until("snapshot");
    Rng rng(11);
    auto bot_after_mine = [&] {
        h.conn->send(random_action(h, rng, "r"));
        h.sync_to(h.recv_until("ack")["version"]);
        const auto acked = std::chrono::steady_clock::now();
        const auto before = h.version;
        while (h.version == before) h.recv_until("event");
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - acked).count();
    };
    const double setup = bot_after_mine();
    CHECK(setup >= 0.5);
    const double turn = bot_after_mine();
    CHECK(turn >= 0.5);
    MESSAGE("the bot's setup came " << setup << " s after the human's, its turn " << turn << " s");
}

}  // namespace
}  // namespace tf::test
