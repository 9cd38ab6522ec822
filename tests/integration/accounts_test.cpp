// Accounts and ratings against the real server (PROTOCOL.md "Accounts", "Ratings"): a guest
// registers and keeps its games, logs in on another transport, logs out, changes its password;
// bad names, taken names, wrong passwords and a password flood get their errors; a rated game
// rates both players once, across a kill -9, and shows on the player pages.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

using nlohmann::json;

// An account request and its answer (skipping what else arrives).
json ask(GameClient& c, json msg, const std::string& ref) {
    msg["ref"] = ref;
    c.conn->send(msg);
    for (;;) {
        json m = c.conn->recv();
        if ((m["type"] == "welcome" || m["type"] == "error") && m.value("ref", "") == ref) return m;
    }
}

json reg(GameClient& c, const std::string& user, const std::string& pw) {
    return ask(c, {{"type", "register"}, {"username", user}, {"password", pw}}, "reg-" + user);
}

json login(GameClient& c, const std::string& user, const std::string& pw) {
    static int n = 0;
    return ask(c, {{"type", "login"}, {"username", user}, {"password", pw}},
               "login-" + std::to_string(++n));
}

// A new guest that registers as `user`.
GameClient account(ServerProcess& s, Transport t, const std::string& user) {
    GameClient c = GameClient::connect(s, t, "");
    json w = reg(c, user, "secret-" + user);
    REQUIRE_MESSAGE(w["type"] == "welcome", w.dump());
    return c;
}

// The next event of `kind` (applied to the client's game).
json next_event(GameClient& c, const std::string& kind) {
    for (;;) {
        json m = c.conn->recv();
        c.apply(m);
        if (m["type"] == "event" && m["kind"] == kind) return m;
    }
}

}  // namespace

TEST_CASE("accounts") {
    ServerProcess s;
    GameClient guest = GameClient::connect(s, Transport::Tcp, "ann");
    const std::string guest_id = guest.player_id;

    // Registering keeps the player (its id, its token) and answers with the account.
    json w = reg(guest, "Ann", "correct horse");
    REQUIRE_MESSAGE(w["type"] == "welcome", w.dump());
    CHECK(w["player_id"] == guest_id);
    CHECK(w["token"] == guest.token);
    CHECK(w["name"] == "Ann");
    CHECK(w["account"]["username"] == "Ann");
    CHECK(w["account"]["ratings"] == json::object());
    CHECK(reg(guest, "Ann2", "correct horse")["code"] == "already_registered");

    // Names: taken in any letter case, reserved, ill-formed; passwords too short.
    GameClient other = GameClient::connect(s, Transport::Ws, "");
    CHECK(reg(other, "ANN", "whatever12")["code"] == "username_taken");
    CHECK(reg(other, "admin", "whatever12")["code"] == "bad_username");
    CHECK(reg(other, "guest-1234", "whatever12")["code"] == "bad_username");
    CHECK(reg(other, "a b", "whatever12")["code"] == "bad_username");
    CHECK(reg(other, "bob", "short")["code"] == "weak_password");

    // The token restores the account, on the other transport too.
    GameClient back = GameClient::connect(s, Transport::Ws, "", guest.token);
    CHECK(back.player_id == guest_id);

    // Logging in: a wrong password, an unknown name (the same error), then the right one.
    CHECK(login(other, "ann", "wrong password")["code"] == "bad_credentials");
    CHECK(login(other, "nobody", "wrong password")["code"] == "bad_credentials");
    json in = login(other, "ann", "correct horse");
    REQUIRE_MESSAGE(in["type"] == "welcome", in.dump());
    CHECK(in["player_id"] == guest_id);
    CHECK(in["token"] != guest.token);  // a token of its own
    CHECK(in["account"]["username"] == "Ann");
    const std::string other_token = in["token"];

    // Logging out ends this token only: the connection is a new guest.
    json out = ask(other, {{"type", "logout"}}, "out");
    REQUIRE_MESSAGE(out["type"] == "welcome", out.dump());
    CHECK(out["player_id"] != guest_id);
    CHECK(out["account"].is_null());
    auto c = client::connect_tcp("127.0.0.1", s.tcp_port());
    c->send({{"type", "hello"}, {"version", 1}, {"token", other_token}});
    CHECK(c->recv()["code"] == "bad_token");
    CHECK(ask(other, {{"type", "logout"}}, "out2")["code"] == "account_required");

    // Changing the password: a wrong current one is refused; then every other connection of
    // the account is closed, this one stays, the old password stops working.
    CHECK(ask(guest,
              {{"type", "change_password"}, {"password", "nope"}, {"new_password", "new secret"}},
              "pw0")["code"] == "bad_credentials");
    json pw = ask(guest,
                  {{"type", "change_password"},
                   {"password", "correct horse"},
                   {"new_password", "new secret"}},
                  "pw1");
    REQUIRE_MESSAGE(pw["type"] == "welcome", pw.dump());
    CHECK(pw["token"] == guest.token);
    bool closed = false, told = false;
    try {
        for (int i = 0; i < 10; ++i) {
            json m = back.conn->recv();
            if (m["code"] == "bad_token") told = true;
        }
    } catch (const std::exception&) {
        closed = true;
    }
    CHECK(told);  // why, before the close
    CHECK(closed);
    GameClient third = GameClient::connect(s, Transport::Tcp, "");
    CHECK(login(third, "Ann", "correct horse")["code"] == "bad_credentials");
    CHECK(login(third, "Ann", "new secret")["type"] == "welcome");
    GameClient still = GameClient::connect(s, Transport::Tcp, "", guest.token);
    CHECK(still.player_id == guest_id);
}

