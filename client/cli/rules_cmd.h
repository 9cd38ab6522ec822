#pragma once

#include <string>
#include <vector>

namespace tf::cli {

// `trunkfield rules replay|moves|perft|bench ...`; returns the process exit code.
int rules_command(const std::vector<std::string>& args);

}  // namespace tf::cli
