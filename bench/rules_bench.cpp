// Rules engine benchmark: random complete games per second on one core, and the time to
// validate and apply one submitted turn. Prints one JSON object; see docs/BENCHMARKS.md.
//   rules_bench [--runs R] [--seconds S]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/playout.h"

using namespace tf;
using Clock = std::chrono::steady_clock;

namespace {

double cpu_now() {
    return double(std::clock()) / CLOCKS_PER_SEC;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double pct(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

// Random games for `seconds` of CPU time; returns {games/s, turns/s, turns/game}.
std::vector<double> playout_run(double seconds, std::uint64_t seed) {
    Rng rng(seed);
    long long games = 0, turns = 0;
    const double start = cpu_now();
    double elapsed = 0;
    while (elapsed < seconds) {
        for (int i = 0; i < 32; ++i) {
            Game g{Variant{}};
            turns += play_random_game(g, rng);
            ++games;
        }
        elapsed = cpu_now() - start;
    }
    return {games / elapsed, turns / elapsed, double(turns) / double(games)};
}

struct Sample {
    Game game;
    Turn turn;
    std::string text;  // the turn as canonical JSON text
};

// Positions from random games with a random legal turn each; one in four also places a
// burnt trunk or moves a guardian when the mover can.
std::vector<Sample> samples(int n) {
    std::vector<Sample> out;
    Rng rng(99);
    MoveList ml;
    while (int(out.size()) < n) {
        Game g{Variant{}};
        play_random_game(g, rng, 0);
        while (!g.over() && int(out.size()) < n) {
            g.generate(ml);
            Turn t = ml.size ? g.to_turn(ml[int(rng.below(std::uint32_t(ml.size)))]) : Turn{};
            out.push_back({g, t, to_json(t).dump()});
            if (g.apply_turn(t)) break;  // cannot happen: generated turns are legal
        }
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 5;
    double seconds = 1.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--runs")) runs = std::max(1, std::atoi(argv[i + 1]));
        if (!std::strcmp(argv[i], "--seconds")) seconds = std::max(0.1, std::atof(argv[i + 1]));
    }
    std::vector<double> gps, tps, tpg;
    for (int r = 0; r < runs; ++r) {
        auto v = playout_run(seconds, 1000 + r);
        gps.push_back(v[0]);
        tps.push_back(v[1]);
        tpg.push_back(v[2]);
    }

    const auto ss = samples(20000);
    std::vector<double> validate_ns, parse_validate_ns;
    for (const Sample& s : ss) {
        Game g = s.game;
        auto t0 = Clock::now();
        auto e = g.apply_turn(s.turn);
        auto t1 = Clock::now();
        if (e) std::fprintf(stderr, "unexpected: %s\n", e->message.c_str());
        validate_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    for (const Sample& s : ss) {
        Game g = s.game;
        auto t0 = Clock::now();
        auto j = Json::parse(s.text, nullptr, false);
        auto t = turn_from_json(j);
        auto e = g.apply_turn(*t);
        auto t1 = Clock::now();
        if (e) std::fprintf(stderr, "unexpected: %s\n", e->message.c_str());
        parse_validate_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    nlohmann::ordered_json out{{"runs", runs},
                               {"seconds_per_run", seconds},
                               {"games_per_s_median", median(gps)},
                               {"games_per_s_runs", gps},
                               {"turns_per_s_median", median(tps)},
                               {"turns_per_game_median", median(tpg)},
                               {"validate_turn_ns",
                                {{"median", median(validate_ns)},
                                 {"p90", pct(validate_ns, 0.9)},
                                 {"p99", pct(validate_ns, 0.99)}}},
                               {"parse_and_validate_turn_ns",
                                {{"median", median(parse_validate_ns)},
                                 {"p90", pct(parse_validate_ns, 0.9)},
                                 {"p99", pct(parse_validate_ns, 0.99)}}},
                               {"samples", ss.size()}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
