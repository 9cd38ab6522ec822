#include "server/web/social_api.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <charconv>
#include <nlohmann/json.hpp>

#include "server/base/time.h"
#include "server/social/social_service.h"

namespace tf::server {

namespace {

using json = nlohmann::json;

ApiResponse ok(const json& j) {
    return {200, "application/json", j.dump(), ""};
}

// A number from 1 to `max` in the query, or nullopt.
std::optional<std::int64_t> number(const std::string& s, std::int64_t max) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 1 || v > max) return std::nullopt;
    return v;
}

using Job = std::function<ApiResponse(SocialDb&)>;

void run(SocialService& svc, Job job, Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto then = [done](Read<ApiResponse> r) {
        if (r.ok()) return done(std::move(*r.value));
        spdlog::warn("social API: {}", r.error);
        done(api_error(503, "store_unavailable", "the server cannot read this now"));
    };
    if (!svc.run<ApiResponse>(std::move(job), ex, then))
        boost::asio::post(ex, [done] {
            done(api_error(429, "busy", "too many requests waiting; try again shortly"));
        });
}

// The player's relations as GET /api/relations answers them.
json relations_json(SocialDb& db, const std::string& player_id,
                    const std::function<bool(const std::string&)>& here) {
    json following = json::array(), blocked = json::array();
    const auto online = db.followed_online(player_id);
    for (const auto& r : db.relations_of(player_id)) {
        if (r.kind == "block") {
            blocked.push_back({{"name", r.other_name}, {"since", r.at_ms}});
            continue;
        }
        // Connected here, or (several nodes) to a node whose lease holds.
        const bool on =
            (here && here(r.other_id)) ||
            (online && std::find(online->begin(), online->end(), r.other_id) != online->end());
        const std::string game = db.playing(r.other_id);
        following.push_back({{"name", r.other_name},
                             {"notify", r.kind == "follow"},
                             {"online", on},
                             {"playing", game.empty() ? json(nullptr) : json(game)},
                             {"since", r.at_ms}});
    }
    return {{"following", following}, {"blocked", blocked}};
}

constexpr int kMaxRelations = 500;  // follows, and blocks, per account

void relations_api(SocialService& svc, bool post, const std::string& body, SocialReader reader,
                   Store::Executor ex, std::function<void(ApiResponse)> done,
                   const std::function<void(ApiResponse)>& reply) {
    auto here = reader.here;
    const std::string me = reader.player_id;
    if (!post)
        return run(
            svc, [me, here](SocialDb& db) { return ok(relations_json(db, me, here)); }, ex, done);
    auto j = json::parse(body, nullptr, false);
    std::string verb, name;
    bool notify = true, valid = j.is_object() && j.size() >= 1;
    for (auto it = j.begin(); valid && it != j.end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();
        if (k == "notify" && v.is_boolean()) {
            notify = v.get<bool>();
        } else if ((k == "follow" || k == "unfollow" || k == "block" || k == "unblock") &&
                   v.is_string() && verb.empty()) {
            verb = k;
            name = v.get<std::string>();
        } else {
            valid = false;
        }
    }
    if (!valid || verb.empty() || (j.contains("notify") && verb != "follow"))
        return reply(api_error(400, "bad_request",
                               "send one of {\"follow\": NAME[, \"notify\": false]}, "
                               "{\"unfollow\": NAME}, {\"block\": NAME}, {\"unblock\": NAME}"));
    run(
        svc,
        [&svc, me, here, verb, name, notify](SocialDb& db) {
            auto other = db.account(name);
            if (!other) return api_error(404, "unknown_player", "no account is called " + name);
            if (other->first == me)
                return api_error(400, "bad_request", "that is your own account");
            const auto now = epoch_ms();
            if (verb == "follow" || verb == "block") {
                const std::vector<std::string> kinds =
                    verb == "block" ? std::vector<std::string>{"block"}
                                    : std::vector<std::string>{"follow", "follow_quiet"};
                // The player's relations of this group: whether this one is among them (a
                // repeat is no new relation), and how many there are.
                int held = 0;
                bool already = false;
                for (const auto& r : db.relations_of(me)) {
                    if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end()) continue;
                    ++held;
                    already = already || r.other_id == other->first;
                }
                if (!already && held >= kMaxRelations)
                    return api_error(400, "too_many",
                                     "you already " + verb + " " + std::to_string(kMaxRelations) +
                                         " players; " + (verb == "block" ? "unblock" : "unfollow") +
                                         " one first");
                if (verb == "follow" && db.blocked_between(me, other->first))
                    return api_error(403, "blocked", "you cannot follow " + other->second);
            }
            if (verb == "follow")
                db.relate(me, other->first, notify ? "follow" : "follow_quiet", now);
            if (verb == "unfollow") db.unrelate(me, other->first, {"follow", "follow_quiet"});
            if (verb == "block") {
                db.relate(me, other->first, "block", now);
                db.unrelate(me, other->first, {"follow", "follow_quiet"});
                db.unrelate(other->first, me, {"follow", "follow_quiet"});
            }
            if (verb == "unblock") db.unrelate(me, other->first, {"block"});
            if (verb == "block" || verb == "unblock") svc.relations_changed(me, other->first);
            return ok(relations_json(db, me, here));
        },
        ex, done);
}

}  // namespace

