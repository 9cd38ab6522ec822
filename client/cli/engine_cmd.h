#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield engine [--level N] [--seed S]`: the computer opponent (common/bot.h) behind
// the engine protocol (docs/ENGINE.md), on standard input and output.
void add_engine_command(CLI::App& app, Run& run);

// Adds `trunkfield engine-check COMMAND [--games K] [--size 7|9] [--seed S] [--movetime MS]
// [--verbose]`: starts the engine COMMAND, plays K games in which it plays both sides and
// reports every answer that breaks docs/ENGINE.md or the rules.
void add_engine_check_command(CLI::App& app, Run& run);

}  // namespace tf::cli
