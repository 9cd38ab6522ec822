// Bad input from clients gets the right error code and leaves a game in progress untouched;
// reconnection with a token; message credits.
#include <doctest/doctest.h>

#include "client/lib/traffic_log.h"
#include "common/json.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

using nlohmann::json;

// Sends deliberately bad input (not schema-checked: a traffic "probe"), returns the error.
json error_for(client::Connection& c, const std::string& text) {
    {
        client::traffic::Probe probe;
        c.send_text(text);
    }
    json e = c.recv_type("error");
    INFO(text);
    return e;
}

void finish_game(GameClient& a, GameClient& b, Rng& rng) {
    while (!a.game->over()) play_one(a, b, rng);
    a.sync_until_over();
    b.sync_until_over();
    CHECK(state_to_json(*a.game) == state_to_json(*b.game));
}

}  // namespace

TEST_CASE("bad_input") {
    ServerProcess server(kFast);
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(7);
    for (int i = 0; i < 6; ++i) play_one(a, b, rng);  // setups and four turns
    const std::string code = a.code;

    // Before hello, wrong version, forged token.
    auto raw = client::connect_tcp("127.0.0.1", server.tcp_port());
    CHECK(error_for(*raw, R"({"type":"list_games"})")["code"] == "hello_required");
    auto e = error_for(*raw, R"({"type":"hello","version":99})");
    CHECK(e["code"] == "unsupported_version");
    CHECK(e["message"].get<std::string>().find("[1]") != std::string::npos);
    CHECK(error_for(*raw, R"({"type":"hello","version":1,"token":")" + std::string(48, '0') +
                              R"("})")["code"] == "bad_token");
    std::string forged = a.token;
    forged.back() = forged.back() == '0' ? '1' : '0';  // right selector, wrong secret
    CHECK(error_for(*raw, R"({"type":"hello","version":1,"token":")" + forged + R"("})")["code"] ==
          "bad_token");

    // Malformed, unknown and incomplete messages.
    GameClient c = GameClient::connect(server, Transport::Tcp, "carol");
    CHECK(error_for(*c.conn, "{not json")["code"] == "bad_json");
    CHECK(error_for(*c.conn, "[1,2]")["code"] == "bad_json");
    CHECK(error_for(*c.conn, R"({"type":"nope"})")["code"] == "unknown_type");
    CHECK(error_for(*c.conn, R"({"kind":"turn"})")["code"] == "unknown_type");
    CHECK(error_for(*c.conn, R"({"type":"turn","game":")" + code + R"("})")["code"] ==
          "bad_message");
    CHECK(error_for(*c.conn, R"({"type":"join_game","code":7})")["code"] == "bad_message");
    CHECK(error_for(*c.conn, R"({"type":"watch","code":"zzzzzz"})")["code"] == "no_such_game");
    CHECK(error_for(*c.conn, R"({"type":"join_game","code":")" + code + R"("})")["code"] ==
          "game_full");

    // A spectator sending a turn.
    c.conn->send({{"type", "watch"}, {"code", code}});
    c.recv_until("snapshot");
    json pass = {{"type", "turn"}, {"game", code}, {"turn", json::object()}};
    c.conn->send(pass);
    e = c.recv_until("error");
    CHECK(e["code"] == "not_seated");
    CHECK(e["version"] == a.version);

    // Out of turn, illegal, stale.
    GameClient& mover = a.game->to_move() == *a.side ? a : b;
    GameClient& other = &mover == &a ? b : a;
    other.conn->send(pass);
    e = other.recv_until("error");
    CHECK(e["code"] == "not_your_turn");
    CHECK(e["version"] == other.version);
    mover.conn->send({{"type", "turn"},
                      {"game", code},
                      {"ref", "x1"},
                      {"turn", {{"elephant", {{"from", {0, 0}}, {"path", {{0, 1}}}}}}}});
    e = mover.recv_until("error");
    CHECK(e["code"] == "illegal_turn");
    CHECK(e["ref"] == "x1");
    CHECK(e["rule"].is_string());
    CHECK(e["version"] == mover.version);
    json stale = pass;
    stale["version"] = mover.version - 2;
    mover.conn->send(stale);
    CHECK(mover.recv_until("error")["code"] == "stale_version");

    // Binary frame on WebSocket: an error, and the connection stays usable.
    auto w = client::connect_ws("127.0.0.1", server.http_port());
    w->send_binary("\x01\x02");
    CHECK(w->recv_type("error")["code"] == "binary_frame");
    w->send_text(R"({"type":"ping"})");
    CHECK(w->recv()["type"] == "pong");

    // Oversized messages: an error then a close on TCP, a close (1009) on WebSocket.
    auto big_tcp = client::connect_tcp("127.0.0.1", server.tcp_port());
    CHECK(error_for(*big_tcp, std::string(20000, ' '))["code"] == "too_large");
    CHECK_THROWS_AS(big_tcp->recv_text(), client::Closed);
    {
        client::traffic::Probe probe;
        w->send_text(R"({"type":"ping","pad":")" + std::string(17000, 'x') + "\"}");
    }
    CHECK_THROWS_AS(w->recv_text(), client::Closed);

    // Chat: length-limited, seen by everyone watching.
    CHECK(error_for(*c.conn, R"({"type":"chat","game":")" + code + R"(","text":")" +
                                 std::string(600, 'a') + "\"}")["code"] == "chat_too_long");

    // The game in progress is unaffected: it plays on to the end.
    CHECK(server.alive());
    finish_game(a, b, rng);
}