bool is_social_target(std::string_view target) {
    auto path = target.substr(0, target.find('?'));
    return path == "/api/notifications" || path.rfind("/api/notifications/", 0) == 0 ||
           path == "/api/relations" || path.rfind("/api/relations/", 0) == 0;
}

void social_api(SocialService* svc, bool post, std::string_view target, std::string body,
                SocialReader reader, Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto reply = [&](ApiResponse r) { boost::asio::post(ex, [done, r] { done(r); }); };
    const auto qpos = target.find('?');
    const std::string path(target.substr(0, qpos));
    auto query = strict_query(qpos == std::string_view::npos ? "" : target.substr(qpos + 1));
    if (!query) return reply(api_error(400, "bad_request", "a malformed query string"));
    if (path == "/api/relations") {
        if (!query->empty()) return reply(api_error(400, "bad_request", "no parameters here"));
        if (!svc)
            return reply(api_error(503, "store_unavailable",
                                   "this server keeps no accounts (--store memory)"));
        if (reader.player_id.empty())
            return reply(
                api_error(401, "unauthorized", "send your token: Authorization: Bearer TOKEN"));
        if (!reader.account)
            return reply(api_error(403, "account_required",
                                   "following and blocking are for accounts: log in first"));
        return relations_api(*svc, post, body, std::move(reader), ex, done, reply);
    }
    const std::string player_id = reader.player_id;
    if (path != "/api/notifications" && path != "/api/notifications/read")
        return reply(api_error(404, "not_found", "no such address: " + path));
    if ((path == "/api/notifications/read") != post)
        return reply(api_error(405, "method_not_allowed",
                               post ? "POST /api/notifications/read marks notifications read"
                                    : "GET /api/notifications lists them"));
    if (!svc)
        return reply(api_error(503, "store_unavailable",
                               "this server keeps no notifications (--store memory)"));
    if (player_id.empty())
        return reply(
            api_error(401, "unauthorized", "send your token: Authorization: Bearer TOKEN"));

    if (post) {
        if (!query->empty()) return reply(api_error(400, "bad_request", "no parameters here"));
        auto j = json::parse(body, nullptr, false);
        std::vector<std::int64_t> ids;
        bool valid = j.is_object();
        if (valid && j.contains("ids")) {
            valid = j["ids"].is_array() && !j["ids"].empty() && j["ids"].size() <= 100;
            for (const auto& id : valid ? j["ids"] : json::array()) {
                if (!id.is_number_integer() || id.get<std::int64_t>() < 1) valid = false;
                if (valid) ids.push_back(id.get<std::int64_t>());
            }
        } else if (valid) {
            valid = j.contains("all") && j["all"] == true;
        }
        if (!valid)
            return reply(api_error(400, "bad_request",
                                   "send {\"ids\": [ID, ...]} (1 to 100) or {\"all\": true}"));
        return run(
            *svc,
            [player_id, ids](SocialDb& db) {
                db.mark_read(player_id, ids, epoch_ms());
                return ok({{"unread", db.unread(player_id)}});
            },
            ex, done);
    }
    std::int64_t limit = 30, before = 0;
    for (const auto& [k, v] : *query) {
        std::optional<std::int64_t> n = k == "limit"    ? number(v, 100)
                                        : k == "before" ? number(v, INT64_MAX)
                                                        : std::nullopt;
        if (!n)
            return reply(api_error(400, "bad_request",
                                   "parameters: limit (1 to 100), before (a notification id)"));
        (k == "limit" ? limit : before) = *n;
    }
    run(
        *svc,
        [player_id, limit, before](SocialDb& db) {
            json items = json::array();
            for (const auto& n : db.list(player_id, int(limit), before))
                items.push_back(notice_json(n));
            return ok({{"unread", db.unread(player_id)}, {"notifications", items}});
        },
        ex, done);
}

}  // namespace tf::server
