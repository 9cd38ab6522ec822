// Takebacks and more time (PROTOCOL.md "Takebacks and more time"), over both transports: the
// request, its refusals and answers, what a takeback removes (the asker's last turn and the
// reply to it), the clocks, the seats' preferences, the computer's consent, and a takeback that
// outlives a restart (the journal replays it; the history API's record leaves the turns out).
#include <doctest/doctest.h>

#include "common/json.h"
#include "common/record.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

using nlohmann::json;

std::vector<std::string> args(const std::string& data = "") {
    std::vector<std::string> a = {"--rate", "1000000", "--burst", "1000000"};
    if (!data.empty()) a.insert(a.end(), {"--data", data});
    return a;
}

json msg(const char* type, const std::string& code) {
    return {{"type", type}, {"game", code}};
}

// `a` creates a timed game as silver, `b` joins; both have the snapshot.
void start_timed(GameClient& a, GameClient& b) {
    a.conn->send({{"type", "create_game"},
                  {"time_control", {{"initial_ms", 600000}, {"increment_ms", 0}}},
                  {"color", "silver"},
                  {"public", false}});
    a.recv_until("game_created");
    a.recv_until("snapshot");
    b.conn->send({{"type", "join_game"}, {"code", a.code}});
    b.recv_until("snapshot");
    a.sync_to(b.version);
}

}  // namespace

TEST_CASE("takeback") {
    TempDir t;  // outlives both servers (one that owns its data drops it when it goes)
    const std::string data = t.path;
    auto server = std::make_unique<ServerProcess>(args(data));
    GameClient a = GameClient::connect(*server, Transport::Ws, "ann");
    GameClient b = GameClient::connect(*server, Transport::Tcp, "bob");
    start_timed(a, b);
    const std::string code = a.code;
    {
        GameClient s = GameClient::connect(*server, Transport::Tcp, "sam");
        s.conn->send({{"type", "watch"}, {"code", code}});
        json snap = s.recv_until("snapshot");
        CHECK(snap["takeback_offer"].is_null());
        CHECK(snap["preferences"]["silver"] == json{{"takeback", true}, {"more_time", true}});
        CHECK(snap["preferences"]["bronze"] == json{{"takeback", true}, {"more_time", true}});
    }
    Rng rng(41);
    play_one(a, b, rng);  // the setups: nothing to take back
    CHECK(send_error(a, msg("takeback_offer", code))["code"] == "nothing_to_take_back");
    play_one(a, b, rng);
    play_one(a, b, rng);  // silver's first turn: it started the clocks and stays
    CHECK(send_error(a, msg("takeback_offer", code))["code"] == "nothing_to_take_back");
    CHECK(send_error(b, msg("takeback_offer", code))["code"] == "nothing_to_take_back");
    const json after3 = state_to_json(*a.game);
    play_one(a, b, rng);  // bronze's first turn
    CHECK(send_error(a, msg("takeback_offer", code))["code"] == "nothing_to_take_back");

    // Bronze asks; silver declines; one request per own turn.
    CHECK(send_error(b, msg("takeback_accept", code))["code"] == "no_takeback_offer");
    b.conn->send(msg("takeback_offer", code));
    CHECK(until_event(a, "takeback_offer")["payload"]["side"] == "bronze");
    CHECK(a.mirror->takeback_offer() == Side::Bronze);
    CHECK(send_error(b, msg("takeback_offer", code))["code"] == "takeback_pending");
    a.conn->send(msg("takeback_decline", code));
    CHECK(until_event(b, "takeback_decline")["payload"]["side"] == "silver");
    CHECK(send_error(b, msg("takeback_offer", code))["code"] == "takeback_pending");

    // Two more turns; bronze asks again and silver accepts: bronze's turn goes.
    play_one(a, b, rng);
    const json after4 = state_to_json(*a.game);
    play_one(a, b, rng);
    b.conn->send(msg("takeback_offer", code));
    until_event(a, "takeback_offer");
    a.conn->send(msg("takeback_accept", code));
    json ev = until_event(b, "takeback");
    CHECK(ev["payload"] == json{{"side", "bronze"}, {"turns", 1}});
    CHECK(ev["clocks"]["running"] == "bronze");
    a.sync_to(b.version);
    CHECK(state_to_json(*a.game) == after4);
    CHECK(state_to_json(*b.game) == after4);
    CHECK(b.mirror->turns().size() == 3);
    CHECK(!a.mirror->takeback_offer());

    // A turn sent at the version before the takeback is stale.
    {
        json stale = random_action(b, rng, "s");
        stale["version"] = b.version - 1;
        CHECK(send_error(b, stale)["code"] == "stale_version");
    }
    // Bronze plays, silver replies, bronze asks: both turns go (accepting by asking too).
    play_one(a, b, rng);
    play_one(a, b, rng);
    b.conn->send(msg("takeback_offer", code));
    until_event(a, "takeback_offer");
    a.conn->send(msg("takeback_offer", code));
    ev = until_event(b, "takeback");
    CHECK(ev["payload"] == json{{"side", "bronze"}, {"turns", 2}});
    a.sync_to(b.version);
    CHECK(state_to_json(*b.game) == after4);
    CHECK(b.mirror->turns().size() == 3);
    (void)after3;

    // A request lapses with any turn.
    play_one(a, b, rng);  // bronze
    a.conn->send(msg("takeback_offer", code));
    until_event(b, "takeback_offer");
    play_one(a, b, rng);  // silver plays on: the request is gone
    CHECK(!b.mirror->takeback_offer());
    CHECK(send_error(b, msg("takeback_accept", code))["code"] == "no_takeback_offer");

    // More time: 15 s to the opponent at once.
    const auto before_ms = *b.mirror->clocks();
    a.conn->send(msg("give_time", code));
    ev = until_event(b, "time_given");
    CHECK(ev["payload"] == json{{"side", "silver"}, {"ms", 15000}});
    CHECK(ev["clocks"]["bronze_ms"].get<std::int64_t>() > before_ms.bronze_ms);
    a.sync_to(b.version);

    // Preferences: bronze refuses more time, silver refuses takebacks.
    b.conn->send({{"type", "preferences"}, {"game", code}, {"more_time", false}});
    ev = until_event(a, "preferences");
    CHECK(ev["payload"] == json{{"side", "bronze"}, {"takeback", true}, {"more_time", false}});
    CHECK(send_error(a, msg("give_time", code))["code"] == "more_time_off");
    a.conn->send({{"type", "preferences"}, {"game", code}, {"takeback", false}});
    while (until_event(b, "preferences")["payload"]["side"] != "silver") {
    }
    CHECK(send_error(b, msg("takeback_offer", code))["code"] == "takeback_off");
    CHECK(send_error(a, msg("takeback_offer", code))["code"] == "takeback_off");
    a.conn->send({{"type", "preferences"}, {"game", code}, {"takeback", true}});
    until_event(a, "preferences");
    b.sync_to(a.version);

    // A takeback outlives a restart: the journal replays it.
    play_one(a, b, rng);  // bronze
    play_one(a, b, rng);  // silver
    a.conn->send(msg("takeback_offer", code));
    until_event(b, "takeback_offer");
    b.conn->send(msg("takeback_accept", code));
    until_event(a, "takeback");
    b.sync_to(a.version);
    const json position = state_to_json(*a.game);
    const std::size_t turns = a.mirror->turns().size();
    server->kill_hard();
    server = std::make_unique<ServerProcess>(args(data));
    GameClient a2 = GameClient::connect(*server, Transport::Tcp, "", a.token);
    a2.conn->send({{"type", "watch"}, {"code", code}});
    json snap = a2.recv_until("snapshot");
    CHECK(state_to_json(*a2.game) == position);
    CHECK(snap["record"]["turns"].size() == turns);
    CHECK(snap["preferences"]["bronze"]["more_time"] == false);
    json meta = api(*server, "/api/games/" + code);
    CHECK(meta["record"]["turns"].size() == turns);
    auto replay = replay_record(meta["record"]);
    REQUIRE(replay);
    CHECK(!replay->error);
    CHECK(state_to_json(replay->game) == position);
}

