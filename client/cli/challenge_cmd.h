#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield challenge USERNAME`, `trunkfield accept CODE` and `trunkfield decline CODE`
// (proto/PROTOCOL.md "Challenges") to `app`.
void add_challenge_commands(CLI::App& app, Run& run);

}  // namespace tf::cli
