#include "server/web/token_api.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "server/base/secrets.h"
#include "server/base/time.h"
#include "server/social/social_service.h"
#include "server/web/social_api.h"

namespace tf::server {

namespace {

using json = nlohmann::json;

constexpr std::string_view kPrefix = "tfp_";
constexpr std::size_t kSelectorHex = 16, kSecretHex = 32, kMaxLabelChars = 60;
constexpr const char* kScopes[] = {"read", "play", "challenge"};

bool hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < s.size()) {
        auto sp = s.find(' ', at);
        if (sp == std::string::npos) sp = s.size();
        if (sp > at) out.push_back(s.substr(at, sp - at));
        at = sp + 1;
    }
    return out;
}

json token_json(const StoredApiToken& t) {
    return {{"id", t.selector},
            {"label", t.label},
            {"scopes", split(t.scopes)},
            {"created", iso8601(t.created_ms)},
            {"last_used", t.used_ms ? json(iso8601(t.used_ms)) : json(nullptr)}};
}

ApiResponse answer(const json& j) {
    return {200, "application/json", j.dump(), ""};
}

// The label and the scopes of a new token, in the order of kScopes; nullopt when malformed.
std::optional<std::pair<std::string, std::string>> new_token(const std::string& body) {
    auto j = json::parse(body, nullptr, false);
    if (!j.is_object() || !j.contains("label") || !j["label"].is_string() ||
        !j.contains("scopes") || !j["scopes"].is_array() || j["scopes"].empty() || j.size() != 2)
        return std::nullopt;
    std::string label = j["label"].get<std::string>();
    const auto chars = std::count_if(label.begin(), label.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    });
    if (chars < 1 || std::size_t(chars) > kMaxLabelChars ||
        std::any_of(label.begin(), label.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
        return std::nullopt;
    std::string scopes;
    for (const char* s : kScopes)
        for (const auto& v : j["scopes"])
            if (v.is_string() && v.get<std::string>() == s) {
                scopes += (scopes.empty() ? "" : " ") + std::string(s);
                break;
            }
    for (const auto& v : j["scopes"])
        if (!v.is_string() ||
            std::none_of(std::begin(kScopes), std::end(kScopes),
                         [&](const char* s) { return v.get<std::string>() == s; }))
            return std::nullopt;
    return std::make_pair(std::move(label), std::move(scopes));
}

}  // namespace

bool is_api_token(std::string_view token) {
    return token.size() == kPrefix.size() + kSelectorHex + kSecretHex &&
           token.substr(0, kPrefix.size()) == kPrefix && hex(token.substr(kPrefix.size()));
}

bool is_token_target(std::string_view path) {
    return path == "/api/account/tokens" || path == "/api/account/tokens/revoke";
}

void token_api(SocialService& svc, bool post, const std::string& path, const std::string& body,
               const std::string& player_id, Store::Executor ex,
               std::function<void(ApiResponse)> done) {
    auto reply = [&](ApiResponse r) { boost::asio::post(ex, [done, r] { done(r); }); };
    if (path == "/api/account/tokens" && !post)
        return run_social(
            svc,
            [player_id](SocialDb& db) {
                json list = json::array();
                for (const auto& t : db.tokens().api_tokens(player_id))
                    list.push_back(token_json(t));
                return answer({{"tokens", list}});
            },
            ex, done);
    if (!post) return reply(api_error(405, "method_not_allowed", "POST it to revoke a token"));
    if (path == "/api/account/tokens/revoke") {
        auto j = json::parse(body, nullptr, false);
        if (!j.is_object() || j.size() != 1 || !j.contains("id") || !j["id"].is_string())
            return reply(api_error(400, "bad_request", "send {\"id\": ID}"));
        return run_social(
            svc,
            [player_id, id = j["id"].get<std::string>()](SocialDb& db) {
                if (!db.tokens().revoke_api_token(player_id, id))
                    return api_error(404, "not_found", "you have no token " + id);
                return answer({{"revoked", id}});
            },
            ex, done);
    }
    auto fields = new_token(body);
    if (!fields)
        return reply(api_error(400, "bad_request",
                               "send {\"label\": 1 to 60 characters, \"scopes\": one or more of "
                               "\"read\", \"play\", \"challenge\"}"));
    StoredApiToken t;
    t.player_id = player_id;
    t.selector = random_hex(kSelectorHex / 2);
    const std::string secret = random_hex(kSecretHex / 2);
    t.secret_hash = sha256_hex(secret);
    t.label = fields->first;
    t.scopes = fields->second;
    t.created_ms = epoch_ms();
    run_social(
        svc,
        [t, token = std::string(kPrefix) + t.selector + secret](SocialDb& db) {
            if (!db.tokens().add_api_token(t))
                return api_error(409, "too_many",
                                 "an account holds at most " +
                                     std::to_string(ApiTokenDb::kMaxApiTokens) +
                                     " tokens: revoke one first");
            json j = token_json(t);
            j["token"] = token;
            return answer(j);
        },
        ex, done);
}

void check_api_token(SocialService* svc, const std::string& token, Store::Executor ex,
                     std::function<void(TokenCheck)> done) {
    auto refuse = [&](unsigned status, const char* code, std::string message) {
        TokenCheck c;
        c.refusal = api_error(status, code, std::move(message));
        boost::asio::post(ex, [done, c] { done(c); });
    };
    if (!svc) return refuse(401, "unauthorized", "this server keeps no accounts");
    if (!is_api_token(token)) return refuse(401, "unauthorized", "unknown token");
    const std::string selector = token.substr(kPrefix.size(), kSelectorHex);
    const std::string secret_hash = sha256_hex(token.substr(kPrefix.size() + kSelectorHex));
    const bool queued = svc->run<std::optional<ApiTokenOwner>>(
        [selector](SocialDb& db) { return db.tokens().api_token(selector, epoch_ms()); }, ex,
        [done, secret_hash](Read<std::optional<ApiTokenOwner>> r) {
            TokenCheck c;
            if (!r.ok()) {
                c.refusal = api_error(503, "store_unavailable",
                                      "the token cannot be checked right now; try again");
            } else if (!*r.value ||
                       !constant_time_equal((*r.value)->token.secret_hash, secret_hash)) {
                c.refusal = api_error(401, "unauthorized", "unknown token");
            } else if ((*r.value)->closed) {
                c.refusal = api_error(403, "account_closed", "the account is closed");
            } else {
                const auto& o = **r.value;
                c.player = Player{o.token.player_id, o.username, true, o.bot};
                c.scopes = split(o.token.scopes);
            }
            done(std::move(c));
        });
    if (!queued) refuse(429, "busy", "too many requests wait; try again in a moment");
}

}  // namespace tf::server
