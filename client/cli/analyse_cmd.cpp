// `trunkfield analyse`: our engine's view of a finished (or unfinished) game, turn by turn.
#include "analyse_cmd.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/analysis.h"
#include "common/notation.h"
#include "rules_cmd.h"

namespace tf::cli {

namespace {

struct Args {
    std::string file;
    std::uint64_t nodes = kAnalysisNodes;
    bool json = false;
};

int fail(const std::string& msg) {
    std::cerr << "trunkfield analyse: " << msg << "\n";
    return 1;
}

// An eval as a reader takes it: points from silver's view, or who wins by force.
std::string eval_text(const PositionEval& p) {
    if (p.forced) return std::string(side_name(*p.forced)) + " wins";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f", p.eval / 100.0);
    return buf;
}

const char* judgement_mark(Judgement j) {
    constexpr const char* kMarks[] = {"", "?!", "?", "??"};
    return kMarks[int(j)];
}

std::string plural(int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

void print_text(const Analysis& a, int size) {
    std::cout << "Analysis: " << a.turns.size() << " turns, " << a.nodes
              << " nodes per position; evals in points from silver's view\n";
    std::cout << "start            " << eval_text(a.positions.front()) << "\n";
    size_t width = 0;
    std::vector<std::string> played;
    for (const TurnEval& t : a.turns) {
        played.push_back(turn_to_notation(t.turn, size));
        width = std::max(width, played.back().size());
    }
    for (size_t i = 0; i < a.turns.size(); ++i) {
        const TurnEval& t = a.turns[i];
        char head[64];
        std::snprintf(head, sizeof head, "%4zu. %-7s ", i + 1,
                      std::string(side_name(t.side)).c_str());
        std::string line = head + played[i] + std::string(width - played[i].size() + 2, ' ') +
                           eval_text(a.positions[i + 1]);
        if (t.judgement != Judgement::None) line += std::string("  ") + judgement_mark(t.judgement);
        if (t.best) line += "  best: " + turn_to_notation(*t.best, size);
        std::cout << line << "\n";
    }
    for (Side s : {Side::Silver, Side::Bronze}) {
        const PlayerEval& p = a.players[idx(s)];
        char acc[32];
        std::snprintf(acc, sizeof acc, "%.1f", p.accuracy);
        std::cout << side_name(s) << ": accuracy " << acc << " %, "
                  << plural(p.inaccuracies, "inaccuracy", "inaccuracies") << ", "
                  << plural(p.mistakes, "mistake", "mistakes") << ", "
                  << plural(p.blunders, "blunder", "blunders") << "\n";
    }
}

int analyse(const Args& args) {
    std::string text, err;
    if (!read_input(args.file, text, err)) return fail(err);
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded()) return fail(args.file + ": not valid JSON");
    auto analyser = Analyser::create(j, args.nodes);
    if (!analyser) return fail(args.file + ": " + analyser.error().message);
    // Progress only for a person watching: a script reading stderr wants no carriage returns.
    const bool progress = isatty(STDERR_FILENO);
    while (!analyser->finished()) {
        if (progress)
            std::cerr << "\ranalysing position " << analyser->done() + 1 << " of "
                      << analyser->total() << std::flush;
        analyser->step();
    }
    if (progress) std::cerr << "\r\033[K" << std::flush;
    const Analysis a = analyser->result();
    if (args.json)
        std::cout << to_json(a).dump() << "\n";
    else
        print_text(a, analyser->record().variant.size);
    return 0;
}

}  // namespace

void add_analyse_command(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand(
        "analyse", "evaluate every position of a game record with the engine; judge each turn");
    auto args = std::make_shared<Args>();
    cmd->add_option("RECORD", args->file, "game record (JSON, docs/RULES.md 9.1); - for stdin")
        ->required();
    cmd->add_option("--nodes", args->nodes, "search budget per position (positions visited)")
        ->capture_default_str()
        ->transform(whole_number(kMinAnalysisNodes, kMaxAnalysisNodes));
    cmd->add_flag("--json", args->json, "print the analysis as JSON (docs/RULES.md §10)");
    cmd->footer(
        "RECORD may be - for standard input.\n"
        "exit codes: 0 done, 1 the record cannot be analysed (not a record, an illegal setup\n"
        "            or turn), 2 a usage error");
    cmd->callback([&run, args] { run = [args] { return analyse(*args); }; });
}

}  // namespace tf::cli
