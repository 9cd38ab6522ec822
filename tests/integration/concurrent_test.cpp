// 50 games at once on one server: 100 players (silver over TCP, bronze over WebSocket) and a
// few spectators, each game driven by its own thread to the end; all end consistently.
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "common/json.h"
#include "game_client.h"

namespace tf::test {
namespace {

constexpr int kGames = 50;
constexpr int kSpectators = 5;

struct Outcome {
    std::string error;     // empty when the game ran to the end consistently
    bool checked = false;  // a spectator's final state was compared
};

// One game, as play_test does it, with an optional spectator joining after the setups.
// Failures are returned (doctest's REQUIRE must not throw across threads).
Outcome run_game(ServerProcess& server, int i) {
    Outcome out;
    try {
        GameClient a = GameClient::connect(server, Transport::Tcp, "s" + std::to_string(i));
        GameClient b = GameClient::connect(server, Transport::Ws, "b" + std::to_string(i));
        start_game(a, b);
        std::optional<GameClient> spec;
        Rng rng(1000 + std::uint64_t(i));
        int moves = 0;
        while (!a.game->over()) {
            play_one(a, b, rng);
            if (++moves == 4 && i < kSpectators) {
                spec = GameClient::connect(server, i % 2 ? Transport::Tcp : Transport::Ws, "w");
                spec->conn->send({{"type", "watch"}, {"code", a.code}});
                spec->recv_until("snapshot");
            }
            if (moves > 20000) throw std::runtime_error("game does not end");
        }
        a.sync_until_over();
        b.sync_until_over();
        auto final_state = state_to_json(*a.game);
        if (final_state != state_to_json(*b.game) || a.result != b.result || a.version != b.version)
            throw std::runtime_error("players disagree on the final state");
        if (spec) {
            spec->sync_until_over();
            if (state_to_json(*spec->game) != final_state || spec->result != a.result)
                throw std::runtime_error("spectator disagrees on the final state");
            out.checked = true;
        }
    } catch (const std::exception& e) {
        out.error = "game " + std::to_string(i) + ": " + e.what();
    } catch (...) {
        out.error = "game " + std::to_string(i) + ": assertion failed";
    }
    return out;
}

}  // namespace

TEST_CASE("concurrent_games") {
    // Every player comes from this machine's address: the open-game limit per address is lifted.
    ServerProcess server(
        {"--rate", "1000000", "--burst", "1000000", "--max-open-games-per-ip", "1000"});
    std::vector<Outcome> outcomes(kGames);
    std::vector<std::thread> threads;
    for (int i = 0; i < kGames; ++i)
        threads.emplace_back([&, i] { outcomes[std::size_t(i)] = run_game(server, i); });
    for (auto& t : threads) t.join();
    int ok = 0, watched = 0;
    for (auto& o : outcomes) {
        CHECK_MESSAGE(o.error.empty(), o.error);
        ok += o.error.empty();
        watched += o.checked;
    }
    CHECK(ok == kGames);
    CHECK(watched == kSpectators);
    CHECK(server.alive());
}

}  // namespace tf::test
