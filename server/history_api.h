// The history API on the HTTP port (proto/PROTOCOL.md, "History API"): listing games, one
// game's metadata and record, and exports of finished games. Pure request -> response over the
// store's reads; http_session.cpp runs it on the worker pool, off the network threads.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace tf::server {

class Store;

struct ApiResponse {
    unsigned status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::string filename;  // set: served as an attachment under this name
};

// True for targets this API answers ("/api/..." paths).
bool is_api_target(std::string_view target);
// Answers a GET of `target`; never throws. `suspended` tells which games are paused by a store
// failure in this process: they are shown as "suspended" whatever their stored status says.
using SuspendedFn = std::function<bool(const std::string& code)>;
ApiResponse history_api(Store& store, std::string_view target, const SuspendedFn& suspended = {});

}  // namespace tf::server
