#include "server/web/tournament_api.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "proto/messages.h"
#include "server/base/secrets.h"
#include "server/base/time.h"
#include "server/session/hub.h"
#include "server/web/ndjson_stream.h"

namespace tf::server {

namespace {

using json = nlohmann::json;

constexpr std::int64_t kListedFinishedMs = 7LL * 24 * 3600 * 1000;
constexpr int kListLimit = 100;

ApiResponse ok(const json& j) {
    return {200, "application/json", j.dump(), ""};
}

std::string_view path_of(std::string_view target) {
    return target.substr(0, target.find('?'));
}

// The id and the action of /api/tournament/ID[/action]; the id is empty for /api/tournament.
struct Route {
    std::string id, action;
    bool valid = false;
};

Route route_of(std::string_view path) {
    Route r;
    if (path == "/api/tournament") {
        r.valid = true;
        return r;
    }
    constexpr std::string_view prefix = "/api/tournament/";
    if (path.substr(0, prefix.size()) != prefix) return r;
    std::string_view rest = path.substr(prefix.size());
    const auto slash = rest.find('/');
    r.id = std::string(rest.substr(0, slash));
    if (slash != std::string_view::npos) r.action = std::string(rest.substr(slash + 1));
    r.valid = proto::is_game_code(r.id) && r.action.find('/') == std::string::npos;
    return r;
}

// A job on the tournaments' thread answering `done` on `ex`: 503 when the store failed, 429
// when too many wait.
void run(Hub& hub, std::function<ApiResponse(TournamentDb&)> job, Store::Executor ex,
         std::function<void(ApiResponse)> done) {
    auto then = [done](Read<ApiResponse> r) {
        if (r.ok()) return done(std::move(*r.value));
        spdlog::warn("tournament API: {}", r.error);
        done(api_error(503, "store_unavailable", "the server cannot read this now"));
    };
    if (!hub.tournaments->run<ApiResponse>(std::move(job), ex, then))
        boost::asio::post(ex, [done] {
            done(api_error(429, "busy", "too many requests waiting; try again shortly"));
        });
}

std::string password_hash(const std::string& id, const std::string& password) {
    return sha256_hex(id + ":" + password);
}

// Any request: none without a store that keeps tournaments, none with a query string.
std::optional<ApiResponse> refused(const Hub& hub, std::string_view target) {
    if (!hub.tournaments)
        return api_error(503, "store_unavailable",
                         "this server keeps no tournaments (--store memory)");
    if (path_of(target).size() != target.size())
        return api_error(400, "bad_request", "no parameters here");
    return std::nullopt;
}

// GET /api/tournament/ID's answer, read now (a player who just entered sees itself).
ApiResponse read_tournament(TournamentDb& db, const std::string& id) {
    const auto rows = db.load(id);
    const auto spec = rows ? spec_of(rows->t) : std::nullopt;
    return rows && spec ? ok(tournament_json(*rows, *spec, true))
                        : api_error(404, "not_found", "no such tournament");
}

// The same answer shared for a second by every stream of the tournament: many watchers cost
// one read a second. Called on the tournaments' thread.
ApiResponse read_standings(TournamentDb& db, const std::string& id) {
    struct Cached {
        std::chrono::steady_clock::time_point at;
        ApiResponse answer;
    };
    static std::mutex m;
    static std::map<std::string, Cached> cache;
    constexpr auto kFresh = std::chrono::milliseconds(900);
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(m);
        std::erase_if(cache, [&](const auto& kv) { return now - kv.second.at > kFresh; });
        if (auto it = cache.find(id); it != cache.end()) return it->second.answer;
    }
    ApiResponse a = read_tournament(db, id);
    std::lock_guard lock(m);
    cache[id] = {now, a};
    return a;
}

// GET /api/tournament/ID/stream: the tournament read every second, written when it changed.
class TournamentStream : public std::enable_shared_from_this<TournamentStream> {
  public:
    TournamentStream(boost::asio::ip::tcp::socket s, ConnLimiter::Slot slot, Hub& hub,
                     std::string id, std::string head)
        : out_(std::make_shared<NdjsonStream>(std::move(s), std::move(slot), std::move(head))),
          hub_(hub),
          id_(std::move(id)),
          timer_(out_->executor()) {}
    void start(std::string_view target) {
        // The stream keeps this alive until its socket closes.
        out_->start([self = shared_from_this()] { self->timer_.cancel(); });
        if (auto no = refused(hub_, target)) return out_->refuse(*no);
        poll();
    }

