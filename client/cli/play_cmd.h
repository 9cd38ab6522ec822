#pragma once

#include <string>
#include <vector>

namespace tf::cli {

// `trunkfield play [--server HOST:PORT] [--name NAME] [--token-file PATH] [--no-color] ...`:
// the interactive terminal client. Returns the process exit code.
int play_command(const std::vector<std::string>& args);

}  // namespace tf::cli
