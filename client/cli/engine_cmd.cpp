// `trunkfield engine`: the built-in bot as an engine of docs/ENGINE.md
// (common/engine_builtin.h) on standard input and output.
#include "engine_cmd.h"

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bot.h"
#include "common/engine_builtin.h"

namespace tf::cli {

namespace {

struct EngineArgs {
    int level = 3;
    std::uint64_t seed = 1;
};

// Reads commands until `quit` or the end of input.
int run_engine(const EngineArgs& a, std::istream& in, std::ostream& out) {
    engine::BuiltinEngine e(a.level, a.seed);
    std::string line;
    while (!e.quit() && std::getline(in, line)) {
        for (const auto& l : e.command(line)) out << l << "\n";
        out.flush();
    }
    return 0;
}

}  // namespace

void add_engine_command(CLI::App& app, Run& run) {
    auto a = std::make_shared<EngineArgs>();
    auto* cmd = app.add_subcommand(
        "engine", "the built-in bot as an engine of docs/ENGINE.md, on standard input and output");
    cmd->add_option("--level", a->level, "strength, 1 (weakest) to 5 (until setoption level)")
        ->check(CLI::Range(kMinBotLevel, kMaxBotLevel))
        ->capture_default_str();
    cmd->add_option("--seed", a->seed, "varies the choices among equally good answers")
        ->transform(whole_number(0, UINT64_MAX))
        ->capture_default_str();
    cmd->footer(
        "Reads the engine protocol's commands (tep, isready, setoption, newgame, setup, turn, go,\n"
        "stop, quit) and answers them; see docs/ENGINE.md.\n"
        "exit codes: 0 after quit or the end of input, 2 usage");
    cmd->callback([&run, a] { run = [a] { return run_engine(*a, std::cin, std::cout); }; });
}

}  // namespace tf::cli
