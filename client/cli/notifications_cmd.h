#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield notifications --server HOST:PORT [--all] [--read]` (proto/PROTOCOL.md
// "Notifications", on the server's HTTP port) to `app`.
void add_notifications_command(CLI::App& app, Run& run);
// Adds `trunkfield playing --server HOST:PORT` (GET /api/playing, on the HTTP port): the games
// going on, your move or waiting, and the time left (correspondence games).
void add_playing_command(CLI::App& app, Run& run);

}  // namespace tf::cli
