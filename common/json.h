// Canonical JSON of spec §6 for variants, setups, turns and moves, plus the game state.
// Parsing is strict (exact types, exact arity) and returns a BadFormat error naming the field.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "error.h"
#include "game.h"
#include "turn.h"

namespace tf {

using Json = nlohmann::json;

Expected<Variant> variant_from_json(const Json& j);  // BadFormat, or BadVariant when out of bounds
Expected<Setup> setup_from_json(const Json& j);
Expected<Turn> turn_from_json(const Json& j);
Expected<Cell> cell_from_json(const Json& j, const std::string& where);

Json to_json(Cell c);
Json to_json(const Variant& v);
Json to_json(const Setup& s);
Json to_json(const ElephantMove& m);
Json to_json(const Turn& t);
Json to_json(const Record& r);

// The whole visible state: board, pieces, counters, phase, result. See docs/RULES.md.
Json state_to_json(const Game& g);
// Rebuilds a game from state_to_json's output (checked with Game::from_snapshot).
Expected<Game> game_from_json(const Json& state);
// Every legal elephant move of the side to move, in canonical form.
Json moves_to_json(const Game& g);
// {"over", "reason", "score", "winner", "to_move"} as the rules CLI and the protocol report them.
Json result_to_json(const Game& g);

}  // namespace tf
