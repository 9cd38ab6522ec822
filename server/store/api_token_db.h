// Personal access tokens (schema 10; PROTOCOL.md "Access tokens"): at most kMaxApiTokens an
// account; only the secret's hash is kept. On SocialDb's connection; blocking, one thread at a
// time; failures throw StoreError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/store/moderation_db.h"
#include "server/store/side_db.h"

namespace tf::server {

// A personal access token as kept: `selector` names it (its id), `scopes` space-separated.
struct StoredApiToken {
    std::string player_id, selector, secret_hash, label, scopes;
    std::int64_t created_ms = 0, used_ms = 0;
};
struct ApiTokenOwner {
    StoredApiToken token;
    std::string username;
    bool bot = false, closed = false;
};

class ApiTokenDb {
  public:
    // `moderation` answers an owner's roles and standing.
    ApiTokenDb(SideDb& db, ModerationDb& moderation) : db_(&db), moderation_(&moderation) {}

    static constexpr int kMaxApiTokens = 20;
    // Keeps `t` (its player_id, selector, secret_hash, label, scopes, created_ms); false when
    // the account holds kMaxApiTokens already.
    bool add_api_token(const StoredApiToken& t);
    // The account's tokens, newest first (secret_hash left empty).
    std::vector<StoredApiToken> api_tokens(const std::string& player_id);
    // Deletes the account's token `selector`; false when it has none of that name.
    bool revoke_api_token(const std::string& player_id, const std::string& selector);
    // The token `selector` with its account's username, bot flag and standing, its use noted
    // (at most once a minute); nullopt when there is none.
    std::optional<ApiTokenOwner> api_token(const std::string& selector, std::int64_t now_ms);

  private:
    SideDb* db_;
    ModerationDb* moderation_;
};

}  // namespace tf::server
