// Replaying a game record (spec §6) through the rules: the engine behind `trunkfield rules` and
// every test that checks records.
#pragma once

#include <optional>

#include "json.h"

namespace tf {

struct Replay {
    Game game;
    Record record;                    // the parsed setups and the turns that applied
    int applied = 0;                  // turns applied before the first illegal one
    std::optional<RuleError> error;   // the illegal setup or turn, if any
    std::optional<Side> error_setup;  // set when the error is in a setup
    int error_turn = -1;              // index of the illegal turn, or -1
};

// Parses and replays a record. Returns an error only when the input is not a record at all
// (not an object, no setups, turns not a list, invalid variant); an illegal setup or turn is
// reported inside the Replay, with the game as it stood before it.
Expected<Replay> replay_record(const Json& record);

// The game a record starts from: its position, or both setups played. Assumes a record that
// replay_record read without error in its setups.
Game start_game(const Record& r);

// {"applied", "error", "over", "reason", "score", "winner", "to_move"} as `rules replay` prints.
Json replay_summary(const Replay& r);

}  // namespace tf
