#pragma once

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield follow NAME [--quiet]`, `unfollow`, `block`, `unblock`, `mute`, `unmute` and
// `trunkfield following` (proto/PROTOCOL.md "Follow and block", on the server's HTTP port) to
// `app`.
void add_relations_commands(CLI::App& app, Run& run);

}  // namespace tf::cli
