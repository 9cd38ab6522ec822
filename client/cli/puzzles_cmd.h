#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield puzzles generate|verify` (common/puzzles.h) to `app`.
void add_puzzles_command(CLI::App& app, Run& run);

}  // namespace tf::cli
