#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli_args.h"
#include "common/puzzles.h"

namespace tf::cli {

// One non-blank line of a puzzle file (one JSON per line): its number from 1, the puzzle or why
// it is none, and the id the line claims (for naming a puzzle that cannot be read).
struct PuzzleLine {
    int line = 0;
    std::optional<Puzzle> puzzle;
    std::string error;
    std::string id;
};
std::vector<PuzzleLine> read_puzzle_lines(const std::string& text);

// Adds `trunkfield puzzles generate|verify` (common/puzzles.h) to `app`.
void add_puzzles_command(CLI::App& app, Run& run);

}  // namespace tf::cli
