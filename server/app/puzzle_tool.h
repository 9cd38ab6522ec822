// `trunkfield-server puzzles import FILE` and `puzzles export` (docs/OPERATING.md "Puzzles"): the
// operator's way to fill a store with puzzles and to read them back, on the SQLite store of a
// data folder or on PostgreSQL, also while servers run on it.
#pragma once

#include <iosfwd>
#include <string>

namespace tf::server {

struct PuzzleToolOptions {
    std::string action;                  // "import" or "export"
    std::string file;                    // import: JSON lines
    bool trust = false;                  // import: skip the verification
    std::string data_dir, database_url;  // the store: PostgreSQL when the URL is set
};

// The exit code; what was done on `out`, what went wrong on `err`.
int run_puzzle_tool(const PuzzleToolOptions& o, std::ostream& out, std::ostream& err);

}  // namespace tf::server