TEST_CASE("reconnect") {
    ServerProcess server({"--rate", "1000000", "--burst", "1000000", "--history", "4"});
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(11);
    for (int i = 0; i < 6; ++i) play_one(a, b, rng);
    // Alice drops right after her own turn (it is bob's turn now).
    if (a.game->to_move() == *a.side) play_one(a, b, rng);
    a.conn->close();
    // Bob sees her leave (otherwise player_left could land after his next turn and the version
    // arithmetic below would depend on when the server noticed the close).
    while (b.recv_until("event")["kind"] != "player_left") {
    }
    // Bob moves while she is away.
    GameClient gone = std::move(a);
    GameClient a2 = GameClient::connect(server, Transport::Tcp, "ignored", gone.token);
    CHECK(a2.player_id == gone.player_id);
    a2.game = gone.game;
    a2.side = gone.side;
    a2.code = gone.code;
    a2.version = gone.version;
    a2.mirror = gone.mirror;  // resumes from what it had seen
    REQUIRE(a2.game->to_move() != *a2.side);
    play_one(a2, b, rng, false);  // bob's turn; alice's new connection is not subscribed yet
    a2.conn->send({{"type", "watch"}, {"code", a2.code}, {"since_version", gone.version}});
    a2.sync_to(b.version);  // the missed events replayed from history
    CHECK(state_to_json(*a2.game) == state_to_json(*b.game));

    // Too far behind for the history: a snapshot instead.
    GameClient a3 = GameClient::connect(server, Transport::Ws, "", gone.token);
    a3.conn->send({{"type", "watch"}, {"code", a2.code}, {"since_version", 0}});
    auto snap = a3.recv_until("snapshot");
    CHECK(snap["version"] == b.version + 1);  // + player_back (a2's watch), unread by bob
    CHECK(a3.side == a2.side);
    CHECK(state_to_json(*a3.game) == state_to_json(*b.game));
    a3.conn->close();

    finish_game(a2, b, rng);
}

TEST_CASE("rate_limit") {
    ServerProcess server({"--rate", "0.001", "--burst", "5"});
    GameClient c = GameClient::connect(server, Transport::Tcp, "flood");  // uses one credit
    for (int i = 0; i < 10; ++i) c.conn->send({{"type", "ping"}});
    int pongs = 0, limited = 0;
    for (int i = 0; i < 10; ++i) {
        json m = c.conn->recv();
        if (m["type"] == "pong") ++pongs;
        if (m["type"] == "error" && m["code"] == "rate_limited") ++limited;
    }
    CHECK(pongs == 4);
    CHECK(limited == 6);
    // Another connection has its own credits.
    GameClient d = GameClient::connect(server, Transport::Ws, "calm");
    d.conn->send({{"type", "ping"}});
    CHECK(d.conn->recv()["type"] == "pong");
}

}  // namespace tf::test