  private:
    void poll() {
        if (out_->ended()) return;
        run(
            hub_, [id = id_](TournamentDb& db) { return read_standings(db, id); }, out_->executor(),
            [self = shared_from_this()](ApiResponse a) { self->got(a); });
    }
    void got(const ApiResponse& a) {
        if (out_->ended()) return;
        if (a.status == 404 && !out_->opened()) return out_->refuse(a);
        if (a.status == 200 && a.body != last_) {
            last_ = a.body;
            out_->line(a.body);
            if (over(a.body)) {
                spdlog::info("http stream of tournament {}: ended: it is over", id_);
                return out_->end();
            }
        }
        // A store that failed or a busy thread: the next second tries again.
        timer_.expires_after(std::chrono::seconds(1));
        timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) self->poll();
        });
    }
    // Finished or cancelled, and no game of it is still being played.
    static bool over(const std::string& body) {
        const json j = json::parse(body, nullptr, false);
        const std::string phase = j.is_object() ? j.value("phase", "") : "";
        if (phase != "finished" && phase != "cancelled") return false;
        for (const auto& g : j.value("games", json::array()))
            if (!g.value("ended", true)) return false;
        return true;
    }

    std::shared_ptr<NdjsonStream> out_;
    Hub& hub_;
    const std::string id_;
    boost::asio::steady_timer timer_;
    std::string last_;
};

}  // namespace

bool is_tournament_target(std::string_view target) {
    const auto path = path_of(target);
    return path == "/api/tournaments" || path == "/api/tournament" ||
           path.substr(0, 16) == "/api/tournament/";
}

void tournament_read(Hub& hub, std::string_view target, const std::string& viewer,
                     Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto reply = [&](ApiResponse r) { boost::asio::post(ex, [done, r] { done(r); }); };
    if (auto no = refused(hub, target)) return reply(*no);
    const auto path = path_of(target);
    if (path == "/api/tournaments")
        return run(
            hub,
            [viewer](TournamentDb& db) {
                json list = json::array();
                for (const auto& t : db.list(epoch_ms() - kListedFinishedMs, kListLimit, viewer))
                    if (auto s = spec_of(t))
                        list.push_back(tournament_json({t, {}, {}, {}}, *s, false));
                return ok(json{{"tournaments", std::move(list)}});
            },
            ex, done);
    const Route r = route_of(path);
    if (!r.valid || r.id.empty() || (!r.action.empty() && r.action != "report"))
        return reply(api_error(404, "not_found", "no such address"));
    run(
        hub,
        [r](TournamentDb& db) {
            if (r.action.empty()) return read_tournament(db, r.id);
            const auto rows = db.load(r.id);
            const auto spec = rows ? spec_of(rows->t) : std::nullopt;
            if (!rows || !spec) return api_error(404, "not_found", "no such tournament");
            return ApiResponse{200, "text/plain; charset=utf-8", tournament_report(*rows, *spec),
                               "tournament-" + r.id + ".txt"};
        },
        ex, done);
}

bool is_tournament_stream(std::string_view target) {
    const Route r = route_of(path_of(target));
    return r.valid && !r.id.empty() && r.action == "stream";
}

void start_tournament_stream(boost::asio::ip::tcp::socket socket, ConnLimiter::Slot slot, Hub& hub,
                             std::string_view target, std::string head) {
    auto s = std::make_shared<TournamentStream>(std::move(socket), std::move(slot), hub,
                                                route_of(path_of(target)).id, std::move(head));
    s->start(target);
}

