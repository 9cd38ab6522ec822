// What the command-line programs (`trunkfield` and bench/bot_ladder) share in parsing their
// arguments with CLI11, as trunkfield-server does: the exit codes their usage texts promise, and
// whole numbers read the way people write them.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tf::cli {

// The exit code of a usage error: an unknown flag, a missing or malformed value.
constexpr int kUsageError = 2;

// What the command line asked for, set by the callback of the (sub)command that was chosen once
// every flag of it parsed; its result is the process exit code.
using Run = std::function<int()>;

// Parses argv into `app`. --help (on any subcommand) prints that subcommand's help on standard
// output: 0. A usage error prints "PROGRAM SUBCOMMAND: message" and where the help is on
// standard error, with the subcommand's help when it needs a subcommand and got none:
// kUsageError. nullopt when parsing succeeded and the program goes on.
std::optional<int> parse_args(CLI::App& app, int argc, const char* const* argv);

// Checks that a value is a whole number from lo to hi in decimal digits alone, and rewrites it
// so that CLI11 converts it as one (add it with ->transform(), which lets it rewrite): "010" is
// ten (CLI11 alone reads octal there, and takes "0x10" or "-1" for numbers).
CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi);

// Checks that a value is a number greater than 0 ("SECONDS: 'x' is not a number above 0").
CLI::Validator positive_number();

}  // namespace tf::cli
