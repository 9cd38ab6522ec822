#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield play [--server HOST:PORT] [--name NAME] [--token-file PATH] [--no-color]
// ...`, the interactive terminal client, to `app`; when it is chosen, `run` is set to run it.
void add_play_command(CLI::App& app, Run& run);

}  // namespace tf::cli