TEST_CASE("accounts_login_limit") {
    ServerProcess s;
    GameClient a = account(s, Transport::Tcp, "carol");
    GameClient c = GameClient::connect(s, Transport::Ws, "");
    for (int i = 0; i < 5; ++i)
        CHECK(login(c, "carol", "guess " + std::to_string(i))["code"] == "bad_credentials");
    // Five failures for the account: even the right password waits now, from anywhere.
    json refused = login(c, "carol", "secret-carol");
    CHECK(refused["code"] == "too_many_attempts");
    CHECK(refused["message"].get<std::string>().find("minute") != std::string::npos);
    GameClient d = GameClient::connect(s, Transport::Tcp, "");
    CHECK(login(d, "CAROL", "secret-carol")["code"] == "too_many_attempts");
    // Other accounts are not affected, and the server is fine.
    GameClient e = account(s, Transport::Tcp, "dave");
    CHECK(login(d, "dave", "secret-dave")["type"] == "welcome");
    CHECK(s.alive());
}

TEST_CASE("rated_game") {
    TempDir t;
    auto server = std::make_unique<ServerProcess>(with_data(t.path));
    GameClient ann = account(*server, Transport::Tcp, "ann");
    GameClient bob = account(*server, Transport::Ws, "bob");
    GameClient guest = GameClient::connect(*server, Transport::Tcp, "gus");

    // Rated games: accounts only, never against the computer nor on another variant.
    const json blitz = {{"initial_ms", 180000}, {"increment_ms", 2000}};
    guest.conn->send({{"type", "create_game"},
                      {"time_control", blitz},
                      {"color", "silver"},
                      {"public", true},
                      {"rated", true}});
    CHECK(guest.conn->recv()["code"] == "account_required");
    ann.conn->send({{"type", "create_game"},
                    {"time_control", blitz},
                    {"color", "silver"},
                    {"public", true},
                    {"rated", true},
                    {"bot", 2}});
    CHECK(ann.conn->recv()["code"] == "not_ratable");
    ann.conn->send({{"type", "create_game"},
                    {"time_control", blitz},
                    {"rated", true},
                    {"color", "silver"},
                    {"public", true},
                    {"variant", {{"size", 9}, {"elephants", 4}, {"burnt", 3}, {"quiet", 40}}}});
    CHECK(ann.conn->recv()["code"] == "not_ratable");

    ann.conn->send({{"type", "create_game"},
                    {"time_control", blitz},
                    {"color", "silver"},
                    {"public", true},
                    {"rated", true}});
    const std::string code = ann.recv_until("game_created")["code"];
    json snap = ann.recv_until("snapshot");
    CHECK(snap["rated"] == true);
    CHECK(snap["players"]["silver"]["rating"]["rating"] == 1500);
    CHECK(snap["players"]["silver"]["rating"]["provisional"] == true);
    guest.conn->send({{"type", "join_game"}, {"code", code}});
    CHECK(guest.conn->recv()["code"] == "account_required");
    bob.conn->send({{"type", "join_game"}, {"code", code}});
    bob.recv_until("snapshot");
    ann.sync_to(bob.version);

    Rng rng(5);
    for (int i = 0; i < 4; ++i) play_one(ann, bob, rng);  // both setups, two turns
    bob.conn->send({{"type", "resign"}, {"game", code}});
    for (GameClient* c : {&ann, &bob}) {
        json r = next_event(*c, "ratings");
        CHECK(r["payload"]["category"] == "blitz");
        const auto& silver = r["payload"]["silver"];
        const auto& bronze = r["payload"]["bronze"];
        CHECK(silver["before"] == 1500);
        CHECK(silver["after"]["rating"].get<int>() > 1500);
        CHECK(bronze["after"]["rating"].get<int>() < 1500);
        CHECK(silver["after"]["games"] == 1);
        REQUIRE(c->mirror->ratings());
        CHECK(c->mirror->ratings()->change[0]->after.rating == silver["after"]["rating"]);
    }
    // Catching up on the finished game repeats the changes (they are not versioned).
    ann.conn->send({{"type", "watch"}, {"code", code}, {"since_version", ann.version}});
    CHECK(next_event(ann, "ratings")["payload"]["category"] == "blitz");
    auto page = http_get(server->http_port(), "/api/players/ANN");
    REQUIRE(page.status == 200);
    json p = json::parse(page.body);
    const int after = p["ratings"]["blitz"]["rating"];
    CHECK(after > 1500);
    CHECK(p["ratings"]["blitz"]["games"] == 1);
    CHECK(p["totals"]["silver"]["wins"] == 1);
    CHECK(p["history"]["blitz"].size() == 1);
    CHECK(p["recent"][0]["code"] == code);
    CHECK(p["recent"][0]["rated"] == true);

    // kill -9 right after: the game stays rated once; the account and its ratings survive.
    server->kill_hard();
    server = std::make_unique<ServerProcess>(with_data(t.path));
    page = http_get(server->http_port(), "/api/players/ann");
    REQUIRE(page.status == 200);
    p = json::parse(page.body);
    CHECK(p["ratings"]["blitz"]["rating"] == after);
    CHECK(p["ratings"]["blitz"]["games"] == 1);
    GameClient again = GameClient::connect(*server, Transport::Tcp, "", ann.token);
    CHECK(again.player_id == ann.player_id);
    GameClient relog = GameClient::connect(*server, Transport::Ws, "");
    json w = login(relog, "bob", "secret-bob");
    REQUIRE(w["type"] == "welcome");
    CHECK(w["account"]["ratings"]["blitz"]["rating"].get<int>() < 1500);

    // One game is not enough for the leaderboard (a provisional rating); unknown names are 404.
    auto board = http_get(server->http_port(), "/api/leaderboard?category=blitz");
    REQUIRE(board.status == 200);
    CHECK(json::parse(board.body)["players"].empty());
    CHECK(http_get(server->http_port(), "/api/leaderboard?category=nope").status == 400);
    CHECK(http_get(server->http_port(), "/api/players/nobody").status == 404);
    CHECK(http_get(server->http_port(), "/@/ann").status == 200);  // the page's own route
}

