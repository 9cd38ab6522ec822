#pragma once

#include <string>
#include <vector>

namespace tf::cli {

// `trunkfield bot --server HOST:PORT --level N [--games K] [--code CODE] [--name NAME]
// [--seed S] [--verbose]`: the computer opponent (common/bot.h) as a normal TCP client. Plays K
// quick matches in a row, or joins the game CODE. Returns the process exit code.
int bot_command(const std::vector<std::string>& args);

}  // namespace tf::cli
