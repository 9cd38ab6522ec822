// Calibrates the server's stalling judgement (common/bot.h stall_judgement, docs/RULES.md
// "Takebacks, more time and stalling"): plays games between players of mixed strength (bot levels
// 1-5 and a random mover, drawn per game), has the judge (a level-4 search, fixed seed) evaluate
// positions along the way, and prints, for each threshold, how many judged positions fell at or
// below it and how many of those the side to move went on to lose, draw or win. A threshold is
// sound when the positions below it are lost (nearly) every time.
//   stall_judge [--games 60] [--every 4] [--seed 1] [--jobs 2]
//   stall_judge --lost [--seed 1]   a game record (JSON) that ends with bronze to move in a
//                                   position the judge calls lost (the browser test's staller)
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "client/cli/cli_args.h"
#include "common/bot.h"
#include "common/json.h"
#include "common/playout.h"

using namespace tf;

namespace {

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

struct Judged {
    int score;  // the judge's, for the side to move
    Side mover;
};

struct Outcome {
    std::vector<Judged> judged;
    std::optional<Side> winner;
    bool ok = true;
};

// One game: silver and bronze each a level 0 (random) to 5, drawn from the seed.
Outcome play(std::uint64_t seed, int every) {
    Outcome out;
    Rng rng(mix(seed));
    const int level[2] = {int(mix(seed * 3) % 6), int(mix(seed * 5) % 6)};
    Game g(Variant{});
    auto opts = [&](Side s) {
        BotOptions o;
        o.level = level[idx(s)];
        o.seed = mix(seed * 7 + std::uint64_t(idx(s))) ^ std::uint64_t(g.turns_played());
        return o;
    };
    while (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
        const Side s = g.to_move();
        Setup st = level[idx(s)] ? *bot_setup(g, opts(s)) : random_setup(g, rng);
        if (g.apply_setup(s, st)) return out.ok = false, out;
    }
    MoveList ml;
    while (!g.over()) {
        const Side s = g.to_move();
        if (g.turns_played() > 0 && g.turns_played() % every == 0) {
            if (auto score = stall_judgement(g)) out.judged.push_back({*score, s});
        }
        if (level[idx(s)]) {
            auto t = bot_turn(g, opts(s));
            if (!t || g.apply_turn(*t)) return out.ok = false, out;
        } else {
            Move m;
            if (random_move(g, rng, ml, m))
                g.play(m);
            else
                g.play_pass();
        }
    }
    out.winner = g.winner();
    return out;
}

// Silver plays the bot's level-4 turns, bronze random ones, until bronze is to move in a position
// judged lost; the record of that game so far (further seeds while a game ends first).
int lost_record(std::uint64_t seed) {
    for (std::uint64_t s = seed; s < seed + 100; ++s) {
        Rng rng(mix(s));
        Record rec;
        Game g(rec.variant);
        BotOptions o;
        o.seed = s;
        rec.silver = *bot_setup(g, o);
        if (g.apply_setup(Side::Silver, rec.silver))
            return std::fprintf(stderr, "internal error: a setup was refused\n"), 1;
        rec.bronze = random_setup(g, rng);
        if (g.apply_setup(Side::Bronze, rec.bronze))
            return std::fprintf(stderr, "internal error: a setup was refused\n"), 1;
        MoveList ml;
        while (!g.over()) {
            Turn t;
            if (g.to_move() == Side::Silver) {
                o.level = 4;
                o.seed = s ^ std::uint64_t(g.turns_played());
                auto b = bot_turn(g, o);
                if (!b) return std::fprintf(stderr, "internal error: no bot turn\n"), 1;
                t = *b;
            } else if (judged_lost(g)) {
                std::printf("%s\n", to_json(rec).dump().c_str());
                return 0;
            } else if (Move m; random_move(g, rng, ml, m)) {
                t = g.to_turn(m);
            }
            if (g.apply_turn(t))
                return std::fprintf(stderr, "internal error: a turn was refused\n"), 1;
            rec.turns.push_back(t);
        }
    }
    return std::fprintf(stderr, "no game reached a lost position\n"), 1;
}

}  // namespace

int main(int argc, char** argv) {
    int games = 60, every = 4, jobs = 2;
    std::uint64_t seed = 1;
    CLI::App app{
        "Calibrates the stalling judgement: how often the positions the judge scores at "
        "or below each threshold are lost by the side to move."};
    app.add_option("--games", games,
                   "games, each between players drawn from bot levels 1-5 "
                   "and a random mover")
        ->transform(cli::whole_number(1, 100000));
    app.add_option("--every", every, "judge every K-th turn")
        ->transform(cli::whole_number(1, 1000));
    app.add_option("--seed", seed, "seed of the games")
        ->transform(cli::whole_number(0, UINT64_MAX));
    app.add_option("--jobs", jobs, "games played at once")->transform(cli::whole_number(1, 64));
    bool lost = false;
    app.add_flag("--lost", lost,
                 "print a game record ending with bronze to move in a position judged lost");
    if (auto rc = cli::parse_args(app, argc, argv)) return *rc;
    if (lost) return lost_record(seed);
    std::vector<Outcome> results(std::size_t(std::max(games, 0)));
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (int j = 0; j < std::max(jobs, 1); ++j)
        pool.emplace_back([&] {
            for (int i; (i = next++) < games;)
                results[std::size_t(i)] = play(seed + std::uint64_t(i), every);
        });
    for (auto& t : pool) t.join();
    const int thresholds[] = {300, 500, 800, 1000, 1500, 2000, 3000};
    std::printf(
        "judged positions of %d games (every %d turns), by the judge's score for the mover\n",
        games, every);
    std::printf("%10s %8s %8s %8s %8s %10s\n", "score <=", "count", "lost", "drawn", "won",
                "lost %");
    for (int th : thresholds) {
        int n = 0, lost = 0, drawn = 0, won = 0;
        for (const auto& r : results) {
            if (!r.ok) continue;
            for (const auto& j : r.judged) {
                if (j.score > -th) continue;
                ++n;
                if (!r.winner)
                    ++drawn;
                else if (*r.winner == j.mover)
                    ++won;
                else
                    ++lost;
            }
        }
        std::printf("%10d %8d %8d %8d %8d %9.1f%%\n", -th, n, lost, drawn, won,
                    n ? 100.0 * lost / n : 0.0);
    }
    return 0;
}
