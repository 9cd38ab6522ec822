// The social API on the HTTP port: a player's notifications, newest first, and marking them
// read (proto/PROTOCOL.md "Notifications"); the accounts a player follows (with whether they
// are online and what they play) and blocks, and changing them ("Follow and block"). Each needs
// the player's token (`Authorization: Bearer`) and runs on the social thread
// (server/social/social_service.h): nothing here blocks the connection's thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "server/web/history_api.h"

namespace tf::server {

class SocialDb;
class SocialService;

// True for /api/notifications, /api/relations and what is under them.
bool is_social_target(std::string_view target);

// Who asks: a player by a valid token, or nobody (""); and whether a player is connected to
// this node (presence when the store is one node's alone).
struct SocialReader {
    std::string player_id;
    bool account = false;
    std::function<bool(const std::string& player_id)> here = {};
};

// A job of an API on the social thread: `done` gets its answer on `ex`, 503 store_unavailable
// when the store failed, 429 busy when too many requests wait.
void run_social(SocialService& svc, std::function<ApiResponse(SocialDb&)> job, Store::Executor ex,
                std::function<void(ApiResponse)> done);

// Answers a GET (`post` false) or a POST of `target` with `body`: `done` runs on `ex` with the
// response (never throws). No valid token: 401. `svc` null: this server keeps none (503).
void social_api(SocialService* svc, bool post, std::string_view target, std::string body,
                SocialReader reader, Store::Executor ex, std::function<void(ApiResponse)> done);

}  // namespace tf::server
