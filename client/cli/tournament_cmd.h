#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield tournaments`, `tournament ID`, `join-tournament ID` and
// `withdraw-tournament ID` (proto/PROTOCOL.md "Tournaments") to `app`.
void add_tournament_commands(CLI::App& app, Run& run);

}  // namespace tf::cli
