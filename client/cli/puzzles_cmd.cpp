// `trunkfield puzzles`: mining puzzles from game records and from the bot's games against itself
// (`generate`, one puzzle per line as JSON, what the server imports), and checking stored ones
// again with a deeper search (`verify`).
#include "puzzles_cmd.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/analysis.h"
#include "common/puzzles.h"
#include "rules_cmd.h"

namespace tf::cli {

namespace {

struct Args {
    std::vector<std::string> files;
    int selfplay = 0;
    std::uint64_t seed = 1;
    int size = 9;
    std::uint64_t nodes = PuzzleOptions{}.nodes;
    std::uint64_t verify_nodes = PuzzleOptions{}.verify_nodes;
    std::string file;  // verify
};

int fail(const std::string& msg) {
    std::cerr << "trunkfield puzzles: " << msg << "\n";
    return 1;
}

PuzzleOptions options(const Args& a) {
    PuzzleOptions o;
    o.nodes = a.nodes;
    o.verify_nodes = a.verify_nodes;
    return o;
}

int generate(const Args& args) {
    const auto start = std::chrono::steady_clock::now();
    const PuzzleOptions opt = options(args);
    const bool progress = isatty(STDERR_FILENO);
    int games = 0, positions = 0, found = 0;
    auto mine = [&](const Json& record, const std::string& source) -> bool {
        auto ps = mine_record(record, source, opt);
        if (!ps) {
            fail(source + ": " + ps.error().message);
            return false;
        }
        ++games;
        positions += int(record.value("turns", Json::array()).size()) + 1;
        for (const Puzzle& p : *ps) {
            std::cout << to_json(p).dump() << "\n" << std::flush;
            ++found;
        }
        if (progress) std::cerr << "\r" << games << " games, " << found << " puzzles" << std::flush;
        return true;
    };
    for (const std::string& f : args.files) {
        std::string text, err;
        if (!read_input(f, text, err)) return fail(err);
        Json j = Json::parse(text, nullptr, false);
        if (j.is_discarded()) return fail(f + ": not valid JSON");
        if (!mine(j, f)) return 1;
    }
    Variant v;
    if (args.size == 7) v = Variant{7, 3, 2, 30};
    for (int i = 0; i < args.selfplay; ++i) {
        const std::uint64_t seed = args.seed + std::uint64_t(i);
        mine(selfplay_record(seed, v), "selfplay:" + std::to_string(seed));
    }
    if (progress) std::cerr << "\r\033[K";
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "trunkfield puzzles: " << found << " puzzles from " << games << " games ("
              << positions << " positions) in " << int(secs + 0.5) << " s\n";
    return 0;
}

int verify(const Args& args) {
    std::string text, err;
    if (!read_input(args.file, text, err)) return fail(err);
    const PuzzleOptions opt = options(args);
    int n = 0, bad = 0;
    for (const PuzzleLine& l : read_puzzle_lines(text)) {
        ++n;
        std::string why = l.error;
        if (l.puzzle && verify_puzzle(*l.puzzle, args.verify_nodes, opt, &why)) continue;
        ++bad;
        std::cout << "puzzle " << n << (l.id.empty() ? "" : " (" + l.id + ")") << ": " << why
                  << "\n";
    }
    std::cout << n - bad << " of " << n << " puzzles verified\n";
    return bad ? 1 : 0;
}

}  // namespace

std::vector<PuzzleLine> read_puzzle_lines(const std::string& text) {
    std::vector<PuzzleLine> out;
    size_t start = 0;
    for (int no = 1; start < text.size(); ++no) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        PuzzleLine l;
        l.line = no;
        Json j = Json::parse(line, nullptr, false);
        if (j.is_discarded()) {
            l.error = "not valid JSON";
        } else {
            if (j.is_object() && j.contains("id") && j["id"].is_string())
                l.id = j["id"].get<std::string>();
            auto p = puzzle_from_json(j);
            if (p) {
                l.id = p->id;
                l.puzzle = std::move(*p);
            } else {
                l.error = p.error().message;
            }
        }
        out.push_back(std::move(l));
    }
    return out;
}

void add_puzzles_command(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand("puzzles", "mine puzzles from games; verify puzzles");
    cmd->require_subcommand(1);
    auto args = std::make_shared<Args>();
    auto budgets = [&](CLI::App* c) {
        c->add_option("--nodes", args->nodes, "search budget while mining")
            ->capture_default_str()
            ->transform(whole_number(kMinAnalysisNodes, kMaxAnalysisNodes));
        c->add_option("--verify-nodes", args->verify_nodes, "search budget when verifying")
            ->capture_default_str()
            ->transform(whole_number(kMinAnalysisNodes, kMaxAnalysisNodes));
    };
    CLI::App* gen = cmd->add_subcommand(
        "generate", "print the puzzles of game records and of bot games, one JSON per line");
    gen->add_option("RECORD", args->files, "game records (JSON, docs/RULES.md 9.1); - for stdin");
    gen->add_option("--selfplay", args->selfplay, "also mine this many games of the bot")
        ->transform(whole_number(0, 1'000'000));
    gen->add_option("--seed", args->seed, "the first bot game's seed")
        ->capture_default_str()
        ->transform(whole_number(0, 1'000'000'000));
    gen->add_option("--size", args->size, "the bot games' board: 9 (standard) or 7 (small)")
        ->capture_default_str()
        ->check(CLI::IsMember({7, 9}));
    budgets(gen);
    gen->callback([&run, args] { run = [args] { return generate(*args); }; });
    CLI::App* ver = cmd->add_subcommand(
        "verify", "search every puzzle of a file (one JSON per line) again; list those that fail");
    ver->add_option("FILE", args->file, "puzzles, one JSON per line; - for stdin")->required();
    budgets(ver);
    ver->footer("exit codes: 0 every puzzle holds, 1 one does not (or bad input), 2 usage");
    ver->callback([&run, args] { run = [args] { return verify(*args); }; });
}

}  // namespace tf::cli
