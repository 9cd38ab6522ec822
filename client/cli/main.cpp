// trunkfield: the command-line client. `rules` works on game records offline.
#include <iostream>
#include <string>
#include <vector>

#include "bot_cmd.h"
#include "play_cmd.h"
#include "rules_cmd.h"

namespace {

constexpr const char* kUsage = R"(usage: trunkfield <command> [args]
commands:
  rules    replay, moves, perft, notation, bench on game records (trunkfield rules --help)
  play     play on a server in the terminal (trunkfield play --help)
  bot      play on a server as the computer opponent (trunkfield bot --help)
)";

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << kUsage;
        return args.empty() ? 2 : 0;
    }
    const std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "rules") return tf::cli::rules_command(args);
    if (cmd == "play") return tf::cli::play_command(args);
    if (cmd == "bot") return tf::cli::bot_command(args);
    std::cerr << "trunkfield: unknown command '" << cmd << "'\n" << kUsage;
    return 2;
}
