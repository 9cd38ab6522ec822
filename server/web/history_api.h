// The history API on the HTTP port (proto/PROTOCOL.md, "History API"): listing games, one
// game's metadata and record, and exports of finished games. A request answered from the
// store's asynchronous reads: nothing here blocks the connection's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/store/store.h"

namespace tf::server {

struct ApiResponse {
    unsigned status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::string filename;  // set: served as an attachment under this name
    std::vector<std::pair<std::string, std::string>> headers = {};  // more header fields
};

// What the APIs answer for an error: {"error": CODE, "message": TEXT} with `status`.
ApiResponse api_error(unsigned status, const char* code, std::string message);
// Epoch ms as the APIs write instants: 2026-11-30T07:01:12.345Z.
std::string iso8601(std::int64_t ms);

// A query string's parameters, or nullopt when a part has no '=' (plain values only: no
// percent-decoding).
std::optional<std::map<std::string, std::string>> strict_query(std::string_view q);

// True for targets this API answers ("/api/..." paths).
bool is_api_target(std::string_view target);
// Answers a GET of `target`: `done` runs on `ex` with the response (never throws).
// `suspended` tells which games are paused by a store failure in this process: they are shown
// as "suspended" whatever their stored status says. `viewer` is the player the request
// authenticated as ("" for anyone): listings and player pages show private games only to the
// players seated in them (a private game's code is its secret; one game by its code is answered
// to whoever knows it).
using SuspendedFn = std::function<bool(const std::string& code)>;
void history_api(Store& store, std::string_view target, SuspendedFn suspended, std::string viewer,
                 Store::Executor ex, std::function<void(ApiResponse)> done);

}  // namespace tf::server
