// `trunkfield rules ...`: the rules library on game records, for scripts and tests.
#include "rules_cmd.h"

#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/notation.h"
#include "common/playout.h"
#include "common/record.h"

namespace tf::cli {

namespace {

constexpr const char* kUsage = R"(usage:
  trunkfield rules replay FILE        replay a game record; print the result as JSON
  trunkfield rules moves FILE         legal elephant moves after the record's legal turns
  trunkfield rules perft FILE DEPTH   count elephant-only turn sequences of length DEPTH
  trunkfield rules notation FILE      the record's legal turns in the turn notation, one a line
  trunkfield rules random [SEED]      a random complete game record (seeded), as JSON
  trunkfield rules bench [SECONDS]    random complete games on one core; games/s and turns/s
FILE may be - for standard input.
exit codes: 0 all applied, 1 an illegal setup or turn (output describes the state before it),
            2 input that is not a game record, or a usage error
)";

int fail(const std::string& msg) {
    std::cerr << "trunkfield rules: " << msg << "\n";
    return 2;
}

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

}  // namespace

int rules_command(const std::vector<std::string>& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << kUsage;
        return args.empty() ? 2 : 0;
    }
    const std::string& cmd = args[0];
    if (cmd == "bench") {
        double seconds = 3;
        if (args.size() > 1) {
            try {
                seconds = std::stod(args[1]);
            } catch (...) {
                return fail("bench: SECONDS must be a number");
            }
        }
        return bench(seconds);
    }
    if (cmd == "random") {
        std::uint64_t seed = 1;
        if (args.size() > 1) {
            try {
                seed = std::stoull(args[1]);
            } catch (...) {
                return fail("random: SEED must be a whole number");
            }
        }
        return random_record(seed);
    }
    if (cmd != "replay" && cmd != "moves" && cmd != "perft" && cmd != "notation")
        return fail("unknown command '" + cmd + "'\n" + kUsage);
    if (args.size() < 2) return fail(cmd + ": missing FILE\n" + kUsage);
    int depth = 0;
    if (cmd == "perft") {
        if (args.size() < 3) return fail("perft: missing DEPTH");
        try {
            depth = std::stoi(args[2]);
        } catch (...) {
            depth = -1;
        }
        if (depth < 0 || depth > 8) return fail("perft: DEPTH must be 0 to 8");
    }
    int code = 0;
    auto r = load(args[1], code);
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
        std::cout << Json{{"depth", depth}, {"nodes", perft(r->game, depth)}}.dump() << "\n";
    } else {
        for (const Turn& t : r->record.turns)
            std::cout << turn_to_notation(t, r->record.variant.size) << "\n";
    }
    return code;
}

}  // namespace tf::cli
