// Quick match (pairing, idempotence, no self-pairing, cancel, disconnect) and the live-games
// list, against the real server.
#include <doctest/doctest.h>

#include <cctype>
#include <chrono>
#include <thread>

#include "client/lib/traffic_log.h"
#include "common/json.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

using nlohmann::json;

json quick(const json& time_control) {
    return {{"type", "quick_match"}, {"time_control", time_control}};
}
const json kBlitz = {{"initial_ms", 180000}, {"increment_ms", 2000}};

// Waits (bounded) until the server log contains `text`: the only way to observe that the
// server has processed a disconnect.
void wait_for_log(ServerProcess& s, const std::string& text) {
    for (int i = 0; i < 1000 && s.log().find(text) == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(s.log().find(text) != std::string::npos);
}

// Reads `c` until a quick-match answer; returns it.
json answer(GameClient& c) {
    for (;;) {
        json m = c.conn->recv();
        if (m["type"] == "quick_match_waiting" || m["type"] == "matched" ||
            m["type"] == "quick_match_cancelled")
            return m;
        REQUIRE(m["type"] != "error");
    }
}

}  // namespace

// Codes are case-insensitive: a code typed in capitals joins and watches its game.
TEST_CASE("codes_any_case") {
    ServerProcess server(kFast);
    GameClient a = GameClient::connect(server, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    GameClient c = GameClient::connect(server, Transport::Tcp, "cy");
    a.conn->send({{"type", "create_game"},
                  {"time_control", nullptr},
                  {"color", "silver"},
                  {"public", false}});
    const std::string code = a.recv_until("game_created")["code"];
    std::string upper = code;
    for (char& ch : upper) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    REQUIRE(upper != code);
    b.conn->send({{"type", "join_game"}, {"code", upper}});
    json snap = b.recv_until("snapshot");
    CHECK(snap["game"] == code);
    CHECK(b.side == Side::Bronze);
    c.conn->send({{"type", "watch"}, {"code", upper}});
    CHECK(c.recv_until("snapshot")["game"] == code);
    // still no code: letters and digits only
    c.conn->send({{"type", "watch"}, {"code", "AB-C"}});
    CHECK(c.recv_until("error")["code"] == "bad_message");
}

TEST_CASE("quick_match") {
    ServerProcess server(kFast);
    GameClient a = GameClient::connect(server, Transport::Ws, "ann");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");

    // Asking twice is acknowledged twice and files one request.
    a.conn->send(quick(kBlitz));
    CHECK(answer(a)["type"] == "quick_match_waiting");
    a.conn->send(quick(kBlitz));
    json w = answer(a);
    CHECK(w["type"] == "quick_match_waiting");
    CHECK(w["time_control"] == kBlitz);
    // The same player on a second connection is never paired with himself; the request moves.
    GameClient a2 = GameClient::connect(server, Transport::Tcp, "", a.token);
    a2.conn->send(quick(kBlitz));
    CHECK(answer(a2)["type"] == "quick_match_waiting");
    // Another time control is another pool.
    GameClient c = GameClient::connect(server, Transport::Tcp, "cat");
    c.conn->send(quick(nullptr));
    CHECK(answer(c)["type"] == "quick_match_waiting");

    b.conn->send(quick(kBlitz));
    json mb = answer(b);
    REQUIRE(mb["type"] == "matched");
    json ma = answer(a2);
    REQUIRE(ma["type"] == "matched");
    CHECK(ma["code"] == mb["code"]);
    CHECK(ma["link"] == "/g/" + mb["code"].get<std::string>());
    CHECK(ma["side"] != mb["side"]);
    b.recv_until("snapshot");
    a2.recv_until("snapshot");
    b.sync_to(a2.version);  // the creator's snapshot precedes the join event
    CHECK(a2.side == parse_side(ma["side"].get<std::string>()));
    CHECK(b.side == parse_side(mb["side"].get<std::string>()));
    CHECK(b.game->phase() == Phase::SetupSilver);

    // Nobody is left waiting in the blitz pool: a new request waits (ann is not paired twice).
    GameClient d = GameClient::connect(server, Transport::Ws, "dan");
    d.conn->send(quick(kBlitz));
    CHECK(answer(d)["type"] == "quick_match_waiting");
    // Cancel withdraws: eve does not get dan.
    d.conn->send({{"type", "quick_match_cancel"}});
    CHECK(answer(d)["type"] == "quick_match_cancelled");
    GameClient e = GameClient::connect(server, Transport::Tcp, "eve");
    e.conn->send(quick(kBlitz));
    CHECK(answer(e)["type"] == "quick_match_waiting");

    // The last connection closing withdraws: cat's untimed request dies with her connection.
    c.conn->close();
    wait_for_log(server, "request of " + c.player_id + " withdrawn");
    GameClient f = GameClient::connect(server, Transport::Ws, "fay");
    f.conn->send(quick(nullptr));
    CHECK(answer(f)["type"] == "quick_match_waiting");

    // The matched game is a normal game: play a few turns, then resign.
    Rng rng(21);
    GameClient& first = a2.side == Side::Silver ? a2 : b;
    GameClient& second = &first == &a2 ? b : a2;
    for (int i = 0; i < 6; ++i) play_one(first, second, rng);
    first.conn->send({{"type", "resign"}, {"game", first.code}});
    first.sync_until_over();
    second.sync_until_over();
    CHECK(first.result == second.result);
    CHECK(server.alive());
}

TEST_CASE("quick_match_bad_input") {
    ServerProcess server(kFast);
    GameClient a = GameClient::connect(server, Transport::Tcp, "ann");
    std::optional<client::traffic::Probe> probe(std::in_place);  // invalid on purpose
    a.conn->send({{"type", "quick_match"}});
    CHECK(a.conn->recv_type("error")["code"] == "bad_message");
    a.conn->send(
        {{"type", "quick_match"}, {"time_control", {{"initial_ms", 0}, {"increment_ms", 0}}}});
    CHECK(a.conn->recv_type("error")["code"] == "bad_message");
    a.conn->send({{"type", "quick_match"},
                  {"time_control", nullptr},
                  {"variant", {{"size", 99}, {"elephants", 5}, {"burnt", 3}, {"quiet", 40}}}});
    CHECK(a.conn->recv_type("error")["code"] == "bad_variant");
    probe.reset();
    // Cancelling without a request is fine (idempotent).
    a.conn->send({{"type", "quick_match_cancel"}});
    CHECK(a.conn->recv()["type"] == "quick_match_cancelled");
}

TEST_CASE("live_list") {
    ServerProcess server({"--rate", "1000000", "--burst", "1000000", "--live-interval-ms", "0"});
    GameClient w = GameClient::connect(server, Transport::Ws, "watcher");
    w.conn->send({{"type", "list_live"}});
    CHECK(w.conn->recv_type("live")["games"].empty());
    // Reads live lists until one satisfies `ok` for the game `code` (absent: null entry).
    auto until = [&](const std::string& code, auto ok) {
        for (;;) {
            json l = w.conn->recv_type("live");
            json entry = nullptr;
            for (auto& g : l["games"])
                if (g["code"] == code) entry = g;
            if (ok(entry)) return entry;
        }
    };

    GameClient a = GameClient::connect(server, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    start_game(a, b);
    json e = until(a.code, [](const json& g) { return !g.is_null(); });
    CHECK(e["players"]["silver"]["id"] == a.player_id);
    CHECK(e["players"]["bronze"]["name"] == "bob");
    CHECK(e["turns"] == 0);
    CHECK(e["spectators"] == 0);
    CHECK(e["time_control"].is_null());

    GameClient s = GameClient::connect(server, Transport::Tcp, "spec");
    s.conn->send({{"type", "watch"}, {"code", a.code}});
    s.recv_until("snapshot");
    until(a.code, [](const json& g) { return !g.is_null() && g["spectators"] == 1; });

    Rng rng(8);
    for (int i = 0; i < 8; ++i) play_one(a, b, rng);
    e = until(a.code,
              [&](const json& g) { return !g.is_null() && g["turns"] == a.game->turns_played(); });
    CHECK(e["score"]["silver"] == a.game->score(Side::Silver));
    CHECK(e["score"]["bronze"] == a.game->score(Side::Bronze));
    CHECK(e["to_move"] == std::string(side_name(a.game->to_move())));

    s.conn->close();
    until(a.code, [](const json& g) { return !g.is_null() && g["spectators"] == 0; });
    b.conn->send({{"type", "resign"}, {"game", a.code}});
    b.sync_until_over();
    until(a.code, [](const json& g) { return g.is_null(); });  // gone when the game ended
}

}  // namespace tf::test
