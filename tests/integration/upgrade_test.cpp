// Upgrades: a database written by an earlier release (tests/fixtures/schemaN, made by that
// release's server) opens in this one, is migrated, answers the history API byte for byte as
// the old server did, and its unfinished games go on where they stopped.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "common/json.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json fixture(const std::string& name) {
    std::ifstream in(std::string(TF_FIXTURES_DIR) + "/" + name + "/fixture.json");
    REQUIRE(in);
    return json::parse(in);
}

std::string copy_db(const std::string& name, const TempDir& t) {
    const std::string dir = t.path + "/data";
    fs::create_directories(dir);
    fs::copy_file(std::string(TF_FIXTURES_DIR) + "/" + name + "/trunkfield.db",
                  dir + "/trunkfield.db");
    return dir;
}

}  // namespace

TEST_CASE("upgrade_schema1") {
    const json fx = fixture("schema1");
    TempDir t;
    const std::string dir = copy_db("schema1", t);
    ServerProcess s(with_data(dir));
    CHECK(s.log().find("to schema version 2") != std::string::npos);
    CHECK(s.log().find("4 unfinished games restored, 0 quarantined") != std::string::npos);

    // The history API says exactly what the old server said, to ann (every private game of the
    // fixture is one of hers: others no longer see them in the lists).
    const std::string as_ann =
        "Authorization: Bearer " + fx["players"]["ann"]["token"].get<std::string>() + "\r\n";
    for (auto& [target, body] : fx["api"].items()) {
        auto r = http_get(s.http_port(), target, as_ann);
        INFO(target);
        CHECK(r.status == 200);
        CHECK(r.body == body.get<std::string>());
    }

    // The unfinished timed game goes on from its ninth turn, its draw offer still standing.
    const std::string code = fx["games"]["unfinished_timed"];
    const json& rec = fx["g3_record"];
    GameClient a = GameClient::connect(s, Transport::Tcp, "", fx["players"]["ann"]["token"]);
    GameClient b = GameClient::connect(s, Transport::Ws, "", fx["players"]["bob"]["token"]);
    CHECK(a.player_id == fx["players"]["ann"]["id"]);
    for (auto* c : {&a, &b}) {
        c->conn->send({{"type", "watch"}, {"code", code}});
        json snap = c->recv_until("snapshot");
        CHECK(snap["status"] == "playing");
        CHECK(snap["draw_offer"] == "bronze");
        CHECK(snap["record"]["turns"].size() == 9);
        CHECK(snap["clocks"]["running"] == "bronze");
    }
    a.sync_to(b.version);
    b.sync_to(a.version);
    for (std::size_t i = fx["g3_played"]; i < rec["turns"].size(); ++i) {
        GameClient& mover = a.game->to_move() == *a.side ? a : b;
        mover.conn->send({{"type", "turn"},
                          {"game", code},
                          {"turn", rec["turns"][i]},
                          {"version", mover.version},
                          {"ref", "u" + std::to_string(i)}});
        json ack = mover.recv_until("ack");
        a.sync_to(ack["version"]);
        b.sync_to(ack["version"]);
    }
    a.sync_until_over();
    json stored = api(s, "/api/games/" + code);
    CHECK(stored["status"] == "over");
    CHECK(stored["record"]["turns"] == rec["turns"]);

    // The game against the computer goes on: ann's turn, then the computer's.
    const std::string bot = fx["games"]["bot"];
    a.conn->send({{"type", "watch"}, {"code", bot}});
    a.recv_until("snapshot");
    Rng rng(1);
    a.conn->send(random_action(a, rng, "bt"));
    std::int64_t v = a.recv_until("ack")["version"];
    a.sync_to(v + 1);  // the computer's answer
    CHECK(a.game->turns_played() == 2);
}

}  // namespace tf::test
