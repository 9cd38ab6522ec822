// A finished game kept as a summary (issue 21, server/room/room_recovery.h): once its end is
// stored the room drops its state, and late watchers are answered from the store exactly as before
// — a spectator's snapshot, a player's catch-up at or behind the final version — a failed read
// answers store_failed, and a rematch still starts a new game.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <thread>

#include "common/json.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

using nlohmann::json;

bool has_metric(ServerProcess& s, const std::string& line) {
    return http_get(s.http_port(), "/metrics").body.find("\n" + line + "\n") != std::string::npos;
}

void wait_for_metric(ServerProcess& s, const std::string& line) {
    for (int i = 0; i < 200 && !has_metric(s, line); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    REQUIRE_MESSAGE(has_metric(s, line), line);
}

// The next message for `c` but lobby updates and the players' spectator counts, which come
// whenever someone starts or stops watching.
json next_message(GameClient& c) {
    for (;;) {
        json m = c.conn->recv();
        if (m["type"] != "lobby" && !(m["type"] == "event" && m["kind"] == "spectators")) return m;
    }
}

json next_event(GameClient& c, const std::string& kind) {
    for (;;) {
        json m = next_message(c);
        c.apply(m);
        if (m["type"] == "event" && m["kind"] == kind) return m;
    }
}

// Everything `c` receives up to an error (the answer to a request sent after the one under
// test, through the same room: the room answers in order).
std::vector<json> until_error(GameClient& c) {
    std::vector<json> got;
    for (;;) {
        got.push_back(next_message(c));
        if (got.back()["type"] == "error") return got;
    }
}

}  // namespace

TEST_CASE("finished_summary") {
    TempDir t;
    const std::string faults = t.path + "/faults";
    set_faults(faults, "");
    auto args = with_data(t.path + "/data");
    args.insert(args.end(), {"--fault-file", faults});
    ServerProcess server(args);
    GameClient a = GameClient::connect(server, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    start_game(a, b);
    const std::string code = a.code;

    // A spectator from the start keeps every event as it was sent, and the record they make.
    GameClient w = GameClient::connect(server, Transport::Tcp, "wes");
    w.conn->send({{"type", "watch"}, {"code", code}});
    json first = w.recv_until("snapshot");
    json want_record = first["record"];
    std::map<std::int64_t, json> sent;
    auto follow = [&](std::int64_t v) {
        while (w.version < v) {
            json m = w.conn->recv();
            w.apply(m);
            if (m["type"] != "event") continue;
            sent[m["version"]] = m;
            const json& p = m["payload"];
            if (m["kind"] == "setup")
                want_record["setup"][p["side"].get<std::string>()] = p["setup"];
            if (m["kind"] == "turn") want_record["turns"].push_back(p["turn"]);
        }
    };
    Rng rng(21);
    for (int moves = 0; !a.game->over(); ++moves) {
        follow(play_one(a, b, rng));
        REQUIRE(moves < 20000);
    }
    a.sync_until_over();
    b.sync_until_over();
    follow(a.version);
    const std::int64_t final_version = a.version;
    REQUIRE(w.over);
    REQUIRE(sent.size() > 10);

    // The final write is committed: the room becomes a summary; --store memory would not.
    wait_for_metric(server, "trunkfield_games_compacted 1");
    CHECK(has_metric(server, "trunkfield_games_in_memory 1"));

    // A late spectator: the snapshot the players would have got at game over.
    GameClient s = GameClient::connect(server, Transport::Ws, "sue");
    s.conn->send({{"type", "watch"}, {"code", code}});
    json snap = s.recv_until("snapshot");
    CHECK(snap["version"] == final_version);
    CHECK(snap["status"] == "over");
    CHECK(snap["state"] == state_to_json(*a.game));
    CHECK(s.result == a.result);  // the result is the state's
    CHECK(snap["record"] == want_record);
    CHECK(snap["players"]["silver"]["name"] == "ann");
    CHECK(snap["players"]["bronze"]["name"] == "bob");
    CHECK(snap["spectators"] == 2);
    CHECK(state_to_json(*s.game) == state_to_json(*a.game));
    // Read back for the watcher, dropped again after it.
    wait_for_metric(server, "trunkfield_games_compacted 1");

    const json decline = {{"type", "rematch_decline"}, {"game", code}};
    auto watch_from = [&](std::int64_t since) {
        a.conn->send({{"type", "watch"}, {"code", code}, {"since_version", since}});
        a.conn->send(decline);  // answered no_rematch_offer after whatever the watch sends
        auto got = until_error(a);
        CHECK(got.back()["code"] == "no_rematch_offer");
        got.pop_back();
        return got;
    };
    // At the final version: nothing to replay.
    CHECK(watch_from(final_version).empty());
    // A little behind: the missed events, as they were sent (the history a finished game keeps).
    auto events = watch_from(final_version - 2);
    REQUIRE(events.size() == 2);
    CHECK(events[0] == sent[final_version - 1]);
    CHECK(events[1] == sent[final_version]);
    // Further back than the history: the snapshot.
    auto behind = watch_from(1);
    REQUIRE(behind.size() == 1);
    CHECK(behind[0]["type"] == "snapshot");
    CHECK(behind[0]["state"] == snap["state"]);
    CHECK(behind[0]["record"] == want_record);
    wait_for_metric(server, "trunkfield_games_compacted 1");

    // The store cannot be read: the watcher is told so, and nothing changes.
    GameClient f = GameClient::connect(server, Transport::Tcp, "fay");
    set_faults(faults, "reads=fail\n");
    f.conn->send({{"type", "watch"}, {"code", code}});
    json err = next_message(f);
    CHECK(err["type"] == "error");
    CHECK(err["code"] == "store_failed");
    CHECK(has_metric(server, "trunkfield_games_compacted 1"));
    set_faults(faults, "");
    f.conn->send({{"type", "watch"}, {"code", code}});
    json again = next_message(f);  // nothing else was pending for fay
    CHECK(again["type"] == "snapshot");
    CHECK(again["state"] == snap["state"]);
    wait_for_metric(server, "trunkfield_games_compacted 1");

    // A rematch needs only the summary: offered, accepted, a new game.
    a.conn->send({{"type", "rematch"}, {"game", code}});
    next_event(b, "rematch_offer");
    b.conn->send({{"type", "rematch"}, {"game", code}});
    json ma = a.recv_until("matched"), mb = b.recv_until("matched");
    CHECK(ma["code"] == mb["code"]);
    CHECK(ma["code"] != code);
    CHECK(ma["side"] == "bronze");
    CHECK(mb["side"] == "silver");
    json next = b.recv_until("snapshot");
    CHECK(next["game"] == ma["code"]);
    CHECK(next["status"] == "open");  // bob creates it, ann joins
    // Its events after the game were stored too: a spectator's snapshot still equals.
    GameClient s2 = GameClient::connect(server, Transport::Ws, "sam");
    s2.conn->send({{"type", "watch"}, {"code", code}});
    json snap2 = s2.recv_until("snapshot");
    CHECK(snap2["record"] == want_record);
    CHECK(snap2["state"] == snap["state"]);
    CHECK(snap2["version"] == final_version + 2);  // rematch_offer, rematch
    CHECK(server.alive());
}

}  // namespace tf::test
