#include "game_client.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <doctest/doctest.h>

#include "common/json.h"

namespace tf::test {

using nlohmann::json;

GameClient GameClient::connect(ServerProcess& s, Transport t, const std::string& name,
                               const std::string& token) {
    GameClient c;
    c.conn = t == Transport::Tcp ? client::connect_tcp("127.0.0.1", s.tcp_port())
                                 : client::connect_ws("127.0.0.1", s.http_port());
    json hello = {{"type", "hello"}, {"version", 1}, {"name", name}};
    if (!token.empty()) hello["token"] = token;
    c.conn->send(hello);
    json w = c.conn->recv();
    REQUIRE(w["type"] == "welcome");
    c.player_id = w["player_id"];
    c.token = w["token"];
    CHECK(w["token"].get<std::string>().size() == 48);
    return c;
}

bool GameClient::apply(const json& m) {
    if (m["type"] == "snapshot") {
        auto g = game_from_json(m["state"]);
        REQUIRE(bool(g));
        game = *g;
        version = m["version"];
        code = m["game"];
        for (Side s : {Side::Silver, Side::Bronze}) {
            const json& p = m["players"][std::string(side_name(s))];
            if (!p.is_null() && p["id"] == player_id) side = s;
        }
        return true;
    }
    if (m["type"] != "event") return false;
    std::int64_t v = m["version"];
    if (v <= version) return true;  // already part of the snapshot
    CHECK(v == version + 1);        // no gaps
    version = v;
    const json& p = m["payload"];
    std::string kind = m["kind"];
    if (kind == "setup") {
        auto st = setup_from_json(p["setup"]);
        REQUIRE(bool(st));
        CHECK(!game->apply_setup(*parse_side(p["side"].get<std::string>()), *st));
    } else if (kind == "turn") {
        auto t = turn_from_json(p["turn"]);
        REQUIRE(bool(t));
        CHECK(!game->apply_turn(*t));
    } else if (kind == "resign") {
        game->resign(*parse_side(p["side"].get<std::string>()));
    } else if (kind == "timeout") {
        game->resign(*parse_side(p["side"].get<std::string>()), EndReason::Time);
    } else if (kind == "abandon") {
        game->resign(*parse_side(p["side"].get<std::string>()), EndReason::Abandon);
    } else if (kind == "draw_accept") {
        game->agree_draw();
    } else if (kind == "abort") {
        aborted = true;
    } else if (kind == "game_over") {
        over = true;
        result = p;
        if (aborted)
            CHECK(result["reason"] == "aborted");
        else
            CHECK(result == result_to_json(*game));
    }
    return true;
}

json GameClient::recv_until(const std::string& type) {
    for (;;) {
        json m = conn->recv();
        bool applied = apply(m);
        if (m["type"] == type) return m;
        if (!applied && m["type"] != "lobby" && m["type"] != "pong" && m["type"] != "shutdown")
            FAIL("unexpected message: " << m.dump());
    }
}

void GameClient::sync_to(std::int64_t v) {
    while (version < v) recv_until("event");
}

void GameClient::sync_until_over() {
    while (!over) recv_until("event");
}

void start_game(GameClient& a, GameClient& b) {
    a.conn->send({{"type", "create_game"},
                  {"time_control", nullptr},
                  {"color", "silver"},
                  {"public", true}});
    json created = a.recv_until("game_created");
    std::string code = created["code"];
    CHECK(created["link"] == "/g/" + code);
    a.recv_until("snapshot");
    CHECK(a.side == Side::Silver);
    b.conn->send({{"type", "join_game"}, {"code", code}});
    b.recv_until("snapshot");
    CHECK(b.side == Side::Bronze);
    a.sync_to(b.version);
}

json random_action(const GameClient& c, Rng& rng, const std::string& ref) {
    const Game& g = *c.game;
    json msg = {{"game", c.code}, {"version", c.version}, {"ref", ref}};
    if (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
        msg["type"] = "setup";
        msg["setup"] = to_json(random_setup(g, rng));
    } else {
        MoveList ml;
        g.generate(ml);
        Turn t = ml.size == 0 ? Turn{} : g.to_turn(ml[int(rng.below(std::uint32_t(ml.size)))]);
        msg["type"] = "turn";
        msg["turn"] = to_json(t);
    }
    return msg;
}

int connect_loopback(unsigned short port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    return fd;
}

std::int64_t play_one(GameClient& a, GameClient& b, Rng& rng, bool sync_a) {
    GameClient& mover = a.game->to_move() == *a.side ? a : b;
    mover.conn->send(random_action(mover, rng, "r"));
    json ack = mover.recv_until("ack");
    CHECK(ack["ref"] == "r");
    std::int64_t v = ack["version"];
    if (sync_a) a.sync_to(v);
    b.sync_to(v);
    return v;
}

}  // namespace tf::test
