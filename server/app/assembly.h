// trunkfield-server put together and run (main.cpp parses the command line first): the log,
// the descriptor limit, the wait for PostgreSQL, the store, the Hub, the listeners and the
// cluster; then the network threads until a signal, and the drain that lets in-flight turns
// reach the store before the process stops.
#pragma once

#include <string>

#include "server/base/config.h"

namespace tf::server {

// The log's level and, under systemd's journal, its priority prefixes. False (said on standard
// error) for an unknown level.
bool setup_logging(const std::string& level);

// Serves until SIGTERM/SIGINT; the process's exit code (1: it could not start).
int serve(Config cfg);

}  // namespace tf::server
