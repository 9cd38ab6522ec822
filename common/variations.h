// Records with variations (docs/RULES.md §8 "Records with variations"): a position and a tree of
// turns from it, the main line first and alternatives in parentheses, as PGN writes chess games.
// The analysis board saves, shares and reads its trees in this form.
//
//   [Position "9.5.3.40 11/... s 0.0.3.0.0 0.0.3.0.0 0 0"]
//   [Game "k3v9qa"]
//
//   1. b1-b2:N {a comment} 2. a3-b3:E (2. a5-b5:E 3. c1-c2:N) 3. d1-d2:N
//
// - Tags first, one per line: `[Name "value"]` (letters, digits, `_`; `\"` and `\\` escaped in
//   the value). `Position` is required: the position string of the root (position.h).
// - Each turn is written in the project's notation after its number and a dot: the number of
//   turns played before it plus one (the position's last field plus the depth in the tree).
// - `( ... )` right after a turn holds an alternative to that turn, from the position before it,
//   and may nest; several may follow one turn. A turn's first continuation is its main line.
// - `{ ... }` is a comment on the turn before it (on the root when it comes first); it cannot
//   hold `}`.
// Every turn is checked with the rules when read.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json.h"

namespace tf {

struct VariationNode {
    Turn turn;
    std::string comment;
    std::vector<VariationNode> children;  // the main line first
};

struct VariationTree {
    std::vector<std::pair<std::string, std::string>> tags;  // in order, Position first
    std::string position;                                   // the root's position string
    std::string comment;                                    // on the root
    std::vector<VariationNode> children;
};

// Reads the text form; errors say where ("turn 14: ...", "at character 120: ...").
Expected<VariationTree> parse_variations(std::string_view text);
// The text form: tags, a blank line, then the turns wrapped at about 80 columns. Assumes a tree
// that parse_variations or variations_from_json accepted.
std::string print_variations(const VariationTree& tree);

// {"tags": {name: value}, "position", "comment", "children": [{"turn", "comment",
// "children"}]}: turns in canonical JSON, empty comments left out. Reading checks every turn.
Json to_json(const VariationTree& tree);
Expected<VariationTree> variations_from_json(const Json& j);

}  // namespace tf
