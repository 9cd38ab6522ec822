#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield notifications --server HOST:PORT [--all] [--read]` (proto/PROTOCOL.md
// "Notifications", on the server's HTTP port) to `app`.
void add_notifications_command(CLI::App& app, Run& run);
// Adds `trunkfield playing --server HOST:PORT` (GET /api/playing, on the HTTP port): the games
// going on, your move or waiting, and the time left (correspondence games).
void add_playing_command(CLI::App& app, Run& run);
// Adds `trunkfield vacation [on|off] --server HOST:PORT` (GET and POST /api/vacation, on the
// HTTP port): whether the account is on vacation (its correspondence clocks stand on its move),
// the days left this year; `on` starts it, `off` ends it.
void add_vacation_command(CLI::App& app, Run& run);

}  // namespace tf::cli
