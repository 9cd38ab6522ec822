// A client that keeps sending without credits is told why and disconnected, on each transport;
// a game in progress on the same server is unaffected.
#include <doctest/doctest.h>

#include "common/json.h"
#include "game_client.h"

namespace tf::test {
namespace {

using nlohmann::json;

// Sends exactly enough pings to use the burst (100, hello took one) and be refused 101 times,
// the last refusal being a flood (a refill of 1/s is negligible meanwhile); reads until the server
// closes. Sending no more than that leaves no unread data on the server, so TCP closes without a
// reset.
void flood(ServerProcess& server, Transport t) {
    GameClient c = GameClient::connect(server, t, "flood");
    try {
        for (int i = 0; i < 200; ++i) c.conn->send({{"type", "ping"}});
    } catch (const std::exception&) {
        // the server may close while we are still writing
    }
    int pongs = 0, limited = 0, flooding = 0;
    std::string reason;
    try {
        for (;;) {
            json m = c.conn->recv();
            pongs += m["type"] == "pong";
            limited += m["type"] == "error" && m["code"] == "rate_limited";
            flooding += m["type"] == "error" && m["code"] == "flooding";
        }
    } catch (const client::Closed& e) {
        reason = e.what();
    }
    CHECK(pongs == 99);
    CHECK(limited == 101);  // the last one also gets flooding
    CHECK(flooding == 1);
    if (t == Transport::Ws) CHECK(reason == "closed: flood");
}

}  // namespace

TEST_CASE("flood") {
    // Slow refill so that the game's players, who send a few messages each, never run short.
    ServerProcess server({"--rate", "1", "--burst", "100"});
    GameClient a = GameClient::connect(server, Transport::Ws, "alice");
    GameClient b = GameClient::connect(server, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(31);
    for (int i = 0; i < 6; ++i) play_one(a, b, rng);

    flood(server, Transport::Tcp);
    flood(server, Transport::Ws);

    for (int i = 0; i < 6; ++i) play_one(a, b, rng);
    a.conn->send({{"type", "resign"}, {"game", a.code}});
    a.sync_until_over();
    b.sync_until_over();
    CHECK(state_to_json(*a.game) == state_to_json(*b.game));
    CHECK(a.result["over"] == true);
    CHECK(server.alive());
}

}  // namespace tf::test