// A rated game restored after kill -9 keeps both seats as accounts: after the game, a rematch
// offered and accepted seats both players in the next rated game.
TEST_CASE("rated_rematch_after_restart") {
    TempDir t;
    auto server = std::make_unique<ServerProcess>(with_data(t.path));
    GameClient ann = account(*server, Transport::Tcp, "ann");
    GameClient bob = account(*server, Transport::Ws, "bob");
    ann.conn->send({{"type", "create_game"},
                    {"time_control", {{"initial_ms", 180000}, {"increment_ms", 2000}}},
                    {"color", "silver"},
                    {"public", false},
                    {"rated", true}});
    const std::string code = ann.recv_until("game_created")["code"];
    ann.recv_until("snapshot");
    bob.conn->send({{"type", "join_game"}, {"code", code}});
    bob.recv_until("snapshot");
    ann.sync_to(bob.version);
    Rng rng(7);
    for (int i = 0; i < 4; ++i) play_one(ann, bob, rng);

    server->kill_hard();
    server = std::make_unique<ServerProcess>(with_data(t.path));
    CHECK(server->log().find("1 unfinished games restored") != std::string::npos);
    GameClient a2 = GameClient::connect(*server, Transport::Tcp, "", ann.token);
    GameClient b2 = GameClient::connect(*server, Transport::Ws, "", bob.token);
    for (GameClient* c : {&a2, &b2}) {
        c->code = code;
        c->conn->send({{"type", "watch"}, {"code", code}});
        c->recv_until("snapshot");
    }
    b2.conn->send({{"type", "resign"}, {"game", code}});
    a2.sync_until_over();
    b2.sync_until_over();
    const json rematch = {{"type", "rematch"}, {"game", code}};
    a2.conn->send(rematch);  // ann created the game: her seat is the one rebuilt on restart
    next_event(b2, "rematch_offer");
    b2.conn->send(rematch);  // accepts
    json ma = a2.recv_until("matched"), mb = b2.recv_until("matched");
    CHECK(ma["code"] == mb["code"]);
    CHECK(ma["side"] == "bronze");
    CHECK(mb["side"] == "silver");
    json snap = a2.recv_until("snapshot");
    CHECK(snap["game"] == ma["code"]);
    CHECK(snap["rated"] == true);
    CHECK(snap["status"] == "playing");
}

