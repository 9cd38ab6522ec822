// Position strings (docs/RULES.md §8 "Position strings"): one line that holds a whole position
// of play, as FEN does for chess, for links, the analysis board, the position editor and puzzles.
//
//   <variant> <board> <to move> <silver's counters> <bronze's counters> <quiet turns> <turns>
//   9.5.3.40 11/1o7o1/.../11 s 0.0.3.0.0 0.0.3.0.0 0 0
//
// - variant: size.elephants.burnt.quiet
// - board: the rows from the north ring (y = size + 1) down to the south ring (y = 0), "/"
//   between them, each from west (x = 0) to east (x = size + 1): `o` a trunk, `x` a burnt trunk,
//   `N E S W` a silver elephant facing that way, `n e s w` a bronze one, `G` a silver guardian,
//   `g` a bronze one, a number for that many empty cells.
// - to move: `s` or `b`; `-` when the rules ended the game (no trunk left, a herd gone, the quiet
//   limit reached).
// - counters: trunks held.trunks spent.burnt trunks left.elephants saved.elephants captured
// - quiet turns in a row, then turns played.
// Fields are separated by one space; `_` is read as a space, so a string fits in an address.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "error.h"
#include "game.h"

namespace tf {

// The position string of a game after both setups; nullopt during the setups (and for a game
// that ended before they were done).
std::optional<std::string> position_string(const Game& g);

// The game of a position string, checked as Game::from_snapshot checks a state (bad_format
// naming the field at fault, bad_variant for a variant out of bounds).
Expected<Game> game_from_position(std::string_view text);

}  // namespace tf
