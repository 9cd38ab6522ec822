// Bot strength ladder: plays games between two players (a bot level 1-5 or "random"), colours
// alternating, and prints wins/draws/losses of A and the time per turn of each bot. Games are
// seeded by --seed and their index, so a run's results do not depend on --jobs.
//   bot_ladder --games 200 --a 3 --b random --seed 1 [--jobs 2] [--size 9 --elephants 5
//              --burnt 3 --quiet 40] [--min-wins W] [--json] [--progress] [--ladder]
// (bot_ladder --help describes every flag.)
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/cli/cli_args.h"
#include "common/bot.h"
#include "common/playout.h"

using namespace tf;

namespace {

struct Player {
    int level = 0;  // 0 = random
    std::string name() const { return level ? "level " + std::to_string(level) : "random"; }
};

struct TurnStat {
    double cpu_ms, wall_ms;
    std::uint64_t nodes;
    int depth;
};

struct GameResult {
    int a_result = 0;  // +1 A won, 0 draw, -1 A lost
    bool a_silver = true;
    int turns = 0;
    int a_score = 0, b_score = 0;
    std::vector<TurnStat> a_stats, b_stats;
    std::string error;
};

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

GameResult play_game(const Variant& v, Player a, Player b, std::uint64_t seed, bool a_silver) {
    GameResult r;
    r.a_silver = a_silver;
    Game g(v);
    Rng rng(mix(seed));
    const Side a_side = a_silver ? Side::Silver : Side::Bronze;
    auto player = [&](Side s) { return s == a_side ? a : b; };
    auto bot_opts = [&](Side s) {
        BotOptions o;
        o.level = player(s).level;
        o.seed = mix(seed * 4 + std::uint64_t(idx(s)) + 1) ^ std::uint64_t(g.turns_played());
        return o;
    };
    while (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
        const Side s = g.to_move();
        Setup st;
        if (player(s).level) {
            auto e = bot_setup(g, bot_opts(s));
            if (!e) {
                r.error = "bot_setup: " + e.error().message;
                return r;
            }
            st = *e;
        } else {
            st = random_setup(g, rng);
        }
        if (auto e = g.apply_setup(s, st)) {
            r.error = "illegal setup: " + e->message;
            return r;
        }
    }
    MoveList ml;
    while (!g.over()) {
        const Side s = g.to_move();
        if (player(s).level) {
            BotInfo info;
            const double c0 = thread_cpu_ms();
            const auto w0 = std::chrono::steady_clock::now();
            auto t = bot_turn(g, bot_opts(s), &info);
            const double wall =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0)
                    .count();
            const double cpu = thread_cpu_ms() - c0;
            if (!t) {
                r.error = "bot_turn: " + t.error().message;
                return r;
            }
            (s == a_side ? r.a_stats : r.b_stats).push_back({cpu, wall, info.nodes, info.depth});
            if (auto e = g.apply_turn(*t)) {
                r.error = "illegal bot turn: " + e->message;
                return r;
            }
        } else {
            Move m;
            if (random_move(g, rng, ml, m))
                g.play(m);
            else
                g.play_pass();
        }
    }
    r.turns = g.turns_played();
    r.a_score = g.score(a_side);
    r.b_score = g.score(~a_side);
    const auto w = g.winner();
    r.a_result = !w ? 0 : *w == a_side ? 1 : -1;
    return r;
}

struct Summary {
    double cpu_median = 0, cpu_p90 = 0, cpu_max = 0, wall_median = 0, wall_max = 0;
    double nodes_median = 0;
    int depth_median = 0;
    size_t turns = 0;
};

Summary summarize(std::vector<TurnStat> v) {
    Summary s;
    s.turns = v.size();
    if (v.empty()) return s;
    auto at = [&](auto key, double q) {
        std::vector<double> x;
        for (const TurnStat& t : v) x.push_back(key(t));
        std::sort(x.begin(), x.end());
        return x[std::min(x.size() - 1, size_t(q * double(x.size())))];
    };
    s.cpu_median = at([](const TurnStat& t) { return t.cpu_ms; }, 0.5);
    s.cpu_p90 = at([](const TurnStat& t) { return t.cpu_ms; }, 0.9);
    s.cpu_max = at([](const TurnStat& t) { return t.cpu_ms; }, 1.0);
    s.wall_median = at([](const TurnStat& t) { return t.wall_ms; }, 0.5);
    s.wall_max = at([](const TurnStat& t) { return t.wall_ms; }, 1.0);
    s.nodes_median = at([](const TurnStat& t) { return double(t.nodes); }, 0.5);
    s.depth_median = int(at([](const TurnStat& t) { return double(t.depth); }, 0.5));
    return s;
}

struct Config {
    long long games = 200, seed = 1, jobs = 1;
    Variant v;
    bool progress = false;
};

struct PairResult {
    Player a, b;
    int w = 0, d = 0, l = 0, errors = 0, ws = 0, ds = 0, ls = 0;
    double pct = 0, secs = 0;
    Summary sa, sb;
};

