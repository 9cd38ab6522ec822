#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield bot --server HOST:PORT --level N [--games K] [--code CODE] [--name NAME]
// [--seed S] [--verbose]`, the computer opponent (common/bot.h) as a normal TCP client, to
// `app`; when it is chosen, `run` is set to run it: K quick matches in a row, or the game CODE.
void add_bot_command(CLI::App& app, Run& run);

// Adds `trunkfield bridge --server HOST:PORT --engine CMD --token TOKEN [...]`: an engine of
// docs/ENGINE.md playing as the token's account, taking the challenges its rules accept (or
// quick matches with --seek), reconnecting until stopped.
void add_bridge_command(CLI::App& app, Run& run);

}  // namespace tf::cli
