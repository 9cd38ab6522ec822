// `trunkfield rules ...`: the rules library on game records, for scripts and tests.
#include "rules_cmd.h"

#include <cstdint>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/notation.h"
#include "common/playout.h"
#include "common/record.h"

namespace tf::cli {

namespace {

constexpr const char* kFooter = R"(FILE may be - for standard input.
exit codes: 0 all applied, 1 an illegal setup or turn (output describes the state before it),
            2 input that is not a game record, or a usage error)";
constexpr const char* kExitCodes = "exit codes: 0 done, 2 a usage error";

// The command line of `trunkfield rules`: what its subcommands read.
struct Args {
    std::string file;
    int depth = 0;
    std::uint64_t seed = 1;
    double seconds = 3;
};

int fail(const std::string& msg) {
    std::cerr << "trunkfield rules: " << msg << "\n";
    return 2;
}

// Reads and replays the record at `path`; on failure prints to stderr and sets `code` to 2.
std::optional<Replay> load(const std::string& path, int& code) {
    std::string text, err;
    if (!read_input(path, text, err)) {
        code = fail(err);
        return std::nullopt;
    }
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded()) {
        code = fail(path + ": not valid JSON");
        return std::nullopt;
    }
    auto r = replay_record(j);
    if (!r) {
        code = fail(path + ": not a game record: " + r.error().message);
        return std::nullopt;
    }
    code = r->error ? 1 : 0;
    return std::move(*r);
}

// Runs random games for `seconds` of this process's CPU time (not wall time, so that other
// work on the machine skews the figure less) and prints the rates.
int bench(double seconds) {
    const Variant v;
    Rng rng(2026);
    long long games = 0, turns = 0;
    const std::clock_t start = std::clock();
    double elapsed = 0;
    while (elapsed < seconds) {
        for (int i = 0; i < 64; ++i) {
            Game g(v);
            turns += play_random_game(g, rng);
            ++games;
        }
        elapsed = double(std::clock() - start) / CLOCKS_PER_SEC;
    }
    Json out{{"cpu_seconds", elapsed},
             {"games", games},
             {"turns", turns},
             {"games_per_s", games / elapsed},
             {"turns_per_s", turns / elapsed},
             {"turns_per_game", double(turns) / double(games)}};
    std::cout << out.dump() << "\n";
    return 0;
}

// A complete game of uniformly random legal elephant moves, every turn validated by apply_turn.
int random_record(std::uint64_t seed) {
    Rng rng(seed);
    Record rec;
    Game g(rec.variant);
    rec.silver = random_setup(g, rng);
    g.apply_setup(Side::Silver, rec.silver);
    rec.bronze = random_setup(g, rng);
    g.apply_setup(Side::Bronze, rec.bronze);
    MoveList ml;
    while (!g.over()) {
        g.generate(ml);
        Turn t = ml.size ? g.to_turn(ml[int(rng.below(std::uint32_t(ml.size)))]) : Turn{};
        if (auto e = g.apply_turn(t))
            return fail("internal error: generated turn rejected: " + e->message);
        rec.turns.push_back(std::move(t));
    }
    std::cout << to_json(rec).dump() << "\n";
    return 0;
}

// `replay`, `moves`, `perft` and `notation`: the record in args.file, replayed.
int on_record(const std::string& cmd, const Args& args) {
    int code = 0;
    auto r = load(args.file, code);
    if (!r) return code;
    if (cmd == "replay") {
        std::cout << replay_summary(*r).dump() << "\n";
    } else if (cmd == "moves") {
        const Game& g = r->game;
        Json out{{"to_move", g.over() || g.phase() != Phase::Play ? Json(nullptr)
                                                                  : Json(side_name(g.to_move()))},
                 {"moves", moves_to_json(g)}};
        std::cout << out.dump() << "\n";
    } else if (cmd == "perft") {
        std::cout << Json{{"depth", args.depth}, {"nodes", perft(r->game, args.depth)}}.dump()
                  << "\n";
    } else {
        for (const Turn& t : r->record.turns)
            std::cout << turn_to_notation(t, r->record.variant.size) << "\n";
    }
    return code;
}

}  // namespace

bool read_input(const std::string& path, std::string& out, std::string& err) {
    if (path == "-") {
        out.assign(std::istreambuf_iterator<char>(std::cin), {});
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        err = "cannot read " + path;
        return false;
    }
    out.assign(std::istreambuf_iterator<char>(in), {});
    return true;
}

void add_rules_command(CLI::App& app, Run& run) {
    CLI::App* rules = app.add_subcommand(
        "rules", "replay, moves, perft, notation, random, bench on game records, offline");
    rules->require_subcommand(1);
    rules->footer(kFooter);
    auto args = std::make_shared<Args>();
    auto on_file = [&](const std::string& cmd, const std::string& what) {
        CLI::App* c = rules->add_subcommand(cmd, what);
        c->add_option("FILE", args->file, "game record (JSON, docs/RULES.md 9.1); - for stdin")
            ->required();
        c->footer(kFooter);
        c->callback([&run, args, cmd] { run = [args, cmd] { return on_record(cmd, *args); }; });
        return c;
    };
    on_file("replay", "replay a game record; print the result as JSON");
    on_file("moves", "legal elephant moves after the record's legal turns");
    on_file("perft", "count elephant-only turn sequences of length DEPTH")
        ->add_option("DEPTH", args->depth, "turns in each sequence")
        ->required()
        ->transform(whole_number(0, 8));
    on_file("notation", "the record's legal turns in the turn notation, one a line");
    CLI::App* random_cmd =
        rules->add_subcommand("random", "a random complete game record (seeded), as JSON");
    random_cmd->add_option("SEED", args->seed, "the same seed gives the same game")
        ->capture_default_str()
        ->transform(whole_number(0, UINT64_MAX).description(""));
    random_cmd->footer(kExitCodes);
    random_cmd->callback([&run, args] { run = [args] { return random_record(args->seed); }; });
    CLI::App* bench_cmd = rules->add_subcommand(
        "bench", "random complete games on one core; games/s and turns/s as JSON");
    bench_cmd->add_option("SECONDS", args->seconds, "CPU seconds to play for")
        ->capture_default_str()
        ->check(positive_number());
    bench_cmd->footer(kExitCodes);
    bench_cmd->callback([&run, args] { run = [args] { return bench(args->seconds); }; });
}

}  // namespace tf::cli
