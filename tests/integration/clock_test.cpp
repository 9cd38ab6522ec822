// Time and the ends of a game: clocks (flag, increment), disconnect grace and abandonment,
// the no-start abort, draw offers, the chat rate limit and the removal of finished games.
// Durations come from short fractional-second flags; the tests wait for events, never for a
// wall-clock instant.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "common/json.h"
#include "game_client.h"

namespace tf::test {
namespace {

using nlohmann::json;

std::vector<std::string> fast(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--rate", "1000000", "--burst", "1000000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

// Like start_game, with a time control: `a` creates as silver, `b` joins.
void start_timed(GameClient& a, GameClient& b, json time_control) {
    a.conn->send({{"type", "create_game"},
                  {"time_control", time_control},
                  {"color", "silver"},
                  {"public", false}});
    a.recv_until("game_created");
    auto snap = a.recv_until("snapshot");
    CHECK(snap["record"]["time_control"] == time_control);
    b.conn->send({{"type", "join_game"}, {"code", a.code}});
    snap = b.recv_until("snapshot");
    if (time_control.is_null()) {
        CHECK(snap["clocks"].is_null());
    } else {
        CHECK(snap["clocks"]["running"].is_null());  // setups are not timed
        CHECK(snap["clocks"]["silver_ms"] == time_control["initial_ms"]);
    }
    a.sync_to(b.version);
}

void finish_game(GameClient& a, GameClient& b, Rng& rng) {
    while (!a.game->over()) play_one(a, b, rng);
    a.sync_until_over();
    b.sync_until_over();
    CHECK(state_to_json(*a.game) == state_to_json(*b.game));
}

// A second game on the same server, played part-way before and to the end after a test.
struct OtherGame {
    GameClient c, d;
    Rng rng{99};
    explicit OtherGame(ServerProcess& s)
        : c(GameClient::connect(s, Transport::Tcp, "carol")),
          d(GameClient::connect(s, Transport::Ws, "dave")) {
        start_game(c, d);
        for (int i = 0; i < 4; ++i) play_one(c, d, rng);
    }
    void finish() {
        finish_game(c, d, rng);
        CHECK(c.result["reason"] != "aborted");
    }
};

}  // namespace

TEST_CASE("clock_timeout") {
    ServerProcess server(fast());
    OtherGame other(server);
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_timed(a, b, {{"initial_ms", 300}, {"increment_ms", 0}});
    Rng rng(21);
    for (int i = 0; i < 3; ++i) play_one(a, b, rng);  // both setups and silver's first turn
    // Bronze never moves: its time runs out and the server ends the game by itself.
    json ev = until_event(a, "timeout");
    CHECK(ev["payload"]["side"] == "bronze");
    CHECK(ev["clocks"]["bronze_ms"] == 0);
    CHECK(ev["clocks"]["running"].is_null());
    a.sync_until_over();
    b.sync_until_over();
    CHECK(a.result["reason"] == "time");
    CHECK(a.result["winner"] == "silver");
    CHECK(b.result == a.result);
    // A turn arriving after the flag is refused.
    json pass = {{"type", "turn"}, {"game", b.code}, {"turn", json::object()}};
    CHECK(send_error(b, pass)["code"] == "game_over");
    other.finish();
}

TEST_CASE("clock_increment") {
    ServerProcess server(fast());
    GameClient a = GameClient::connect(server, Transport::Tcp, "alice");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    start_timed(a, b, {{"initial_ms", 60000}, {"increment_ms", 5000}});
    Rng rng(22);
    for (int i = 0; i < 2; ++i) play_one(a, b, rng);  // setups
    GameClient s = GameClient::connect(server, Transport::Tcp, "watcher");
    s.conn->send({{"type", "watch"}, {"code", a.code}});
    json snap = s.recv_until("snapshot");
    CHECK(snap["clocks"]["running"].is_null());
    CHECK(snap["clocks"]["bronze_ms"] == 60000);
    play_one(a, b, rng);  // silver's first turn: untimed
    json ev = until_event(s, "turn");
    CHECK(ev["clocks"]["running"] == "bronze");
    CHECK(ev["clocks"]["silver_ms"] == 60000);  // no increment for the untimed first turn
    CHECK(ev["clocks"]["at"].is_number_integer());
    play_one(a, b, rng);  // bronze's turn: its time minus what it used, plus 5 s
    ev = until_event(s, "turn");
    CHECK(ev["clocks"]["running"] == "silver");
    CHECK(ev["clocks"]["bronze_ms"].get<std::int64_t>() > 60000);
    CHECK(ev["clocks"]["silver_ms"].get<std::int64_t>() <= 60000);
    play_one(a, b, rng);  // silver's second turn, now timed
    ev = until_event(s, "turn");
    CHECK(ev["clocks"]["running"] == "bronze");
    CHECK(ev["clocks"]["silver_ms"].get<std::int64_t>() > 60000);
    // A snapshot carries the clocks too.
    GameClient s2 = GameClient::connect(server, Transport::Ws, "late watcher");
    s2.conn->send({{"type", "watch"}, {"code", a.code}});
    snap = s2.recv_until("snapshot");
    CHECK(snap["clocks"]["running"] == "bronze");
    CHECK(snap["clocks"]["silver_ms"] == ev["clocks"]["silver_ms"]);
    finish_game(a, b, rng);
}

TEST_CASE("abandon_claim") {
    ServerProcess server(fast({"--grace-seconds", "0.2", "--award-seconds", "600"}));
    OtherGame other(server);
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_timed(a, b, nullptr);
    Rng rng(23);
    for (int i = 0; i < 3; ++i) play_one(a, b, rng);
    b.conn->close();
    json left = until_event(a, "player_left");
    CHECK(left["payload"]["side"] == "bronze");
    CHECK(left["payload"]["claim_at"].get<std::int64_t>() <
          left["payload"]["award_at"].get<std::int64_t>());
    // Claim until the grace period has passed (not_claimable before).
    for (int i = 0; i < 400 && !a.over; ++i) {
        a.conn->send({{"type", "claim_win"}, {"game", a.code}});
        json m = a.conn->recv();
        a.apply(m);
        if (m["type"] == "error") {
            CHECK(m["code"] == "not_claimable");
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        } else if (m["kind"] == "abandon") {
            CHECK(m["payload"]["claimed"] == true);
            a.sync_until_over();
        }
    }
    REQUIRE(a.over);
    CHECK(a.result["reason"] == "abandon");
    CHECK(a.result["winner"] == "silver");
    other.finish();
}

TEST_CASE("abandon_award") {
    ServerProcess server(fast({"--grace-seconds", "0.1", "--award-seconds", "0.1"}));
    GameClient a = GameClient::connect(server, Transport::Tcp, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_timed(a, b, {{"initial_ms", 600000}, {"increment_ms", 0}});
    Rng rng(24);
    for (int i = 0; i < 3; ++i) play_one(a, b, rng);
    a.conn->close();  // silver leaves; nobody claims: the win is awarded to bronze
    json ev = until_event(b, "abandon");
    CHECK(ev["payload"]["side"] == "silver");
    CHECK(ev["payload"]["claimed"] == false);
    b.sync_until_over();
    CHECK(b.result["reason"] == "abandon");
    CHECK(b.result["winner"] == "bronze");
}

TEST_CASE("abandon_return") {
    ServerProcess server(fast());  // default grace: 60 s
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(25);
    for (int i = 0; i < 3; ++i) play_one(a, b, rng);
    b.conn->close();
    until_event(a, "player_left");
    json e = send_error(a, {{"type", "claim_win"}, {"game", a.code}});
    CHECK(e["code"] == "not_claimable");
    // Bob comes back in time with his token: player_back, and the game plays on.
    GameClient b2 = GameClient::connect(server, Transport::Ws, "", b.token);
    b2.game = b.game;
    b2.side = b.side;
    b2.code = b.code;
    b2.version = b.version;
    b2.mirror = b.mirror;  // resumes from what it had seen
    b2.conn->send({{"type", "watch"}, {"code", b.code}, {"since_version", b.version}});
    json back = until_event(b2, "player_back");
    CHECK(back["payload"]["side"] == "bronze");
    until_event(a, "player_back");
    CHECK(send_error(a, {{"type", "claim_win"}, {"game", a.code}})["code"] == "not_claimable");
    finish_game(a, b2, rng);
}

TEST_CASE("no_start_abort") {
    ServerProcess server(fast({"--start-timeout-seconds", "0.3", "--retention-seconds", "0.2"}));
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_timed(a, b, {{"initial_ms", 60000}, {"increment_ms", 0}});
    Rng rng(26);
    for (int i = 0; i < 2; ++i) play_one(a, b, rng);  // setups alone do not start the game
    json ev = until_event(a, "abort");
    CHECK(ev["payload"]["reason"] == "no_start");
    a.sync_until_over();
    b.sync_until_over();
    CHECK(a.result["reason"] == "aborted");
    CHECK(a.result["winner"].is_null());
    // After the retention period the finished game is gone from memory.
    bool gone = false;
    for (int i = 0; i < 400 && !gone; ++i) {
        a.conn->send({{"type", "watch"}, {"code", a.code}});
        json m = a.conn->recv();
        if (m["type"] == "snapshot") {
            CHECK(m["status"] == "aborted");
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        } else {
            CHECK(m["code"] == "no_such_game");
            gone = true;
        }
    }
    CHECK(gone);
}

// A player leaves a game without a result before it has begun (the opponent never came back,
// or they changed their mind); once silver's first turn is played that is refused.
TEST_CASE("abort_by_player") {
    ServerProcess server(fast());
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(31);
    play_one(a, b, rng);  // silver's setup: the game has not begun
    // Only the players may abort.
    GameClient c = GameClient::connect(server, Transport::Tcp, "carol");
    c.conn->send({{"type", "watch"}, {"code", a.code}});
    c.recv_until("snapshot");
    CHECK(send_error(c, {{"type", "abort"}, {"game", a.code}})["code"] == "not_seated");
    b.conn->send({{"type", "abort"}, {"game", a.code}});
    json ev = until_event(a, "abort");
    CHECK(ev["payload"]["reason"] == "player");
    CHECK(ev["payload"]["side"] == "bronze");
    a.sync_until_over();
    b.sync_until_over();
    CHECK(a.result["reason"] == "aborted");
    CHECK(a.result["winner"].is_null());
    c.conn->send({{"type", "watch"}, {"code", a.code}});
    CHECK(c.recv_until("snapshot")["status"] == "aborted");
    CHECK(send_error(a, {{"type", "abort"}, {"game", a.code}})["code"] == "game_over");

    // Once silver's first turn is played the game has begun.
    GameClient d = GameClient::connect(server, Transport::Tcp, "dave");
    start_game(a, d);
    for (int i = 0; i < 3; ++i) play_one(a, d, rng);  // two setups and silver's first turn
    CHECK(send_error(d, {{"type", "abort"}, {"game", a.code}})["code"] == "not_abortable");
    CHECK(send_error(a, {{"type", "abort"}, {"game", a.code}})["code"] == "not_abortable");
}

TEST_CASE("draw_offers") {
    ServerProcess server(fast());
    GameClient a = GameClient::connect(server, Transport::Tcp, "alice");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    start_game(a, b);
    Rng rng(27);
    for (int i = 0; i < 3; ++i) play_one(a, b, rng);  // bronze to move
    CHECK(send_error(b, {{"type", "draw_accept"}, {"game", a.code}})["code"] == "no_draw_offer");
    // Declined.
    a.conn->send({{"type", "draw_offer"}, {"game", a.code}});
    CHECK(until_event(b, "draw_offer")["payload"]["side"] == "silver");
    b.conn->send({{"type", "draw_decline"}, {"game", a.code}});
    CHECK(until_event(a, "draw_decline")["payload"]["side"] == "bronze");
    // One offer per own turn.
    CHECK(send_error(a, {{"type", "draw_offer"}, {"game", a.code}})["code"] == "draw_pending");
    // An offer lapses with the offerer's next turn.
    for (int i = 0; i < 3; ++i) play_one(a, b, rng);  // bronze, silver, bronze
    a.conn->send({{"type", "draw_offer"}, {"game", a.code}});
    until_event(b, "draw_offer");
    a.sync_to(b.version);
    play_one(a, b, rng);  // silver's turn withdraws silver's offer
    CHECK(send_error(b, {{"type", "draw_accept"}, {"game", a.code}})["code"] == "no_draw_offer");
    // Accepted.
    b.conn->send({{"type", "draw_offer"}, {"game", a.code}});
    until_event(a, "draw_offer");
    GameClient s = GameClient::connect(server, Transport::Tcp, "watcher");
    s.conn->send({{"type", "watch"}, {"code", a.code}});
    CHECK(s.recv_until("snapshot")["draw_offer"] == "bronze");
    a.conn->send({{"type", "draw_accept"}, {"game", a.code}});
    a.sync_until_over();
    b.sync_until_over();
    s.sync_until_over();
    CHECK(a.result["reason"] == "agreement");
    CHECK(a.result["winner"] == "draw");
    CHECK(b.result == a.result);
}

TEST_CASE("chat_rate") {
    ServerProcess server(fast());  // default: 5 lines per 10 s
    GameClient a = GameClient::connect(server, Transport::Tcp, "alice");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    start_game(a, b);
    for (int i = 0; i < 5; ++i) {
        a.conn->send({{"type", "chat"}, {"game", a.code}, {"text", "hi " + std::to_string(i)}});
        CHECK(until_event(a, "chat")["payload"]["text"] == "hi " + std::to_string(i));
    }
    json e = send_error(a, {{"type", "chat"}, {"game", a.code}, {"text", "one too many"}});
    CHECK(e["code"] == "chat_rate");
    // The limit is per player: bob still chats, and the game goes on.
    b.conn->send({{"type", "chat"}, {"game", a.code}, {"text", "calm down"}});
    CHECK(until_event(a, "chat")["payload"]["from"]["id"] == b.player_id);
    Rng rng(28);
    finish_game(a, b, rng);
}

}  // namespace tf::test