TEST_CASE("rated_quick_match") {
    ServerProcess s;
    GameClient ann = account(s, Transport::Tcp, "ann");
    GameClient bob = account(s, Transport::Ws, "bob");
    GameClient guest = GameClient::connect(s, Transport::Tcp, "gus");
    const json rapid = {{"initial_ms", 600000}, {"increment_ms", 0}};
    guest.conn->send({{"type", "quick_match"}, {"time_control", rapid}, {"rated", true}});
    CHECK(guest.conn->recv()["code"] == "account_required");
    // A casual request does not pair with a rated one.
    guest.conn->send({{"type", "quick_match"}, {"time_control", rapid}});
    CHECK(guest.conn->recv()["type"] == "quick_match_waiting");
    ann.conn->send({{"type", "quick_match"}, {"time_control", rapid}, {"rated", true}});
    json waiting = ann.conn->recv();
    CHECK(waiting["type"] == "quick_match_waiting");
    CHECK(waiting["rated"] == true);
    bob.conn->send({{"type", "quick_match"}, {"time_control", rapid}, {"rated", true}});
    const json matched = ann.recv_until("matched");
    CHECK(matched["code"].is_string());
    CHECK(matched["code"] == bob.recv_until("matched")["code"]);
    json snap = ann.recv_until("snapshot");
    CHECK(snap["rated"] == true);
}

}  // namespace tf::test