void tournament_post(Hub& hub, const Player& p, std::string_view target, const std::string& body,
                     Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto reply = [&](ApiResponse r) { boost::asio::post(ex, [done, r] { done(r); }); };
    if (auto no = refused(hub, target)) return reply(*no);
    const auto path = path_of(target);
    const Route r = route_of(path);
    if (!r.valid ||
        (r.id.empty() ? !r.action.empty() : r.action != "join" && r.action != "withdraw"))
        return reply(api_error(404, "not_found", "no such address"));
    if (!p.account)
        return reply(api_error(403, "account_required", "tournaments are for accounts: log in"));
    json j = body.empty() ? json::object() : json::parse(body, nullptr, false);
    if (!j.is_object()) return reply(api_error(400, "bad_request", "send a JSON object"));
    auto service = hub.tournaments;

    if (r.id.empty()) {  // make one
        const std::int64_t now = epoch_ms();
        auto parsed = parse_spec(j, now);
        if (auto* e = std::get_if<std::string>(&parsed))
            return reply(api_error(400, "bad_request", *e));
        TournamentSpec s = std::get<TournamentSpec>(std::move(parsed));
        if (s.name.empty())
            s.name = p.name + (s.kind == tournament::Kind::Arena ? "'s arena" : "'s Swiss");
        return run(
            hub,
            [s, p, now, service](TournamentDb& db) {
                if (db.unfinished_by(p.id) >= kMaxUnfinishedPerAccount)
                    return api_error(409, "too_many_tournaments",
                                     "you have " + std::to_string(kMaxUnfinishedPerAccount) +
                                         " tournaments not over yet; wait for one to end");
                StoredTournament t = new_tournament(s, p.id, p.name, now);
                for (int attempt = 0; attempt < 8; ++attempt) {
                    t.id = tournament_id();
                    t.password_hash = s.password.empty() ? "" : password_hash(t.id, s.password);
                    if (db.create(t)) {
                        spdlog::info("tournament {} ({}) made by {}", t.id, t.name, p.name);
                        service->soon();
                        return ok(json{{"id", t.id}, {"link", "/t/" + t.id}});
                    }
                }
                return api_error(503, "store_unavailable", "no free tournament id was found");
            },
            ex, done);
    }

    if (r.action == "withdraw")
        return run(
            hub,
            [r, p](TournamentDb& db) {
                if (!db.find(r.id)) return api_error(404, "not_found", "no such tournament");
                if (!db.withdraw(r.id, p.id))
                    return api_error(409, "not_entered", "you are not playing in it");
                return ok(json{{"ok", true}});
            },
            ex, done);

    std::string password;
    if (j.contains("password")) {
        if (!j["password"].is_string())
            return reply(api_error(400, "bad_request", "\"password\" must be a string"));
        password = j["password"].get<std::string>();
    }
    run(
        hub,
        [r, p, password, service](TournamentDb& db) {
            const auto t = db.find(r.id);
            const auto spec = t ? spec_of(*t) : std::nullopt;
            if (!t || !spec) return api_error(404, "not_found", "no such tournament");
            if (!t->password_hash.empty() && password_hash(r.id, password) != t->password_hash)
                return api_error(403, "wrong_password", "this tournament needs its password");
            if (p.bot && !spec->bots)
                return api_error(403, "no_bots", "this tournament is for people only");
            const std::string category = category_of(*spec);
            const auto rating = category.empty() ? std::nullopt : db.rating(p.id, category);
            const StoredEntrant e{p.id, p.name, int(std::lround(rating.value_or(1500))), true,
                                  p.bot};
            switch (db.join(r.id, e, spec->max_players)) {
                case TournamentDb::Join::NoSuchTournament:
                    return api_error(404, "not_found", "no such tournament");
                case TournamentDb::Join::Over:
                    return api_error(409, "tournament_over", "this tournament is over");
                case TournamentDb::Join::Full:
                    return api_error(409, "tournament_full", "this tournament is full");
                case TournamentDb::Join::Already:
                    return ok(json{{"ok", true}, {"joined", "already"}});
                case TournamentDb::Join::Back:
                    service->soon();
                    return ok(json{{"ok", true}, {"joined", "back"}});
                case TournamentDb::Join::Joined:
                    break;
            }
            service->soon();
            return ok(json{{"ok", true}, {"joined", "joined"}});
        },
        ex, done);
}

}  // namespace tf::server
