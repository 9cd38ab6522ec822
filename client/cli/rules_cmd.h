#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield rules replay|moves|perft|notation|random|bench ...` to `app`; when one of
// them is chosen, `run` is set to run it.
void add_rules_command(CLI::App& app, Run& run);

}  // namespace tf::cli
