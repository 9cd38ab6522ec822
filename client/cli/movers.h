// What chooses a seat's setups and turns for the bridge (bridge_client.h): the built-in bot
// (common/bot.h) in this process, or an engine of docs/ENGINE.md in a child process. Both see
// the game as the client library's mirror of it and the clocks as `go` states them.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "client/lib/game_mirror.h"
#include "common/engine_driver.h"

namespace tf::cli {

// No setup or turn can be had: the engine broke (twice in a row: it is restarted once), or the
// game cannot be told to it (one started from a position).
struct MoverError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A setup or a turn, as the engine protocol answers it.
using Move = engine::EngineMove;

class Mover {
  public:
    virtual ~Mover() = default;
    // The setup or turn of the side to act in `m`'s game (it is being played and not over).
    // `game_index` tells games apart for a seeded bot. Throws MoverError.
    virtual Move choose(const client::GameMirror& m, const engine::GoLimits& limits,
                        std::uint64_t game_index) = 0;
    // Who plays, for logs: "level 3", "engine Trunkfield level 2".
    virtual std::string describe() const = 0;
};

std::unique_ptr<Mover> builtin_mover(int level, std::uint64_t seed);
// Starts `command` (/bin/sh -c) and greets it (tep, hints, level when given and declared,
// isready); throws MoverError when it cannot. `verbose`: every line to and from it on stdout.
std::unique_ptr<Mover> engine_mover(const std::string& command, int level, bool verbose);

// The clocks as `go` states them, read at `now_ms` (epoch ms) from the mirror's last reading;
// no times in an untimed game.
engine::GoLimits go_limits(const client::GameMirror& m, std::int64_t now_ms);

}  // namespace tf::cli