// Plays one pairing and prints its report.
PairResult run_pair(const Config& c, Player a, Player b) {
    PairResult pr;
    pr.a = a;
    pr.b = b;
    std::vector<GameResult> results(static_cast<size_t>(c.games));
    std::atomic<long long> next{0};
    std::mutex print_mu;
    int run_w = 0, run_d = 0, run_l = 0;  // under print_mu
    const auto start = std::chrono::steady_clock::now();
    auto worker = [&] {
        for (;;) {
            const long long i = next++;
            if (i >= c.games) return;
            results[size_t(i)] = play_game(
                c.v, a, b, std::uint64_t(c.seed) * 1'000'003ULL + std::uint64_t(i), i % 2 == 0);
            const GameResult& r = results[size_t(i)];
            std::lock_guard lock(print_mu);
            if (!r.error.empty()) {
                std::fprintf(stderr, "game %lld: %s\n", i, r.error.c_str());
                continue;
            }
            (r.a_result > 0 ? run_w : r.a_result < 0 ? run_l : run_d)++;
            if (c.progress)
                std::fprintf(
                    stderr,
                    "%s vs %s, game %lld: A (%s) %s %d-%d in %d turns; so far %d/%d/%d "
                    "of %d\n",
                    a.name().c_str(), b.name().c_str(), i, r.a_silver ? "silver" : "bronze",
                    r.a_result > 0   ? "won"
                    : r.a_result < 0 ? "lost"
                                     : "drew",
                    r.a_score, r.b_score, r.turns, run_w, run_d, run_l, run_w + run_d + run_l);
        }
    };
    std::vector<std::thread> threads;
    for (long long j = 0; j < c.jobs; ++j) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    pr.secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    long long turns = 0, sa = 0, sb = 0;
    std::vector<TurnStat> ta, tb;
    for (const GameResult& r : results) {
        if (!r.error.empty()) {
            ++pr.errors;
            continue;
        }
        (r.a_result > 0 ? pr.w : r.a_result < 0 ? pr.l : pr.d)++;
        if (r.a_silver) (r.a_result > 0 ? pr.ws : r.a_result < 0 ? pr.ls : pr.ds)++;
        turns += r.turns;
        sa += r.a_score;
        sb += r.b_score;
        ta.insert(ta.end(), r.a_stats.begin(), r.a_stats.end());
        tb.insert(tb.end(), r.b_stats.begin(), r.b_stats.end());
    }
    const int played = pr.w + pr.d + pr.l;
    pr.pct = played ? 100.0 * pr.w / played : 0.0;
    pr.sa = summarize(ta);
    pr.sb = summarize(tb);
    std::printf(
        "bot_ladder: A = %s vs B = %s, %d games (variant %d/%d/%d/%d, seed %lld, jobs %lld, "
        "%.0f s)\n",
        a.name().c_str(), b.name().c_str(), played, c.v.size, c.v.elephants, c.v.burnt, c.v.quiet,
        c.seed, c.jobs, pr.secs);
    std::printf(
        "A: %d wins, %d draws, %d losses: %.1f %% wins (as silver %d/%d/%d, as bronze "
        "%d/%d/%d)\n",
        pr.w, pr.d, pr.l, pr.pct, pr.ws, pr.ds, pr.ls, pr.w - pr.ws, pr.d - pr.ds, pr.l - pr.ls);
    std::printf("mean score A %.1f, B %.1f; mean turns per game %.1f\n",
                played ? double(sa) / played : 0.0, played ? double(sb) / played : 0.0,
                played ? double(turns) / played : 0.0);
    auto line = [](const char* who, const Player& p, const Summary& s) {
        if (!p.level) return;
        std::printf(
            "%s (%s): %zu turns; ms/turn CPU median %.1f, p90 %.1f, max %.1f; wall "
            "median %.1f, max %.1f; nodes median %.0f, depth median %d\n",
            who, p.name().c_str(), s.turns, s.cpu_median, s.cpu_p90, s.cpu_max, s.wall_median,
            s.wall_max, s.nodes_median, s.depth_median);
    };
    line("A", a, pr.sa);
    line("B", b, pr.sb);
    if (pr.errors) std::printf("ERRORS: %d games failed (see stderr)\n", pr.errors);
    std::fflush(stdout);
    return pr;
}

