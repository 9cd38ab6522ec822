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

// Through the client library's game mirror: every event must follow the last version without
// a gap and apply to the rules' copy of the game (the mirror checks both), and the mirror's view
// is copied into the fields the tests read.
bool GameClient::apply(const json& m) {
    auto parsed = proto::parse_server(m);
    REQUIRE_MESSAGE(std::holds_alternative<proto::ServerMsg>(parsed), m.dump());
    const auto& msg = std::get<proto::ServerMsg>(parsed);
    if (!std::holds_alternative<proto::SnapshotMsg>(msg) &&
        !std::holds_alternative<proto::Event>(msg))
        return false;
    // A snapshot of another game: this client moves on to that one.
    if (auto* snap = std::get_if<proto::SnapshotMsg>(&msg); !mirror || (snap && snap->game != code))
        mirror.emplace(player_id);
    auto u = mirror->apply(msg);
    CHECK_MESSAGE(u != client::GameMirror::Update::Gap, "a version gap before " << m.dump());
    CHECK_MESSAGE(u != client::GameMirror::Update::Diverged, "does not apply: " << m.dump());
    code = mirror->code();
    version = mirror->version();
    game = mirror->game();
    if (mirror->my_side()) side = mirror->my_side();
    aborted = mirror->status() == proto::GameStatus::Aborted;
    over = mirror->finished();
    if (mirror->result()) result = json::parse(proto::to_text(*mirror->result()));
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

json until_event(GameClient& c, const std::string& kind) {
    for (;;) {
        json m = c.recv_until("event");
        if (m["kind"] == kind) return m;
    }
}

json send_error(GameClient& c, json msg) {
    c.conn->send(msg);
    return c.recv_until("error");
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
