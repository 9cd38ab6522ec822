#include "server/web/social_api.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>

#include "server/base/time.h"
#include "server/social/social_service.h"
#include "server/web/mail_api.h"
#include "server/web/token_api.h"
#include "server/web/vacation_api.h"

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

// The player's relations as GET /api/relations answers them.
json relations_json(SocialDb& db, const std::string& player_id,
                    const std::function<bool(const std::string&)>& here) {
    json following = json::array(), blocked = json::array(), muted = json::array();
    const auto online = db.followed_online(player_id);
    for (const auto& r : db.relations_of(player_id)) {
        if (r.kind == "block" || r.kind == "mute") {
            (r.kind == "block" ? blocked : muted)
                .push_back({{"name", r.other_name}, {"since", r.at_ms}});
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
    return {{"following", following},
            {"blocked", blocked},
            {"muted", muted},
            {"announce", db.announces(player_id)}};
}

constexpr int kMaxRelations = 500;  // follows, blocks, and mutes, per account

void relations_api(SocialService& svc, bool post, const std::string& body, SocialReader reader,
                   Store::Executor ex, std::function<void(ApiResponse)> done,
                   const std::function<void(ApiResponse)>& reply) {
    auto here = reader.here;
    const std::string me = reader.player_id;
    if (!post)
        return run_social(
            svc, [me, here](SocialDb& db) { return ok(relations_json(db, me, here)); }, ex, done);
    auto j = json::parse(body, nullptr, false);
    std::string verb, name;
    bool notify = true, valid = j.is_object() && j.size() >= 1;
    for (auto it = j.begin(); valid && it != j.end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();
        if (k == "notify" && v.is_boolean()) {
            notify = v.get<bool>();
        } else if (k == "announce" && v.is_boolean() && verb.empty()) {
            verb = k;
            notify = v.get<bool>();
        } else if ((k == "follow" || k == "unfollow" || k == "block" || k == "unblock" ||
                    k == "mute" || k == "unmute") &&
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
                               "{\"unfollow\": NAME}, {\"block\": NAME}, {\"unblock\": NAME}, "
                               "{\"mute\": NAME}, {\"unmute\": NAME}, {\"announce\": BOOL}"));
    run_social(
        svc,
        [&svc, me, here, verb, name, notify](SocialDb& db) {
            if (verb == "announce") {
                db.set_announces(me, notify);
                return ok(relations_json(db, me, here));
            }
            auto other = db.account(name);
            if (!other) return api_error(404, "unknown_player", "no account is called " + name);
            if (other->first == me)
                return api_error(400, "bad_request", "that is your own account");
            const auto now = epoch_ms();
            if (verb == "follow" || verb == "block" || verb == "mute") {
                const std::vector<std::string> kinds =
                    verb == "follow" ? std::vector<std::string>{"follow", "follow_quiet"}
                                     : std::vector<std::string>{verb};
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
                                         " players; un" + verb + " one first");
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
            if (verb == "mute") db.relate(me, other->first, "mute", now);
            if (verb == "unmute") db.unrelate(me, other->first, {"mute"});
            if (verb == "block" || verb == "unblock") svc.relations_changed(me, other->first);
            if (verb == "mute" || verb == "unmute") svc.relations_changed(me);
            return ok(relations_json(db, me, here));
        },
        ex, done);
}

// ---- reports and moderation (PROTOCOL.md "Reports and moderation") ----

constexpr int kMaxReportsPerDay = 20;
constexpr std::size_t kMaxReportChars = 2000;
constexpr std::int64_t kMaxMuteMinutes = 43'200;  // 30 days
constexpr std::int64_t kDayMs = 86'400'000;

bool one_of(const std::string& s, std::initializer_list<const char*> list) {
    return std::any_of(list.begin(), list.end(), [&](const char* x) { return s == x; });
}

// The key's string value (`max` characters at most), "" when absent; false when malformed.
bool text_field(const json& j, const char* key, std::size_t max, std::string& out) {
    if (!j.contains(key)) return true;
    if (!j[key].is_string()) return false;
    out = j[key].get<std::string>();
    // Characters (code points): the bytes that do not continue one.
    return std::size_t(std::count_if(out.begin(), out.end(), [](char c) {
               return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
           })) <= max;
}

void report_api(SocialService& svc, const std::string& me, const std::string& body,
                Store::Executor ex, std::function<void(ApiResponse)> done,
                const std::function<void(ApiResponse)>& reply) {
    auto j = json::parse(body, nullptr, false);
    StoredReport r;
    bool valid = j.is_object() && j.contains("player") && j["player"].is_string() &&
                 j.contains("reason") && j["reason"].is_string();
    for (auto it = valid ? j.begin() : json::iterator(); valid && it != j.end(); ++it)
        valid = one_of(it.key(), {"player", "reason", "text", "game"});
    valid = valid && text_field(j, "text", kMaxReportChars, r.body) &&
            text_field(j, "game", 16, r.game);
    if (valid) r.reason = j["reason"].get<std::string>();
    if (!valid || !one_of(r.reason, {"cheating", "abuse", "stalling", "sandbagging", "other"}))
        return reply(api_error(400, "bad_request",
                               "send {\"player\": NAME, \"reason\": cheating|abuse|stalling|"
                               "sandbagging|other, \"text\": up to 2000 characters, \"game\": "
                               "CODE (optional)}"));
    r.reporter_id = me;
    const std::string name = j["player"].get<std::string>();
    run_social(
        svc,
        [me, name, r](SocialDb& db) mutable {
            auto other = db.account(name);
            if (!other) return api_error(404, "unknown_player", "no account is called " + name);
            if (other->first == me)
                return api_error(400, "bad_request", "that is your own account");
            if (!r.game.empty() && !db.moderation().game_exists(r.game))
                return api_error(404, "no_such_game", "no game has the code " + r.game);
            r.player_id = other->first;
            r.at_ms = epoch_ms();
            if (db.moderation().reports_since(me, r.at_ms - kDayMs) >= kMaxReportsPerDay)
                return api_error(429, "too_many",
                                 "you made " + std::to_string(kMaxReportsPerDay) +
                                     " reports in the last day; try again tomorrow");
            const auto id = db.moderation().add_report(r);
            spdlog::info("report #{}: {} reported {} ({})", id, me, other->second, r.reason);
            return ok({{"id", id}});
        },
        ex, done);
}

json standing_json(const Standing& s) {
    return {{"chat_muted_until",
             s.chat_muted_until > epoch_ms() ? json(s.chat_muted_until) : json(nullptr)},
            {"shadow", s.shadow},
            {"closed", s.closed},
            {"warnings", s.warnings}};
}

json opt_text(const std::string& s) {
    return s.empty() ? json(nullptr) : json(s);
}

json opt_num(std::int64_t n) {
    return n ? json(n) : json(nullptr);
}

// A report as moderators read it: the reported account's standing, its reports, the game's chat.
json report_json(SocialDb& db, const StoredReport& r) {
    json chat = json::array();
    if (!r.game.empty())
        for (const auto& [version, text] : db.moderation().game_chat(r.game)) {
            auto e = json::parse(text, nullptr, false);
            const json& p = e.is_object() && e.contains("payload") ? e["payload"] : e;
            if (!p.is_object()) continue;
            chat.push_back(
                {{"version", version},
                 {"from",
                  p.contains("from") && p["from"].is_object() ? p["from"].value("name", "") : ""},
                 {"text", p.value("text", "")},
                 {"hidden", p.value("hidden", false)}});
        }
    return {{"id", r.id},
            {"at", r.at_ms},
            {"reporter", r.reporter},
            {"player", r.player},
            {"reason", r.reason},
            {"text", r.body},
            {"game", opt_text(r.game)},
            {"status", r.handled_ms ? "handled" : "open"},
            {"handled_by", opt_text(r.handled_by)},
            {"handled_at", opt_num(r.handled_ms)},
            {"outcome", opt_text(r.outcome)},
            {"standing", standing_json(db.moderation().standing(r.player_id))},
            {"reports", db.moderation().reports_about(r.player_id)},
            {"chat", chat}};
}

json audit_json(const AuditEntry& e) {
    return {{"id", e.id},
            {"at", e.at_ms},
            {"moderator", e.moderator},
            {"action", e.action},
            {"player", e.player},
            {"report", opt_num(e.report_id)},
            {"minutes", opt_num(e.minutes)},
            {"note", e.note}};
}

// GET /api/playing: the games `me` is playing, those waiting for its move first (the soonest
// due first; those with no deadline, the player on vacation, after them), then the others,
// newest first.
json playing_json(SocialDb& db, const std::string& me) {
    constexpr int kLimit = 200;
    auto games = db.playing(me, kLimit);
    auto mine = [&](const PlayingGame& g) { return g.seat_id[0] == me ? 0 : 1; };
    auto yours = [&](const PlayingGame& g) {
        return !g.to_move.empty() && g.to_move == (mine(g) == 0 ? "silver" : "bronze");
    };
    std::stable_sort(games.begin(), games.end(), [&](const auto& a, const auto& b) {
        if (yours(a) != yours(b)) return yours(a);
        auto due = [](const PlayingGame& g) {
            return g.move_by > 0 ? g.move_by : std::numeric_limits<std::int64_t>::max();
        };
        return yours(a) && due(a) < due(b);
    });
    json list = json::array();
    int your_move = 0;
    for (const auto& g : games) {
        const int s = mine(g);
        const auto& other_id = g.seat_id[1 - s];
        your_move += yours(g);
        json opponent = nullptr;
        if (!other_id.empty()) {
            opponent = {{"id", other_id}, {"name", g.seat_name[1 - s]}};
            if (g.seat_bot[1 - s]) opponent["bot"] = true;
        }
        list.push_back({{"code", g.code},
                        {"variant", json::parse(g.variant, nullptr, false)},
                        {"time_control", json::parse(g.time_control, nullptr, false)},
                        {"rated", g.rated},
                        {"side", s == 0 ? "silver" : "bronze"},
                        {"opponent", opponent},
                        {"to_move", g.to_move.empty() ? json(nullptr) : json(g.to_move)},
                        {"your_move", yours(g)},
                        {"move_by", g.move_by}});
    }
    return {{"your_move", your_move}, {"games", list}};
}

bool is_moderator(SocialDb& db, const std::string& player_id) {
    const auto roles = db.moderation().roles(player_id);
    return std::find(roles.begin(), roles.end(), "moderator") != roles.end();
}

ApiResponse not_moderator() {
    return api_error(403, "forbidden", "this is for moderators");
}

void mod_api(SocialService& svc, const std::string& path, bool post,
             const std::map<std::string, std::string>& query, const std::string& body,
             const std::string& me, Store::Executor ex, std::function<void(ApiResponse)> done,
             const std::function<void(ApiResponse)>& reply) {
    const bool action = path == "/api/mod/actions";
    if (!action && path != "/api/mod/reports" && path != "/api/mod/audit")
        return reply(api_error(404, "not_found", "no such address: " + path));
    if (action != post)
        return reply(api_error(405, "method_not_allowed",
                               action ? "POST an action" : "GET " + path + " lists"));
    if (action) {
        if (!query.empty()) return reply(api_error(400, "bad_request", "no parameters here"));
        auto j = json::parse(body, nullptr, false);
        ModAction a;
        bool valid = j.is_object() && j.contains("player") && j["player"].is_string() &&
                     j.contains("action") && j["action"].is_string();
        for (auto it = valid ? j.begin() : json::iterator(); valid && it != j.end(); ++it)
            valid = one_of(it.key(), {"player", "action", "minutes", "report", "note"});
        valid = valid && text_field(j, "note", kMaxReportChars, a.note);
        if (valid) a.action = j["action"].get<std::string>();
        valid = valid && one_of(a.action, {"warn", "mute", "unmute", "shadow", "unshadow", "close",
                                           "reopen", "dismiss"});
        if (valid && j.contains("minutes")) {
            valid = a.action == "mute" && j["minutes"].is_number_integer() &&
                    j["minutes"].get<std::int64_t>() >= 1 &&
                    j["minutes"].get<std::int64_t>() <= kMaxMuteMinutes;
            if (valid) a.minutes = j["minutes"].get<std::int64_t>();
        }
        valid = valid && (a.action != "mute" || a.minutes > 0);
        if (valid && j.contains("report")) {
            valid = j["report"].is_number_integer() && j["report"].get<std::int64_t>() >= 1;
            if (valid) a.report_id = j["report"].get<std::int64_t>();
        }
        if (!valid)
            return reply(api_error(
                400, "bad_request",
                "send {\"player\": NAME, \"action\": warn|mute|unmute|shadow|unshadow|close|"
                "reopen|dismiss, \"minutes\": 1 to 43200 (mute only, required), \"report\": "
                "ID, \"note\": up to 2000 characters}"));
        const std::string name = j["player"].get<std::string>();
        return run_social(
            svc,
            [&svc, me, name, a](SocialDb& db) mutable {
                if (!is_moderator(db, me)) return not_moderator();
                auto other = db.account(name);
                if (!other) return api_error(404, "unknown_player", "no account is called " + name);
                if (other->first == me)
                    return api_error(400, "bad_request", "not on your own account");
                if (is_moderator(db, other->first))
                    return api_error(400, "bad_request",
                                     other->second + " is a moderator: the operator decides");
                if (a.report_id) {
                    auto r = db.moderation().report(a.report_id);
                    if (!r)
                        return api_error(404, "not_found",
                                         "no report #" + std::to_string(a.report_id));
                    if (r->player_id != other->first)
                        return api_error(
                            400, "bad_request",
                            "report #" + std::to_string(a.report_id) + " is about " + r->player);
                }
                a.moderator_id = me;
                a.moderator = db.moderation().username_of(me);
                a.player_id = other->first;
                a.player = other->second;
                a.at_ms = epoch_ms();
                const auto result = db.moderation().act(a);
                spdlog::warn("moderation: {} {} {}{}", a.moderator, a.action, a.player,
                             a.report_id ? " (report #" + std::to_string(a.report_id) + ")" : "");
                svc.acted(db, a, result);
                return ok(audit_json(result.entry));
            },
            ex, done);
    }
    std::int64_t limit = 50, before = 0;
    bool handled = false;
    for (const auto& [k, v] : query) {
        if (k == "status" && path == "/api/mod/reports" && (v == "open" || v == "handled")) {
            handled = v == "handled";
            continue;
        }
        std::optional<std::int64_t> n = k == "limit"    ? number(v, 100)
                                        : k == "before" ? number(v, INT64_MAX)
                                                        : std::nullopt;
        if (!n)
            return reply(api_error(
                400, "bad_request",
                "parameters: limit (1 to 100), before (an id)" +
                    std::string(path == "/api/mod/reports" ? ", status (open or handled)" : "")));
        (k == "limit" ? limit : before) = *n;
    }
    run_social(
        svc,
        [me, path, limit, before, handled](SocialDb& db) {
            if (!is_moderator(db, me)) return not_moderator();
            json items = json::array();
            if (path == "/api/mod/audit") {
                for (const auto& e : db.moderation().audit(int(limit), before))
                    items.push_back(audit_json(e));
                return ok({{"entries", items}});
            }
            for (const auto& r : db.moderation().reports(handled, int(limit), before))
                items.push_back(report_json(db, r));
            return ok({{"reports", items}});
        },
        ex, done);
}

}  // namespace

void run_social(SocialService& svc, std::function<ApiResponse(SocialDb&)> job, Store::Executor ex,
                std::function<void(ApiResponse)> done) {
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

bool is_social_target(std::string_view target) {
    auto path = target.substr(0, target.find('?'));
    return path == "/api/notifications" || path.rfind("/api/notifications/", 0) == 0 ||
           path == "/api/relations" || path.rfind("/api/relations/", 0) == 0 ||
           path == "/api/reports" || path.rfind("/api/mod/", 0) == 0 || path == "/api/playing" ||
           path == "/api/vacation" || path == "/api/account/bot" || is_token_target(path) ||
           is_mail_target(std::string(path));
}

void social_api(SocialService* svc, bool post, std::string_view target, std::string body,
                SocialReader reader, Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto reply = [&](ApiResponse r) { boost::asio::post(ex, [done, r] { done(r); }); };
    const auto qpos = target.find('?');
    const std::string path(target.substr(0, qpos));
    auto query = strict_query(qpos == std::string_view::npos ? "" : target.substr(qpos + 1));
    if (!query) return reply(api_error(400, "bad_request", "a malformed query string"));
    // The accounts' own addresses: a refusal, or nothing when the reader may go on.
    auto refusal = [&](const char* what) -> std::optional<ApiResponse> {
        if (!svc)
            return api_error(503, "store_unavailable",
                             "this server keeps no accounts (--store memory)");
        if (reader.player_id.empty())
            return api_error(401, "unauthorized", "send your token: Authorization: Bearer TOKEN");
        if (!reader.account)
            return api_error(403, "account_required",
                             std::string(what) + " are for accounts: log in first");
        return std::nullopt;
    };
    if (is_mail_target(path))
        return mail_api(svc, post, path, *query, body, reader, ex, std::move(done));
    if (path == "/api/vacation") {
        if (auto no = refusal("vacations")) return reply(*no);
        if (!query->empty()) return reply(api_error(400, "bad_request", "no parameters here"));
        return vacation_api(*svc, post, body, reader.player_id, ex, std::move(done));
    }
    if (path == "/api/reports" || path.rfind("/api/mod/", 0) == 0) {
        if (path == "/api/reports" && (!post || !query->empty()))
            return reply(api_error(post ? 400 : 405, post ? "bad_request" : "method_not_allowed",
                                   "POST /api/reports makes a report"));
        if (auto no = refusal("reports and moderation")) return reply(*no);
        if (path == "/api/reports")
            return report_api(*svc, reader.player_id, body, ex, done, reply);
        return mod_api(*svc, path, post, *query, body, reader.player_id, ex, done, reply);
    }
    if (is_token_target(path)) {
        if (!query->empty()) return reply(api_error(400, "bad_request", "no parameters here"));
        if (auto no = refusal("access tokens")) return reply(*no);
        return token_api(*svc, post, path, body, reader.player_id, ex, std::move(done));
    }
    if (path == "/api/account/bot") {
        if (!post)
            return reply(api_error(405, "method_not_allowed",
                                   "POST /api/account/bot makes your account a bot"));
        if (!query->empty()) return reply(api_error(400, "bad_request", "no parameters here"));
        if (auto no = refusal("bot accounts")) return reply(*no);
        return run_social(
            *svc,
            [me = reader.player_id, s = svc](SocialDb& db) {
                const auto r = db.moderation().make_bot(me, epoch_ms());
                if (r == ModerationDb::BotMark::HasGames)
                    return api_error(409, "has_games",
                                     "an account that has played is not made a bot: register "
                                     "a new account for your bot");
                // Its sessions read their screen again: they seat it as a bot from now on.
                if (r == ModerationDb::BotMark::Marked) s->relations_changed(me);
                return ok({{"bot", true}});
            },
            ex, done);
    }
    if (path == "/api/relations") {
        if (!query->empty()) return reply(api_error(400, "bad_request", "no parameters here"));
        if (auto no = refusal("following and blocking")) return reply(*no);
        return relations_api(*svc, post, body, std::move(reader), ex, done, reply);
    }
    if (path == "/api/playing") {
        if (post)
            return reply(api_error(405, "method_not_allowed", "GET /api/playing lists your games"));
        if (!query->empty()) return reply(api_error(400, "bad_request", "no parameters here"));
        if (auto no = refusal("lists of games")) return reply(*no);
        return run_social(
            *svc, [id = reader.player_id](SocialDb& db) { return ok(playing_json(db, id)); }, ex,
            done);
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
        return run_social(
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
    run_social(
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
