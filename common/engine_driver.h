// The engine protocol (docs/ENGINE.md) from the controller's side, over any line link: greets
// the engine (tep, hints, level, isready), brings its game to the one being played with
// newgame, setups and turns (only what it lacks), sends the clocks with `go` and checks the
// answer against the rules. One path for every computer player: the server's computer
// opponents and `trunkfield bot` drive the built-in engine (engine_builtin.h) through it in
// their own process; `trunkfield bridge` and `engine-check` drive a child process. No I/O of
// its own: the link does it.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/engine_text.h"
#include "common/game.h"

namespace tf::engine {

// Lines to and from an engine.
class EngineLink {
  public:
    virtual ~EngineLink() = default;
    // Writes one command line; false once the engine stopped reading (it exited).
    virtual bool send(const std::string& line) = 0;
    // The engine's next line within `timeout`; nullopt when none came (closed() says whether
    // the engine closed its output).
    virtual std::optional<std::string> read_line(std::chrono::milliseconds timeout) = 0;
    virtual bool closed() const = 0;
};

// The game as the engine is told it: its variant, both setups (once made) and the turns.
struct GameLines {
    Variant variant;
    std::optional<Setup> setups[2];
    std::vector<Turn> turns;
};

struct EngineMove {
    bool is_setup = false;
    Setup setup;
    Turn turn;
};

// The engine broke: it exited, answered late, out of the protocol or against the rules.
struct EngineBroken : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class EngineDriver {
  public:
    // Every line to and from the engine, for a verbose log ("> tep", "< tepok").
    using Trace = std::function<void(const std::string&)>;
    // `level` > 0: set when the engine declares the option. Greets the engine; throws
    // EngineBroken when it does not answer as the protocol says.
    EngineDriver(EngineLink& link, int level, Trace trace = {});

    // The setup or turn of the side to move in `g` (not over), whose history `lines` is;
    // `limits` are go's. Throws EngineBroken.
    EngineMove ask(const GameLines& lines, const Game& g, const GoLimits& limits);

    const std::string& name() const { return name_; }

    // docs/ENGINE.md "Errors": every answer but go's within 10 s.
    static constexpr std::chrono::milliseconds kCommandLimit{10000};
    // How long `go` may take beyond the mover's own clock (the server's flag falls first), and
    // in an untimed game, and at most in a correspondence game.
    static constexpr std::chrono::milliseconds kGoGrace{2000}, kUntimedGo{60000},
        kLongestGo{300000};

  private:
    void send(const std::string& line);
    std::string answer(std::chrono::milliseconds limit);
    void expect(const std::string& command, const std::string& want);

    EngineLink& link_;
    Trace trace_;
    std::string name_;
    bool hints_ = false;
    std::vector<std::string> sent_;  // what the engine's game holds: newgame, setups, turns
    std::mt19937_64 rng_{1};
};

// The lines that bring an engine's game to `lines`: newgame, setups, turns.
std::vector<std::string> history_lines(const GameLines& lines);

}  // namespace tf::engine
