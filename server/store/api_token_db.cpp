// The access-token table (api_token_db.h; schema 10): PROTOCOL.md "Access tokens".
#include "server/store/api_token_db.h"

namespace tf::server {

bool ApiTokenDb::add_api_token(const StoredApiToken& t) {
    return db_->transaction([&] {
        auto held =
            db_->exec("SELECT count(*) FROM api_tokens WHERE player_id = $1", {t.player_id});
        if (!held.empty() && num(held[0][0]) >= kMaxApiTokens) return false;
        db_->exec(
            "INSERT INTO api_tokens (selector, player_id, secret_hash, label, scopes, created_at) "
            "VALUES ($1, $2, $3, $4, $5, $6)",
            {t.selector, t.player_id, t.secret_hash, t.label, t.scopes, t.created_ms});
        return true;
    });
}

std::vector<StoredApiToken> ApiTokenDb::api_tokens(const std::string& player_id) {
    std::vector<StoredApiToken> out;
    for (const auto& r :
         db_->exec("SELECT selector, label, scopes, created_at, used_at FROM api_tokens "
                   "WHERE player_id = $1 ORDER BY created_at DESC, selector",
                   {player_id}))
        out.push_back({player_id, str(r[0]), "", str(r[1]), str(r[2]), num(r[3]), num(r[4])});
    return out;
}

bool ApiTokenDb::revoke_api_token(const std::string& player_id, const std::string& selector) {
    return !db_->exec(
                   "DELETE FROM api_tokens WHERE player_id = $1 AND selector = $2 "
                   "RETURNING selector",
                   {player_id, selector})
                .empty();
}

std::optional<ApiTokenOwner> ApiTokenDb::api_token(const std::string& selector,
                                                   std::int64_t now_ms) {
    auto rows = db_->exec(
        "SELECT t.player_id, t.secret_hash, t.label, t.scopes, t.created_at, t.used_at, "
        "a.username FROM api_tokens t JOIN accounts a ON a.player_id = t.player_id "
        "WHERE t.selector = $1",
        {selector});
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    ApiTokenOwner o;
    o.token = {str(r[0]), selector, str(r[1]), str(r[2]), str(r[3]), num(r[4]), num(r[5])};
    o.username = str(r[6]);
    for (const auto& role : moderation_->roles(o.token.player_id)) o.bot = o.bot || role == "bot";
    o.closed = moderation_->standing(o.token.player_id).closed;
    if (now_ms - o.token.used_ms >= 60'000)
        db_->exec("UPDATE api_tokens SET used_at = $1 WHERE selector = $2", {now_ms, selector});
    return o;
}

}  // namespace tf::server
