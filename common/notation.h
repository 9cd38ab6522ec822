// The compact turn notation (docs/RULES.md, "Writing turns down"):
//   <elephant> [*<burnt>] [<guardian> ...]
//   elephant:  from-step-step[:F]   e.g. "c1-c2-c4:N", "i9-Ni" (exit), "pass" when there is none
//   burnt:     *e5
//   guardian:  <ring cell><+|-><cells>, + clockwise, - counterclockwise, e.g. "Sc+2", "W4-1"
// Printing then parsing gives back the same turn for every turn whose cells are on the board.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"
#include "turn.h"

namespace tf {

std::string turn_to_notation(const Turn& t, int size);
Expected<Turn> turn_from_notation(std::string_view s, int size);

// A line's words, split at spaces and tabs.
std::vector<std::string> split_words(std::string_view s);
// A setup written as cells: `a1 c1 e1 g1 i1 | Sa Nd`: field cells are elephants, ring cells
// guardians; `|` and commas are optional separators. Nullopt with `err` on a word that is not a
// cell.
std::optional<Setup> parse_setup_words(const std::vector<std::string>& words, int size,
                                       std::string& err);

}  // namespace tf
