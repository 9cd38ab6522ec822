#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield analyse RECORD [--nodes N] [--json]` (common/analysis.h) to `app`; when it is
// chosen, `run` is set to run it.
void add_analyse_command(CLI::App& app, Run& run);

}  // namespace tf::cli