TEST_CASE("takeback_untimed_and_bot") {
    ServerProcess server(args());
    // An untimed game: no time to give.
    GameClient a = GameClient::connect(server, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    start_game(a, b);
    CHECK(send_error(a, msg("give_time", a.code))["code"] == "more_time_off");
    CHECK(send_error(a, msg("preferences", "zzzzzz"))["code"] == "no_such_game");

    // The computer accepts at once: the event comes without a request.
    GameClient h = GameClient::connect(server, Transport::Tcp, "human");
    h.conn->send({{"type", "create_game"},
                  {"variant", {{"size", 7}, {"elephants", 4}}},
                  {"time_control", nullptr},
                  {"color", "silver"},
                  {"public", false},
                  {"bot", 1}});
    h.recv_until("game_created");
    h.recv_until("snapshot");
    Rng rng(5);
    json position;
    for (int turns = 0; turns < 2;) {  // the setups, then two turns of the human's
        if (h.game->to_move() != *h.side) {
            h.recv_until("event");
            continue;
        }
        if (h.game->phase() == Phase::Play) {
            ++turns;
            if (turns == 2) position = state_to_json(*h.game);
        }
        h.conn->send(random_action(h, rng, "r"));
        h.sync_to(h.recv_until("ack")["version"]);
    }
    while (h.game->to_move() != *h.side) h.recv_until("event");  // the bot's reply
    h.conn->send(msg("takeback_offer", h.code));
    json ev = until_event(h, "takeback");
    CHECK(ev["payload"] == json{{"side", "silver"}, {"turns", 2}});
    CHECK(state_to_json(*h.game) == position);
    // The bot answers the position again once the human plays.
    h.conn->send(random_action(h, rng, "r"));
    h.sync_to(h.recv_until("ack")["version"]);
    until_event(h, "turn");
}

}  // namespace tf::test
