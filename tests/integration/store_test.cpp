// The durable store through the real server: a new data directory is created and migrated,
// unusable ones are refused with a clear message, a game survives kill -9 and goes on with the
// players' tokens, and the history API lists, pages and exports games.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/json.h"
#include "common/record.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int user_version(const std::string& db_path) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    int v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

void set_user_version(const std::string& db_path, int v) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(db_path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, ("PRAGMA user_version = " + std::to_string(v)).c_str(), nullptr,
                         nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
}

// The server must refuse to start; its log must say `why`.
void refuses(const std::vector<std::string>& args, const std::string& why) {
    try {
        ServerProcess s(args);
        FAIL("the server started");
    } catch (const std::runtime_error& e) {
        std::string log = e.what();
        INFO(log);
        CHECK(log.find(why) != std::string::npos);
    }
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("store_migrate") {
    TempDir t;
    const std::string dir = t.path + "/new/nested";  // created when missing
    {
        ServerProcess s(with_data(dir));
        CHECK(s.log().find("migrated") != std::string::npos);
        GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
    }
    CHECK(user_version(dir + "/trunkfield.db") == 11);
    ServerProcess again(with_data(dir));  // an up-to-date database: no migration
    CHECK(again.log().find("migrated") == std::string::npos);
}

TEST_CASE("store_refusals") {
    TempDir t;
    SUBCASE("newer schema") {
        { ServerProcess s(with_data(t.path)); }
        set_user_version(t.path + "/trunkfield.db", 99);
        refuses(with_data(t.path), "schema version 99, newer than this server's 11");
        CHECK(user_version(t.path + "/trunkfield.db") == 99);  // left as it was
    }
    SUBCASE("corrupt database") {
        const std::string garbage(8192, '\x5a');
        std::ofstream(t.path + "/trunkfield.db", std::ios::binary) << garbage;
        refuses(with_data(t.path), "is unreadable");
        CHECK(slurp(t.path + "/trunkfield.db") == garbage);
    }
    SUBCASE("data path is a file") {
        std::ofstream(t.path + "/file") << "x";
        refuses(with_data(t.path + "/file/data"), "cannot create the data directory");
    }
    SUBCASE("a second server on the same directory") {
        ServerProcess first(with_data(t.path));
        refuses(with_data(t.path), "in use by another server");
        CHECK(first.alive());
    }
}

// kill -9 in the middle of a game: both players come back with their tokens to the same
// position and finish the game; the finished record replays to the stored result.
TEST_CASE("store_resume") {
    TempDir t;
    auto server = std::make_unique<ServerProcess>(with_data(t.path));
    GameClient a = GameClient::connect(*server, Transport::Ws, "ann");
    GameClient b = GameClient::connect(*server, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(11);
    for (int i = 0; i < 12; ++i) play_one(a, b, rng);
    const json before = state_to_json(*a.game);
    const std::string code = a.code;
    server->kill_hard();
    server = std::make_unique<ServerProcess>(with_data(t.path));
    CHECK(server->log().find("1 unfinished games restored") != std::string::npos);

    GameClient a2 = GameClient::connect(*server, Transport::Tcp, "", a.token);
    GameClient b2 = GameClient::connect(*server, Transport::Ws, "", b.token);
    CHECK(a2.player_id == a.player_id);
    for (GameClient* c : {&a2, &b2}) {
        c->code = code;
        c->conn->send({{"type", "watch"}, {"code", code}});
        c->recv_until("snapshot");
    }
    a2.side = a.side;
    b2.side = b.side;
    CHECK(state_to_json(*a2.game) == before);
    CHECK(state_to_json(*b2.game) == before);
    while (!a2.game->over()) play_one(a2, b2, rng);
    a2.sync_until_over();
    b2.sync_until_over();

    json meta = api(*server, "/api/games/" + code);
    CHECK(meta["status"] == "over");
    CHECK(meta["result"] == a2.result);
    auto replay = replay_record(meta["record"]);
    REQUIRE(replay);
    CHECK(!replay->error);
    CHECK(state_to_json(replay->game) == state_to_json(*a2.game));
}

// SIGTERM: every client is told, the server exits 0 promptly, and the game goes on after the
// restart from where it was.
TEST_CASE("graceful_shutdown") {
    TempDir t;
    auto server = std::make_unique<ServerProcess>(with_data(t.path));
    GameClient a = GameClient::connect(*server, Transport::Ws, "ann");
    GameClient b = GameClient::connect(*server, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(5);
    for (int i = 0; i < 6; ++i) play_one(a, b, rng);
    const json before = state_to_json(*a.game);
    CHECK(server->terminate() == 0);
    for (GameClient* c : {&a, &b}) {
        json m = c->recv_until("shutdown");
        CHECK(m["retry_after_ms"].get<int>() > 0);
        CHECK_THROWS_AS(c->conn->recv(), client::Closed);
    }
    server = std::make_unique<ServerProcess>(with_data(t.path));
    GameClient a2 = GameClient::connect(*server, Transport::Tcp, "", a.token);
    a2.conn->send({{"type", "watch"}, {"code", a.code}});
    a2.recv_until("snapshot");
    CHECK(state_to_json(*a2.game) == before);
}

TEST_CASE("history_api") {
    ServerProcess s(kFast);
    GameClient ann = GameClient::connect(s, Transport::Tcp, "ann");
    std::vector<std::string> finished;
    std::string ann_id = ann.player_id;
    for (int i = 0; i < 3; ++i) {  // three finished games between ann and someone new
        GameClient a = GameClient::connect(s, Transport::Tcp, "", ann.token);
        GameClient b = GameClient::connect(s, Transport::Tcp, "guest" + std::to_string(i));
        start_game(a, b);
        Rng rng(i);
        for (int k = 0; k < 4; ++k) play_one(a, b, rng);
        b.conn->send({{"type", "resign"}, {"game", b.code}});
        a.sync_until_over();
        finished.push_back(a.code);
    }
    GameClient c = GameClient::connect(s, Transport::Tcp, "cat");
    GameClient d = GameClient::connect(s, Transport::Tcp, "dan");
    start_game(c, d);  // one live game
    Rng rng(9);
    play_one(c, d, rng);

    json all = api(s, "/api/games");
    REQUIRE(all["games"].size() == 4);
    CHECK(all["games"][0]["code"] == c.code);  // newest first
    CHECK(all["games"][0]["status"] == "playing");
    CHECK(all["games"][3]["code"] == finished[0]);
    CHECK(all["next"].is_null());

    json live = api(s, "/api/games?status=live");
    REQUIRE(live["games"].size() == 1);
    CHECK(live["games"][0]["players"]["silver"]["name"] == "cat");

    // Pagination: 2 + 1 finished games of ann's, newest first, no overlap.
    json p1 = api(s, "/api/games?status=finished&player=" + ann_id + "&limit=2");
    REQUIRE(p1["games"].size() == 2);
    REQUIRE(p1["next"].is_string());
    CHECK(p1["games"][0]["code"] == finished[2]);
    CHECK(p1["games"][1]["code"] == finished[1]);
    json p2 = api(s, "/api/games?status=finished&player=" + ann_id +
                         "&limit=2&before=" + p1["next"].get<std::string>());
    REQUIRE(p2["games"].size() == 1);
    CHECK(p2["games"][0]["code"] == finished[0]);
    CHECK(p2["next"].is_null());
    CHECK(p2["games"][0]["result"]["reason"] == "resign");
    CHECK(p2["games"][0]["finished_at"].is_string());

    // One game, with its record, and the exports.
    json one = api(s, "/api/games/" + finished[0]);
    CHECK(one["record"]["turns"].size() == 2);  // 2 setups + 2 turns were played
    auto rec = http_get(s.http_port(), "/api/games/" + finished[0] + "/record");
    CHECK(rec.status == 200);
    CHECK(rec.headers.find("attachment; filename=\"trunkfield-" + finished[0] + ".json\"") !=
          std::string::npos);
    CHECK(json::parse(rec.body) == one["record"]);
    auto txt = http_get(s.http_port(), "/api/games/" + finished[0] + "/notation");
    CHECK(txt.status == 200);
    CHECK(txt.headers.find("text/plain") != std::string::npos);
    CHECK(txt.body.find("[Game \"" + finished[0] + "\"]") != std::string::npos);
    CHECK(txt.body.find("\n1. silver ") != std::string::npos);
    CHECK(txt.body.find("\n2. bronze ") != std::string::npos);

    // Errors: clear, and nothing changes.
    api(s, "/api/games/" + c.code + "/record", 409);
    api(s, "/api/games/zzzzzz", 404);
    api(s, "/api/games?limit=0", 400);
    api(s, "/api/games?limit=x", 400);
    api(s, "/api/games?status=weird", 400);
    api(s, "/api/games?colour=red", 400);
    api(s, "/api/nothing", 404);
    CHECK(api(s, "/api/games")["games"].size() == 4);
}

}  // namespace tf::test

namespace tf::test {

// /readyz and /metrics: the counters move with what happens.
TEST_CASE("metrics") {
    ServerProcess s(kFast);
    CHECK(http_get(s.http_port(), "/readyz").status == 200);
    GameClient a = GameClient::connect(s, Transport::Ws, "ann");
    GameClient b = GameClient::connect(s, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(3);
    for (int i = 0; i < 6; ++i) play_one(a, b, rng);
    a.conn->send({{"type", "turn"}, {"game", a.code}, {"turn", json::object()}, {"ref", "x"}});
    a.recv_until("error");
    auto m = http_get(s.http_port(), "/metrics");
    CHECK(m.status == 200);
    INFO(m.body);
    auto value = [&](const std::string& name) {
        auto p = m.body.find("\n" + name + " ");
        REQUIRE(p != std::string::npos);
        return std::stod(m.body.substr(p + name.size() + 2));
    };
    CHECK(value("trunkfield_connections{transport=\"ws\"}") == 1);
    CHECK(value("trunkfield_connections{transport=\"tcp\"}") == 1);
    CHECK(value("trunkfield_players") == 2);
    CHECK(value("trunkfield_live_games") == 1);
    CHECK(value("trunkfield_turns_accepted_total") == 4);
    CHECK(value("trunkfield_setups_accepted_total") == 2);
    CHECK(value("trunkfield_rejected_total{code=\"not_your_turn\"}") +
              value("trunkfield_rejected_total{code=\"illegal_turn\"}") ==
          1);
    CHECK(value("trunkfield_turn_seconds_count") == 4);
    CHECK(value("trunkfield_store_commit_seconds_count") >= 6);
    CHECK(value("trunkfield_messages_in_total") >= 10);
    CHECK(value("trunkfield_resident_memory_bytes") > 1e6);
}

}  // namespace tf::test
