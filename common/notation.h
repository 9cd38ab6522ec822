// The compact turn notation (docs/RULES.md, "Writing turns down"):
//   <elephant> [*<burnt>] [<guardian> ...]
//   elephant:  from-step-step[:F]   e.g. "c1-c2-c4:N", "i9-Ni" (exit), "pass" when there is none
//   burnt:     *e5
//   guardian:  <ring cell><+|-><cells>, + clockwise, - counterclockwise, e.g. "Sc+2", "W4-1"
// Printing then parsing gives back the same turn for every turn whose cells are on the board.
#pragma once

#include <string>
#include <string_view>

#include "error.h"
#include "turn.h"

namespace tf {

std::string turn_to_notation(const Turn& t, int size);
Expected<Turn> turn_from_notation(std::string_view s, int size);

}  // namespace tf
