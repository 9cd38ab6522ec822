#pragma once

#include <string>

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield play [--server HOST:PORT] [--name NAME] [--token-file PATH] [--no-color]
// ...`, the interactive terminal client, to `app`; when it is chosen, `run` is set to run it.
void add_play_command(CLI::App& app, Run& run);

// Where `trunkfield play` keeps its tokens ("SERVER TOKEN" lines): $XDG_CONFIG_HOME or
// ~/.config, trunkfield/token; "" when neither is set.
std::string default_token_path();

}  // namespace tf::cli
