// Store faults through the real server (docs/ARCHITECTURE.md "Failures"), injected with
// --fault-file: reads that fail (token lookups, the history API), writes that fail or are
// reported failed after reaching the disk (fsync), and slow commits. The process stays up, the
// game is suspended and shown as such everywhere, new games are refused, /readyz says not ready,
// and when the faults end the game resumes where it was saved and finishes. (Disk full for real:
// disk_full_test.py, on a small tmpfs.)
#include <doctest/doctest.h>

#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

using nlohmann::json;

json wait_for(GameClient& c, const std::string& type) {
    for (;;) {
        json m = c.conn->recv();
        if (m["type"] == type) return m;
        c.apply(m);
    }
}

}  // namespace

TEST_CASE("store_faults") {
    TempDir t;
    const std::string faults = t.path + "/faults";
    set_faults(faults, "");
    auto args = with_data(t.path + "/data");
    args.insert(args.end(), {"--fault-file", faults, "--workers", "2"});
    std::string bob_token, cat_token;
    {
        ServerProcess s(args);
        GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
        bob_token = GameClient::connect(s, Transport::Ws, "bob").token;
        cat_token = GameClient::connect(s, Transport::Ws, "cat").token;
    }
    ServerProcess s(args);  // tokens are now known to the store only
    GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(s, Transport::Ws, "bob", bob_token);
    start_game(a, b);
    Rng rng(3);
    int acked = 0;
    for (int i = 0; i < 4; ++i, ++acked) play_one(a, b, rng);

    // Reads fail: a token lookup says so (not bad_token: the token is good), and so does the
    // history API; playing goes on (it only writes).
    set_faults(faults, "reads=fail\n");
    {
        auto c = client::connect_tcp("127.0.0.1", s.tcp_port());
        c->send({{"type", "hello"}, {"version", 1}, {"token", cat_token}});
        json e = c->recv_type("error");
        CHECK(e["code"] == "store_unavailable");
    }
    CHECK(api(s, "/api/games", 503)["error"] == "store_unavailable");
    play_one(a, b, rng);
    ++acked;

    // Writes fail: the mover's turn is refused with its ref, the game is suspended at its last
    // saved version; new games are refused; /readyz is not ready; everything else answers.
    set_faults(faults, "write=fail\n");
    GameClient& mover = a.game->to_move() == *a.side ? a : b;
    GameClient& other = &mover == &a ? b : a;
    const std::int64_t saved = a.version;
    json lost = random_action(mover, rng, "lost");
    mover.conn->send(lost);
    json e = wait_for(mover, "error");
    CHECK(e["code"] == "store_failed");
    CHECK(e["ref"] == "lost");
    CHECK(e["version"] == saved);
    CHECK(wait_for(other, "error")["code"] == "store_failed");
    CHECK(http_get(s.http_port(), "/readyz").status == 503);
    CHECK(http_get(s.http_port(), "/healthz").status == 200);
    a.conn->send({{"type", "create_game"},
                  {"time_control", nullptr},
                  {"color", "silver"},
                  {"public", true},
                  {"ref", "new-game"}});
    {
        // Refused with its ref: a client waiting for the answer to its request gets it (the
        // nemesis's clients waited 15 s for a refusal that came without one).
        json refused = wait_for(a, "error");
        CHECK(refused["code"] == "store_unavailable");
        CHECK(refused["ref"] == "new-game");
    }
    {
        GameClient w = GameClient::connect(s, Transport::Ws, "watcher");
        w.conn->send({{"type", "watch"}, {"code", a.code}});
        json snap = w.recv_until("snapshot");
        CHECK(snap["status"] == "suspended");
        CHECK(snap["version"] == saved);
        w.conn->send({{"type", "list_live"}});
        json live = w.conn->recv_type("live");
        REQUIRE(live["games"].size() == 1);
        CHECK(live["games"][0]["status"] == "suspended");
    }
    CHECK(api(s, "/api/games/" + a.code)["status"] == "suspended");
    auto metrics = http_get(s.http_port(), "/metrics").body;
    CHECK(metrics.find("trunkfield_games_suspended 1") != std::string::npos);
    CHECK(metrics.find("trunkfield_store_healthy 0") != std::string::npos);

    // Written, but reported failed (fsync): acknowledged, then suspended; what reached the disk is
    // the truth.
    set_faults(faults, "write=ok\n");
    for (auto* c : {&a, &b}) {
        json snap = wait_for(*c, "snapshot");
        c->apply(snap);
        CHECK(snap["status"] == "playing");
        CHECK(snap["version"] == saved);
    }
    CHECK(http_get(s.http_port(), "/readyz").status == 200);
    CHECK(api(s, "/api/games/" + a.code)["status"] == "playing");
    set_faults(faults, "write=fsync\n");
    GameClient& m2 = a.game->to_move() == *a.side ? a : b;
    m2.conn->send(random_action(m2, rng, "fs"));
    // The store holds it: acknowledged (never a false store_failed), then paused like the rest.
    CHECK(wait_for(m2, "ack")["ref"] == "fs");
    CHECK(wait_for(m2, "error")["code"] == "store_failed");
    set_faults(faults, "write=ok\n");
    for (auto* c : {&a, &b}) {
        json snap = wait_for(*c, "snapshot");
        c->apply(snap);
        CHECK(snap["version"] == saved + 1);  // the turn did reach the store
    }
    ++acked;

    // Slow commits: the game goes on, other connections are answered meanwhile.
    set_faults(faults, "commit_delay_ms=800\n");
    GameClient& m3 = a.game->to_move() == *a.side ? a : b;
    m3.conn->send(random_action(m3, rng, "slow"));
    {
        auto c = client::connect_tcp("127.0.0.1", s.tcp_port());
        c->send({{"type", "ping"}});
        CHECK(c->recv_type("pong")["type"] == "pong");
    }
    json slow = wait_for(m3, "ack");
    CHECK(slow["ref"] == "slow");
    ++acked;
    set_faults(faults, "");
    a.sync_to(slow["version"]);
    b.sync_to(slow["version"]);

    // Play to the end; every acknowledged turn is in the record.
    while (!a.game->over()) {
        play_one(a, b, rng);
        ++acked;
    }
    json record = api(s, "/api/games/" + a.code)["record"];
    CHECK(int(record["turns"].size()) + 2 == acked);  // both setups were acknowledged too
    CHECK(s.alive());
}

}  // namespace tf::test