namespace tf::test {

// What an implementer of proto/PROTOCOL.md relies on: errors name the request's ref, a setup
// or turn that is not canonical JSON is illegal (rules spec §6), text limits count characters,
// blank TCP lines are skipped, a version from the future is refused.
TEST_CASE("protocol_details") {
    ServerProcess server(kFast);
    GameClient a = GameClient::connect(server, Transport::Tcp, "alice");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    start_game(a, b);

    json e = error_for(*a.conn, R"({"type":"turn","game":"zzzzzz","turn":{},"ref":"r1"})");
    CHECK(e["code"] == "no_such_game");
    CHECK(e["ref"] == "r1");
    e = error_for(
        *a.conn,
        R"({"type":"setup","game":"zzzzzz","setup":{"elephants":[],"guardians":[]},"ref":"r2"})");
    CHECK(e["code"] == "no_such_game");
    CHECK(e["ref"] == "r2");
    e = error_for(*a.conn, R"({"type":"turn","game":5,"turn":{},"ref":"r3"})");
    CHECK(e["code"] == "bad_message");
    CHECK(e["ref"] == "r3");
    e = error_for(*a.conn, R"({"type":"setup","game":")" + a.code +
                               R"(","setup":{"elephants":[["2",1]],"guardians":[]},"ref":"r4"})");
    CHECK(e["code"] == "illegal_setup");
    CHECK(e["rule"] == "bad_format");
    CHECK(e["ref"] == "r4");
    e = error_for(*a.conn, R"({"type":"turn","game":")" + a.code +
                               R"(","turn":{"elephant":{"from":"b1","path":[]}},"ref":"r5"})");
    CHECK(e["code"] == "illegal_turn");
    CHECK(e["rule"] == "bad_format");

    // A version the game has not reached yet is refused; the current one is not.
    Rng rng(4);
    json setup = random_action(a, rng, "s");
    setup["version"] = a.version + 5;
    {
        client::traffic::Probe probe;
        a.conn->send(setup);
    }
    e = a.recv_until("error");
    CHECK(e["code"] == "stale_version");
    CHECK(e["version"] == a.version);
    play_one(a, b, rng);

    // Names and chat count characters, not bytes: 32 "é" (64 bytes) are a name, 33 are not.
    std::string e32, e33;
    for (int i = 0; i < 32; ++i) e32 += "\u00e9";
    e33 = e32 + "\u00e9";
    GameClient named = GameClient::connect(server, Transport::Tcp, e32);
    auto raw = client::connect_tcp("127.0.0.1", server.tcp_port());
    CHECK(error_for(*raw, json{{"type", "hello"}, {"version", 1}, {"name", e33}}.dump())["code"] ==
          "bad_message");
    std::string chat500;
    for (int i = 0; i < 500; ++i) chat500 += "\u00e9";
    a.conn->send({{"type", "chat"}, {"game", a.code}, {"text", chat500}});
    json ev = a.recv_until("event");
    CHECK(ev["kind"] == "chat");
    CHECK(error_for(
              *a.conn,
              json{{"type", "chat"}, {"game", a.code}, {"text", chat500 + "x"}}.dump())["code"] ==
          "chat_too_long");

    // Blank lines (spaces and tabs too) are skipped on TCP: only the ping is answered.
    {
        client::traffic::Probe probe;
        raw->send_text("   \t ");
        raw->send_text("");
        raw->send_text(R"({"type":"ping"})");
    }
    CHECK(json::parse(raw->recv_text())["type"] == "pong");  // nothing for the blank lines
}

}  // namespace tf::test
