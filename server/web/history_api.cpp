#include "server/web/history_api.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include <charconv>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/notation.h"
#include "proto/messages.h"
#include "server/accounts/ratings.h"
#include "server/store/record_codec.h"
#include "server/store/store.h"

namespace tf::server {

using nlohmann::json;

ApiResponse api_error(unsigned status, const char* code, std::string message) {
    return {status,
            "application/json",
            json{{"error", code}, {"message", std::move(message)}}.dump() + "\n",
            {}};
}

std::string iso8601(std::int64_t ms) {
    std::time_t t = std::time_t(ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, int(ms % 1000));
    return buf;
}

namespace {

ApiResponse error(unsigned status, const char* code, std::string message) {
    return api_error(status, code, std::move(message));
}

// The row's JSON-valued columns, read through the storage codec.
json variant_json(const StoredGame& g) {
    std::string error;
    auto v = variant_of(g.variant, error);
    return v ? to_json(*v) : json(nullptr);
}

json time_control_json(const StoredGame& g) {
    std::string error;
    auto tc = time_control_of(g.time_control, error);
    return tc && *tc ? proto::to_json(**tc) : json(nullptr);
}

json result_json(const StoredGame& g) {
    auto r = result_of_text(g.result);
    return r ? json::parse(proto::to_text(*r)) : json(nullptr);
}

json summary(const StoredGame& g, const SuspendedFn& suspended) {
    json players = json::object();
    const char* sides[] = {"silver", "bronze"};
    for (int i = 0; i < 2; ++i) {
        if (g.seat_id[i].empty()) {
            players[sides[i]] = nullptr;
            continue;
        }
        json seat{{"id", g.seat_id[i]}, {"name", g.seat_name[i]}};
        if (g.seat_bot[i]) seat["bot"] = true;
        players[sides[i]] = std::move(seat);
    }
    bool paused = (g.status == "open" || g.status == "playing") && suspended && suspended(g.code);
    json out = {{"code", g.code},
                {"status", paused ? std::string("suspended") : g.status},
                {"variant", variant_json(g)},
                {"time_control", time_control_json(g)},
                {"players", std::move(players)},
                {"bot", g.bot_level ? json(*g.bot_level) : json(nullptr)},
                {"turns", g.turns},
                {"result", result_json(g)},
                {"created_at", iso8601(g.created_ms)},
                {"finished_at", g.finished_ms ? json(iso8601(g.finished_ms)) : json(nullptr)}};
    // Only rated games say so: the answers for games of before accounts stay byte for byte.
    if (g.rated) out["rated"] = true;
    return out;
}

bool finished(const StoredGame& g) {
    return g.status == "over" || g.status == "aborted";
}

std::string result_line(const StoredGame& g) {
    json r = result_json(g);
    if (!r.is_object()) return g.status;
    std::string out = r["winner"].is_string() ? r["winner"].get<std::string>() + " wins" : "draw";
    if (r["reason"].is_string()) out += " (" + r["reason"].get<std::string>() + ")";
    if (r["score"].is_object())
        out += ", " + std::to_string(r["score"].value("silver", 0)) + "-" +
               std::to_string(r["score"].value("bronze", 0));
    return out;
}

std::string notation_of(const StoredGame& g, const json& record) {
    auto v = variant_from_json(record["variant"]);
    int size = v ? v->size : 9;
    std::string out;
    auto tag = [&](const char* k, const std::string& val) {
        out += std::string("[") + k + " " + json(val).dump() + "]\n";
    };
    tag("Game", g.code);
    tag("Variant", record["variant"].dump());
    tag("Silver", g.seat_name[0]);
    tag("Bronze", g.seat_name[1]);
    tag("Date", iso8601(g.created_ms));
    tag("Result", result_line(g));
    tag("SetupSilver", record["setup"]["silver"].dump());
    tag("SetupBronze", record["setup"]["bronze"].dump());
    out += "\n";
    int n = 0;
    for (const auto& tj : record["turns"]) {
        auto t = turn_from_json(tj);
        ++n;
        out += std::to_string(n) + ". " + (n % 2 ? "silver " : "bronze ") +
               (t ? turn_to_notation(*t, size) : tj.dump()) + "\n";
    }
    return out;
}

// "a=1&b=2" -> map; values are plain tokens (no percent-encoding is needed by this API).
std::map<std::string, std::string> query_of(std::string_view q) {
    std::map<std::string, std::string> out;
    while (!q.empty()) {
        auto amp = q.find('&');
        auto part = q.substr(0, amp);
        auto eq = part.find('=');
        if (eq != std::string_view::npos)
            out[std::string(part.substr(0, eq))] = std::string(part.substr(eq + 1));
        else if (!part.empty())
            out[std::string(part)] = "";
        if (amp == std::string_view::npos) break;
        q.remove_prefix(amp + 1);
    }
    return out;
}

bool token_ok(const std::string& s, std::size_t max) {
    if (s.empty() || s.size() > max) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
    return true;
}

std::optional<std::int64_t> integer(const std::string& s) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

using Done = std::function<void(ApiResponse)>;

// A failed read: 503, logged (the store's own failure episodes are logged by the store).
ApiResponse unavailable(std::string_view target, const std::string& why) {
    spdlog::warn("history API {}: {}", std::string(target), why);
    return error(503, "store_unavailable", "the game store could not be read");
}

void list(Store& store, std::string_view target, std::string_view qs, SuspendedFn suspended,
          const std::string& viewer, Store::Executor ex, Done done) {
    auto q = query_of(qs);
    GameQuery gq;
    gq.viewer = viewer;
    auto refuse = [&](const std::string& why) {
        boost::asio::post(ex, [done, r = error(400, "bad_request", why)] { done(r); });
    };
    for (auto& [k, v] : q) {
        if (k == "status") {
            static const char* ok[] = {"live", "finished",  "open",    "playing",
                                       "over", "cancelled", "aborted", "quarantined"};
            if (std::find(std::begin(ok), std::end(ok), v) == std::end(ok))
                return refuse(
                    "status must be live, finished, open, playing, over, cancelled, aborted or "
                    "quarantined");
            gq.status = v;
        } else if (k == "player") {
            if (!token_ok(v, 64)) return refuse("bad player id");
            gq.player_id = v;
        } else if (k == "limit") {
            auto n = integer(v);
            if (!n || *n < 1 || *n > 100) return refuse("limit must be an integer from 1 to 100");
            gq.limit = int(*n);
        } else if (k == "before") {
            auto n = integer(v);
            if (!n || *n < 1) return refuse("before must be a cursor from next");
            gq.before = *n;
        } else {
            return refuse("unknown parameter " + k);
        }
    }
    store.read_page(gq, ex, [done, suspended, t = std::string(target)](Read<GamePage> page) {
        if (!page.ok()) return done(unavailable(t, page.error));
        json games = json::array();
        for (auto& [cursor, g] : page.value->games) games.push_back(summary(g, suspended));
        json out = {
            {"games", std::move(games)},
            {"next", page.value->next ? json(std::to_string(*page.value->next)) : json(nullptr)}};
        done({200, "application/json", out.dump() + "\n", {}});
    });
}

ApiResponse one(const GameRows& rows, std::string_view what, const SuspendedFn& suspended) {
    const StoredGame& g = rows.row;
    const std::string& code = g.code;
    json record = game_record(g, rows.journal);
    if (what.empty()) {
        json out = summary(g, suspended);
        out["record"] = std::move(record);
        return {200, "application/json", out.dump() + "\n", {}};
    }
    if (!finished(g))
        return error(409, "not_finished",
                     "only finished games are exported; game " + code + " is " + g.status);
    if (what == "record")
        return {200, "application/json", record.dump(2) + "\n", "trunkfield-" + code + ".json"};
    if (what == "notation")
        return {200, "text/plain; charset=utf-8", notation_of(g, record),
                "trunkfield-" + code + ".txt"};
    return error(404, "not_found", "unknown export " + std::string(what));
}

json rating_json(const StoredRating& r, std::int64_t now_ms) {
    auto v = rating_view(r, now_ms);
    return {{"rating", v.rating},
            {"deviation", v.deviation},
            {"games", v.games},
            {"provisional", v.provisional},
            {"last_played", r.last_ms ? json(iso8601(r.last_ms)) : json(nullptr)}};
}

// GET /api/leaderboard?category=blitz&limit=50&bots=false: the best established ratings of a
// category among the players active in it within 30 days; bots and people on separate boards.
void leaderboard(Store& store, std::string_view target, std::string_view qs, Store::Executor ex,
                 Done done) {
    std::string category = "blitz";
    int limit = 50;
    bool bots = false;
    for (auto& [k, v] : query_of(qs)) {
        if (k == "category" && (proto::is_rating_category(v) || v == "puzzle")) {
            category = v;
        } else if (k == "bots" && (v == "true" || v == "false")) {
            bots = v == "true";
        } else if (k == "limit" && integer(v) && *integer(v) >= 1 && *integer(v) <= 100) {
            limit = int(*integer(v));
        } else {
            std::string cats;
            for (const auto& c : proto::rating_categories()) cats += (cats.empty() ? "" : ", ") + c;
            auto r = error(
                400, "bad_request",
                "parameters: category (" + cats + "), limit (1 to 100), bots (true or false)");
            return boost::asio::post(ex, [done, r] { done(r); });
        }
    }
    const auto now = epoch_ms();
    store.read_leaderboard(
        category, limit, now - kLeaderboardActiveMs, bots, ex,
        [done, category, bots, now, t = std::string(target)](Read<std::vector<LeaderRow>> r) {
            if (!r.ok()) return done(unavailable(t, r.error));
            json players = json::array();
            int rank = 0;
            for (const auto& row : *r.value) {
                // Established when last played, but the deviation has grown since: not yet
                // listed again until the player's next game.
                if (rating_view(row.rating, now).provisional) continue;
                json p = rating_json(row.rating, now);
                p["rank"] = ++rank;
                p["username"] = row.username;
                players.push_back(std::move(p));
            }
            json out = {{"category", category}, {"bots", bots}, {"players", std::move(players)}};
            done({200, "application/json", out.dump() + "\n", {}});
        });
}

// GET /api/players/NAME: an account's page: ratings, their history, results by colour and
// the last games.
void player(Store& store, std::string_view target, const std::string& name, SuspendedFn suspended,
            const std::string& viewer, Store::Executor ex, Done done) {
    store.read_profile(
        name, 20, viewer, ex,
        [done, name, suspended = std::move(suspended),
         t = std::string(target)](Read<std::optional<PlayerProfile>> r) {
            if (!r.ok()) return done(unavailable(t, r.error));
            if (!*r.value) return done(error(404, "not_found", "no player named " + name));
            const PlayerProfile& p = **r.value;
            const auto now = epoch_ms();
            json ratings = json::object(), history = json::object();
            for (const auto& rt : p.ratings) ratings[rt.category] = rating_json(rt, now);
            for (const auto& [category, points] : p.history) {
                json line = json::array();
                for (const auto& pt : points)
                    line.push_back({{"at", iso8601(pt.at_ms)},
                                    {"rating", int(std::lround(pt.rating))},
                                    {"game", pt.code.empty() ? json(nullptr) : json(pt.code)}});
                history[category] = std::move(line);
            }
            json totals = json::object();
            const char* sides[] = {"silver", "bronze"};
            for (int i = 0; i < 2; ++i)
                totals[sides[i]] = {
                    {"wins", p.as[i].wins}, {"draws", p.as[i].draws}, {"losses", p.as[i].losses}};
            json recent = json::array();
            for (const auto& g : p.recent) recent.push_back(summary(g, suspended));
            json out = {
                {"username", p.account.username}, {"player_id", p.account.player_id},
                {"bot", p.account.bot},           {"created_at", iso8601(p.account.created_ms)},
                {"ratings", std::move(ratings)},  {"history", std::move(history)},
                {"totals", std::move(totals)},    {"recent", std::move(recent)}};
            done({200, "application/json", out.dump() + "\n", {}});
        });
}

}  // namespace

bool is_api_target(std::string_view target) {
    return target.substr(0, 5) == "/api/";
}

void history_api(Store& store, std::string_view target, SuspendedFn suspended, std::string viewer,
                 Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto now = [&](ApiResponse r) { boost::asio::post(ex, [done, r = std::move(r)] { done(r); }); };
    auto qpos = target.find('?');
    std::string_view path = target.substr(0, qpos);
    std::string_view qs = qpos == std::string_view::npos ? "" : target.substr(qpos + 1);
    if (path == "/api/leaderboard") return leaderboard(store, target, qs, ex, std::move(done));
    if (path.substr(0, 13) == "/api/players/") {
        std::string name(path.substr(13));
        if (!proto::is_username(name))
            return now(error(404, "not_found", "no player named " + name));
        return player(store, target, name, std::move(suspended), viewer, ex, std::move(done));
    }
    constexpr std::string_view games = "/api/games";
    if (path == games || path == "/api/games/")
        return list(store, target, qs, std::move(suspended), viewer, ex, std::move(done));
    if (path.substr(0, games.size() + 1) != "/api/games/")
        return now(error(404, "not_found", "no such API path"));
    auto rest = path.substr(games.size() + 1);
    auto slash = rest.find('/');
    std::string what(slash == std::string_view::npos ? "" : rest.substr(slash + 1));
    auto known = proto::game_code(rest.substr(0, slash));  // any letter case
    if (!known)
        return now(
            error(404, "not_found", "no game with code " + std::string(rest.substr(0, slash))));
    std::string code = *known;
    store.read_game(code, ex,
                    [done, suspended = std::move(suspended), code, what,
                     t = std::string(target)](Read<std::optional<GameRows>> r) {
                        if (!r.ok()) return done(unavailable(t, r.error));
                        if (!*r.value)
                            return done(error(404, "not_found", "no game with code " + code));
                        try {
                            done(one(**r.value, what, suspended));
                        } catch (const std::exception& e) {
                            done(unavailable(t, e.what()));
                        }
                    });
}

// The query string's parameters (only plain values: ids, themes, numbers).
std::optional<std::map<std::string, std::string>> strict_query(std::string_view q) {
    std::map<std::string, std::string> out;
    while (!q.empty()) {
        auto amp = q.find('&');
        auto part = q.substr(0, amp);
        q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
        if (part.empty()) continue;
        auto eq = part.find('=');
        if (eq == std::string_view::npos) return std::nullopt;
        out[std::string(part.substr(0, eq))] = std::string(part.substr(eq + 1));
    }
    return out;
}

}  // namespace tf::server
