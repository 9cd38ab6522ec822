// Stalling (PROTOCOL.md "Stalling"): a player who sits on a move in a position the server's bot
// judges lost, past the limit (--stall-seconds here), is stalling; the opponent may claim the win
// or a draw. The test judges each position itself with the same search (level 4, fixed seed)
// and checks that the server agrees: no `stalling` for a player who is not lost, one for a
// player who is, gone with the staller's turn, and both claims.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "common/bot.h"
#include "common/json.h"
#include "common/playout.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

using nlohmann::json;

json msg(const char* type, const std::string& code) {
    return {{"type", type}, {"game", code}};
}

// `c` sends `t` (a setup or turn as JSON, type set) and both clients see its event.
void act(GameClient& c, GameClient& other, json m) {
    m["game"] = c.code;
    m["version"] = c.version;
    m["ref"] = "r";
    c.conn->send(m);
    const std::int64_t v = c.recv_until("ack")["version"];
    c.sync_to(v);
    other.sync_to(v);
}

// Silver (`a`) plays the bot's level-4 turns, bronze (`b`) random ones, until it is bronze's
// move in a position judged lost (true) or the game ended (false).
bool reach_lost(GameClient& a, GameClient& b, Rng& rng, std::uint64_t seed) {
    while (!a.game->over()) {
        const Game& g = *a.game;
        if (g.phase() == Phase::SetupSilver) {
            BotOptions o;
            o.seed = seed;
            act(a, b, {{"type", "setup"}, {"setup", to_json(*bot_setup(g, o))}});
        } else if (g.phase() == Phase::SetupBronze) {
            act(b, a, {{"type", "setup"}, {"setup", to_json(random_setup(g, rng))}});
        } else if (g.to_move() == Side::Silver) {
            BotOptions o;
            o.level = 4;
            o.seed = seed ^ std::uint64_t(g.turns_played());
            act(a, b, {{"type", "turn"}, {"turn", to_json(*bot_turn(g, o))}});
        } else if (judged_lost(g)) {
            return true;
        } else {
            act(b, a, random_action(b, rng, "r"));
        }
    }
    return false;
}

// A game between `a` (silver) and `b` (bronze) that reaches bronze's move in a lost position;
// tries further seeds while a game ends first.
std::string lost_game(ServerProcess& s, GameClient& a, GameClient& b, std::uint64_t& seed) {
    for (;; ++seed) {
        REQUIRE(seed < 40);
        a.conn->send({{"type", "create_game"},
                      {"time_control", nullptr},
                      {"color", "silver"},
                      {"public", false}});
        a.recv_until("game_created");
        a.recv_until("snapshot");
        b.conn->send({{"type", "join_game"}, {"code", a.code}});
        b.recv_until("snapshot");
        a.sync_to(b.version);
        Rng rng(seed);
        if (reach_lost(a, b, rng, seed)) return a.code;
        a.sync_until_over();
        b.sync_until_over();
        (void)s;
    }
}

bool log_has(ServerProcess& s, const std::string& text) {
    for (int i = 0; i < 1000; ++i) {  // the judgement runs on the worker pool
        if (s.log().find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

}  // namespace

TEST_CASE("stalling") {
    ServerProcess server({"--rate", "1000000", "--burst", "1000000", "--stall-seconds", "0.3"});
    GameClient a = GameClient::connect(server, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(server, Transport::Ws, "bob");
    std::uint64_t seed = 1;

    // Not lost: sitting past the limit is judged, and nothing comes of it.
    {
        a.conn->send({{"type", "create_game"},
                      {"time_control", nullptr},
                      {"color", "silver"},
                      {"public", false}});
        a.recv_until("game_created");
        a.recv_until("snapshot");
        b.conn->send({{"type", "join_game"}, {"code", a.code}});
        b.recv_until("snapshot");
        a.sync_to(b.version);
        Rng rng(99);
        act(a, b, random_action(a, rng, "r"));
        act(b, a, random_action(b, rng, "r"));
        act(a, b, random_action(a, rng, "r"));  // silver's first turn: bronze to move
        REQUIRE(!judged_lost(*b.game));
        CHECK(
            log_has(server, "room " + a.code + ": bronze sits past the stalling limit, not lost"));
        CHECK(send_error(a, msg("claim_win", a.code))["code"] == "not_claimable");
        CHECK(send_error(a, msg("claim_draw", a.code))["code"] == "not_claimable");
        a.conn->send(msg("resign", a.code));
        a.sync_until_over();
        b.sync_until_over();
    }

    // Lost and sitting: stalling; the staller's turn ends it; sitting again, the win claimed.
    const std::string code = lost_game(server, a, b, seed);
    json ev = until_event(a, "stalling");
    CHECK(ev["payload"] == json{{"side", "bronze"}});
    b.sync_to(a.version);
    CHECK(b.mirror->stalling() == Side::Bronze);
    CHECK(send_error(b, msg("claim_win", code))["code"] == "not_claimable");
    {
        Rng rng(seed * 31);
        act(b, a, random_action(b, rng, "r"));
        CHECK(!a.mirror->stalling());
        CHECK(send_error(a, msg("claim_draw", code))["code"] == "not_claimable");
        if (!a.game->over()) reach_lost(a, b, rng, seed);
    }
    if (!a.game->over()) {
        until_event(a, "stalling");
        a.conn->send(msg("claim_win", code));
        ev = until_event(b, "stall_claim");
        CHECK(ev["payload"] == json{{"side", "silver"}, {"draw", false}});
        b.sync_until_over();
        CHECK(b.result["reason"] == "stalling");
        CHECK(b.result["winner"] == "silver");
        a.sync_until_over();
        CHECK(a.result == b.result);
    } else {
        MESSAGE("the game ended before bronze sat in a lost position again");
    }

    // A draw claimed instead.
    ++seed;
    const std::string code2 = lost_game(server, a, b, seed);
    until_event(a, "stalling");
    a.conn->send(msg("claim_draw", code2));
    ev = until_event(b, "stall_claim");
    CHECK(ev["payload"] == json{{"side", "silver"}, {"draw", true}});
    b.sync_until_over();
    CHECK(b.result["reason"] == "stalling");
    CHECK(b.result["winner"] == "draw");
    json meta = api(server, "/api/games/" + code2);
    CHECK(meta["result"]["reason"] == "stalling");
    CHECK(meta["result"]["winner"] == "draw");
}

}  // namespace tf::test
