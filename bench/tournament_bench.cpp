// How long a tournament's pairing takes (docs/BENCHMARKS.md "Tournament pairing"): Swiss
// tournaments of several sizes played to the end with random results (a fixed seed), each
// round's pair_swiss() timed; and the arena's pairing of a crowd of free players.
//   tournament_bench [--repeat N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "server/tournament/arena.h"
#include "server/tournament/swiss.h"

using namespace tf::server::tournament;
using Ms = std::chrono::duration<double, std::milli>;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

void swiss(int players, int rounds, int repeat) {
    std::vector<double> times;
    int repeats = 0, clashes = 0;
    for (int k = 0; k < repeat; ++k) {
        std::mt19937 rng(unsigned(k + 1));
        std::vector<Entrant> es;
        for (int i = 0; i < players; ++i)
            es.push_back({"p" + std::to_string(i), 1200 + int(rng() % 1000)});
        SwissRecord rec;
        for (int r = 1; r <= rounds; ++r) {
            const auto ps = swiss_players(es, rec);
            const auto t0 = std::chrono::steady_clock::now();
            const SwissPairing p = pair_swiss(ps);
            times.push_back(Ms(std::chrono::steady_clock::now() - t0).count());
            repeats += p.repeats;
            clashes += p.side_clashes;
            for (const auto& g : p.games)
                rec.games.push_back({r, g.silver, g.bronze, GameResult(rng() % 3)});
            if (p.bye) rec.byes.push_back({r, *p.bye});
        }
    }
    std::printf(
        "swiss %4d players %2d rounds: median %.3f ms, worst %.3f ms per round; "
        "%d repeats, %d side clashes in %d tournaments\n",
        players, rounds, median(times), *std::max_element(times.begin(), times.end()), repeats,
        clashes, repeat);
}

void arena(int waiting, int repeat) {
    std::vector<double> times;
    for (int k = 0; k < repeat; ++k) {
        std::mt19937 rng(unsigned(k + 1));
        std::vector<ArenaWaiting> w;
        for (int i = 0; i < waiting; ++i)
            w.push_back({"p" + std::to_string(i),
                         int(rng() % 5000),
                         {},
                         "p" + std::to_string(rng() % waiting)});
        const auto t0 = std::chrono::steady_clock::now();
        const auto pairs = pair_arena(w, false);
        times.push_back(Ms(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("arena %4d free players: median %.3f ms per pairing\n", waiting, median(times));
}

}  // namespace

int main(int argc, char** argv) {
    int repeat = 5;
    if (argc == 3 && std::strcmp(argv[1], "--repeat") == 0)
        repeat = std::max(1, std::atoi(argv[2]));
    swiss(12, 5, repeat);
    swiss(64, 7, repeat);
    swiss(300, 9, repeat);
    swiss(1000, 11, repeat);
    swiss(20, 19, repeat);  // as many rounds as opponents: the last rounds must give way
    arena(100, repeat);
    arena(1000, repeat);
}
