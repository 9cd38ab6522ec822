// Parsing what the player types into `trunkfield play` (command arguments, setups, time
// controls) and making server text safe to print. No I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/game.h"
#include "common/notation.h"
#include "proto/messages.h"

namespace tf::play {

using ::tf::split_words;  // common/notation.h

// `create`/`quick` arguments: size=N elephants=E burnt=B quiet=Q time=MIN+INC|DAYSd side=S
// private.
struct GameOptions {
    Variant variant;
    std::optional<proto::TimeControl> time_control;  // nullopt: untimed
    proto::ColorChoice color = proto::ColorChoice::Random;
    bool is_public = true;
    bool rated = false;  // "rated": counts for both players' ratings (accounts only)
};
// Parses `words` (the command's arguments). `with_seat`: side= and private are allowed.
// On error returns nullopt and sets `err`.
std::optional<GameOptions> parse_game_options(const std::vector<std::string>& words, bool with_seat,
                                              std::string& err);
// "5+3" (minutes + seconds of increment), "0.5+0", "untimed"/"none" -> nullopt time control;
// a correspondence game's days per move: "3d", "3 days", "corr:3" (proto::kCorrespondenceDays
// only). Returns false on a malformed value, with `err` saying what is allowed.
bool parse_time_control(std::string_view s, std::optional<proto::TimeControl>& out,
                        std::string& err);
// "5+3", "0.5+1.5", "3 days per move", "untimed".
std::string describe_time_control(const std::optional<proto::TimeControl>& tc);

// `setup a1 c1 e1 g1 i1 | Sa Nd` (common/notation.h).
using ::tf::parse_setup_words;
std::string setup_to_text(const Setup& s, int size);

// Server-supplied text made safe for a terminal: control characters (escape sequences
// included) become '?', invalid UTF-8 becomes '?', and the result is at most `max` bytes.
std::string clean_text(std::string_view s, std::size_t max = 600);

// "HOST:PORT", "[v6addr]:PORT" or "HOST" (default port). False when malformed.
bool parse_server(std::string_view s, std::string& host, unsigned short& port);
// The HTTP API's address as `trunkfield puzzle --server` and `notifications --server` take it:
// "HOST:PORT", also written "http://HOST:PORT/". False when malformed or without a port.
bool parse_http_server(std::string_view s, std::string& host, unsigned short& port);

}  // namespace tf::play
