// Personal access tokens (proto/PROTOCOL.md "Access tokens"): an account makes tokens for its
// programs, each with scopes (read, play, challenge), lists and revokes them; a token works on
// the HTTP API for programs only (server/web/play_api.h), within its scopes. Made, listed and
// revoked with the account's session token (Authorization: Bearer), on the social thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/base/participant.h"
#include "server/web/history_api.h"

namespace tf::server {

class SocialService;

// An access token is "tfp_" and 48 hex digits (a selector, then the secret).
bool is_api_token(std::string_view token);
// True for /api/account/tokens and /api/account/tokens/revoke.
bool is_token_target(std::string_view path);

// GET /api/account/tokens lists the account's tokens; POST makes one ({"label", "scopes"}),
// answered with the token itself this once; POST /api/account/tokens/revoke {"id"} deletes one.
void token_api(SocialService& svc, bool post, const std::string& path, const std::string& body,
               const std::string& player_id, Store::Executor ex,
               std::function<void(ApiResponse)> done);

// The account an access token stands for, with its scopes; `player` empty (and `refusal` set)
// when the token is unknown, forged, of a closed account, or the store cannot tell.
struct TokenCheck {
    std::optional<Player> player;
    std::vector<std::string> scopes;
    std::optional<ApiResponse> refusal;
};
void check_api_token(SocialService* svc, const std::string& token, Store::Executor ex,
                     std::function<void(TokenCheck)> done);

}  // namespace tf::server
