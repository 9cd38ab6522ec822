#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield puzzle FILE [--theme T] [--from N] [--ascii]` (solving puzzles in the
// terminal, common/puzzles.h) to `app`.
void add_puzzle_command(CLI::App& app, Run& run);

}  // namespace tf::cli
