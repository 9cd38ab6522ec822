#pragma once

#include <string>

#include "cli_args.h"

namespace tf::cli {

// Adds `trunkfield rules replay|moves|perft|notation|random|bench ...` to `app`; when one of
// them is chosen, `run` is set to run it.
void add_rules_command(CLI::App& app, Run& run);

// Reads the file at `path`, or standard input for "-"; on failure sets `err` ("cannot read P").
bool read_input(const std::string& path, std::string& out, std::string& err);

}  // namespace tf::cli
