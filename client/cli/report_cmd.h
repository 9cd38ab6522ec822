#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield report NAME --reason R [--game CODE] [--text TEXT]` (proto/PROTOCOL.md
// "Reports and moderation", on the server's HTTP port) to `app`.
void add_report_command(CLI::App& app, Run& run);

}  // namespace tf::cli
