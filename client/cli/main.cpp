// trunkfield: the command-line client. `rules` works on game records offline.
#include <iostream>
#include <string>
#include <vector>

#include "rules_cmd.h"

namespace {

constexpr const char* kUsage = R"(usage: trunkfield <command> [args]
commands:
  rules    replay, moves, perft, notation, bench on game records (trunkfield rules --help)
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
    std::cerr << "trunkfield: unknown command '" << cmd << "'\n" << kUsage;
    return 2;
}
