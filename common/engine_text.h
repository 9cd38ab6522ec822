// The engine protocol's words (docs/ENGINE.md) as both sides read and write them: the variant of
// `newgame`, the limits of `go`, setups as cells, a setup or turn applied to a game. No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "common/game.h"

namespace tf::engine {

// `newgame size N elephants E burnt B quiet Q` (any field left out: the standard game's).
std::optional<Variant> parse_newgame(const std::vector<std::string>& words, std::string& err);
std::string newgame_text(const Variant& v);

// `go [stime MS] [btime MS] [sinc MS] [binc MS] [movetime MS]`; -1: not given.
struct GoLimits {
    std::int64_t time[2] = {-1, -1}, inc[2] = {-1, -1};
    std::int64_t movetime = -1;
};
std::optional<GoLimits> parse_go(const std::vector<std::string>& words, std::string& err);
// The bot level to play `side`'s next move at, from the engine's level and the time it has.
int level_for(int level, const GoLimits& limits, Side side);

// A setup as the protocol writes it: the elephants' cells, then the guardians'.
std::string setup_text(const Setup& s, int size);
// `line` after its first word `word` and the spaces after it.
std::string rest_of(std::string_view line, std::string_view word);
// Plays a setup (`setup` true: `text` is cells) or a turn (its notation) for the side expected
// to act; false with `err` ("illegal ...", "malformed ...") when it cannot, the game unchanged.
bool play(Game& g, bool setup, const std::string& text, std::string& err);

// The hints sent before a `go` to an engine that asked for them ("Hints"): up to 64 legal turns
// sampled at random (each an elephant move alone, or `pass`), or up to 8 legal setups.
std::vector<std::string> hints(const Game& g, std::mt19937_64& rng);

}  // namespace tf::engine