std::string ms_cell(const Player& p, const Summary& s) {
    if (!p.level) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f / %.1f", s.cpu_median, s.cpu_max);
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    using tf::cli::whole_number;
    Config c;
    long long min_wins = -1;
    Player a{3}, b{0};
    bool json = false, ladder = false;
    CLI::App app{
        "Bot strength ladder: plays games between two players, A and B, colours "
        "alternating (A is silver in even-numbered games), and prints A's wins, draws "
        "and losses and the CPU time per turn of each bot. Each game is seeded by --seed "
        "and its number, so the results do not depend on --jobs.",
        "bot_ladder"};
    app.option_defaults()->always_capture_default();
    // A player: a bot level, or "random" (a uniformly random legal setup and elephant move each
    // turn, nothing else: the rules library's random_setup/random_move).
    const CLI::Validator player(
        [](std::string& s) -> std::string {
            if (s == "random") return "";
            return whole_number(kMinBotLevel, kMaxBotLevel)(s).empty()
                       ? ""
                       : "'" + s + "' is neither a level 1 to 5 nor random";
        },
        "");
    auto add_player = [&](const char* flag, Player& p, const char* what) {
        return app
            .add_option_function<std::string>(
                flag, [&p](const std::string& v) { p.level = v == "random" ? 0 : std::stoi(v); },
                what)
            ->type_name("LEVEL|random")
            ->default_str(p.level ? std::to_string(p.level) : "random")
            ->transform(player);
    };
    app.add_option("--games", c.games, "games (per pairing with --ladder)")
        ->transform(whole_number(1, 1'000'000));
    add_player("--a", a, "player A: bot level 1 to 5, or random");
    add_player("--b", b, "player B");
    app.add_option("--seed", c.seed, "seed of the games")
        ->transform(whole_number(0, 1ULL << 62).description(""));
    app.add_option("--jobs", c.jobs, "games played at once, one thread each")
        ->transform(whole_number(1, 64));
    app.add_option("--size", c.v.size, "variant: the field is N x N")
        ->transform(whole_number(0, 100));
    app.add_option("--elephants", c.v.elephants, "variant: elephants per side")
        ->transform(whole_number(0, 100));
    app.add_option("--burnt", c.v.burnt, "variant: burnt trunks per side")
        ->transform(whole_number(0, 100));
    app.add_option("--quiet", c.v.quiet, "variant: quiet turns in a row that end the game")
        ->transform(whole_number(0, 100'000));
    app.add_option("--min-wins", min_wins,
                   "exit 1 when A wins fewer games (the bot_ladder_smoke test)")
        ->default_str("none")
        ->transform(whole_number(0, 1'000'000));
    app.add_flag("--json", json, "also print the result as one JSON line");
    app.add_flag("--progress", c.progress,
                 "print each finished game and the running tally on stderr");
    app.add_flag("--ladder", ladder,
                 "play the whole ladder instead (every level against the one below, levels 1 "
                 "and 3 against random), --games games per pairing, ending with a Markdown table "
                 "of CPU milliseconds per turn");
    app.footer(
        "exit codes: 0 done, 1 a game failed or A won fewer than --min-wins, 2 a usage "
        "error or a bad variant");
    if (auto code = tf::cli::parse_args(app, argc, argv)) return *code;
    if (auto e = check_variant(c.v)) {
        std::fprintf(stderr, "bot_ladder: bad variant: %s\n", e->c_str());
        return 2;
    }
    if (!ladder) {
        const PairResult pr = run_pair(c, a, b);
        if (json)
            std::printf(
                "{\"a\":\"%s\",\"b\":\"%s\",\"games\":%d,\"wins\":%d,\"draws\":%d,\"losses\":%d,"
                "\"win_pct\":%.1f,\"a_ms_median\":%.2f,\"a_ms_max\":%.2f,\"b_ms_median\":%.2f,"
                "\"b_ms_max\":%.2f,\"errors\":%d}\n",
                a.name().c_str(), b.name().c_str(), pr.w + pr.d + pr.l, pr.w, pr.d, pr.l, pr.pct,
                pr.sa.cpu_median, pr.sa.cpu_max, pr.sb.cpu_median, pr.sb.cpu_max, pr.errors);
        if (pr.errors) return 1;
        if (min_wins >= 0 && pr.w < min_wins) {
            std::printf("FAIL: A won %d < %lld games\n", pr.w, min_wins);
            return 1;
        }
        return 0;
    }
    // The whole ladder: levels 1 and 3 against random, then each level against the one below.
    const std::pair<int, int> pairs[] = {{1, 0}, {3, 0}, {2, 1}, {3, 2}, {4, 3}, {5, 4}};
    std::vector<PairResult> all;
    for (auto [pa, pb] : pairs) all.push_back(run_pair(c, Player{pa}, Player{pb}));
    std::printf(
        "\n| pairing (A vs B) | games | A W / D / L | A win %% | A ms/turn median / max "
        "| B ms/turn median / max |\n|---|---|---|---|---|---|\n");
    int errors = 0;
    for (const PairResult& pr : all) {
        errors += pr.errors;
        std::printf("| %s vs %s | %d | %d / %d / %d | %.1f | %s | %s |\n", pr.a.name().c_str(),
                    pr.b.name().c_str(), pr.w + pr.d + pr.l, pr.w, pr.d, pr.l, pr.pct,
                    ms_cell(pr.a, pr.sa).c_str(), ms_cell(pr.b, pr.sb).c_str());
    }
    return errors ? 1 : 0;
}
