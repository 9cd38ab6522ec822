// The built-in bot (bot.h) as an engine of docs/ENGINE.md: one command line in, its answer
// lines out. `trunkfield engine` puts it on standard input and output; InProcessLink puts it
// behind an EngineDriver (engine_driver.h) in the same process, which is how the server's
// computer opponents and `trunkfield bot` play: the same protocol as any engine, with no child
// process. The search is bounded by nodes, not time (well under a second at level 5), so `go`
// answers before anything could ask it to stop; short clocks lower the level for that move.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bot.h"
#include "common/engine_driver.h"
#include "common/game.h"

namespace tf::engine {

class BuiltinEngine {
  public:
    BuiltinEngine(int level, std::uint64_t seed);
    // The answer lines to one command line (none to `stop`, `legal` and `quit`).
    std::vector<std::string> command(std::string_view line);
    bool quit() const { return quit_; }  // `quit` was read

  private:
    std::vector<std::string> answer(const std::vector<std::string>& w, const std::string& line);
    std::string set_option(const std::vector<std::string>& w);
    std::vector<std::string> go(const std::vector<std::string>& w);

    BotOptions opt_;
    std::optional<Game> game_;
    bool quit_ = false;
};

// A BuiltinEngine as an EngineLink: each line sent is answered at once, its lines read back.
class InProcessLink : public EngineLink {
  public:
    InProcessLink(int level, std::uint64_t seed) : engine_(level, seed) {}
    bool send(const std::string& line) override;
    std::optional<std::string> read_line(std::chrono::milliseconds) override;
    bool closed() const override { return engine_.quit() && out_.empty(); }

  private:
    BuiltinEngine engine_;
    std::deque<std::string> out_;
};

}  // namespace tf::engine
