#include "server/web/play_api.h"

#include <spdlog/spdlog.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cmath>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "proto/messages.h"
#include "server/base/metrics.h"
#include "server/net/credit_bucket.h"
#include "server/session/session.h"
#include "server/web/ndjson_stream.h"

namespace tf::server {

namespace {

namespace net = boost::asio;
using json = nlohmann::json;
using proto::Err;

// ---- the connection of one request or one stream ----

std::string hello_text(const std::string& token) {
    return json{{"type", "hello"}, {"version", proto::kProtocolVersion}, {"token", token}}.dump();
}

// A Session whose messages go to a function rather than a socket, on the HTTP connection's
// executor. finish() ends it as a closed socket would (it leaves the rooms it watched).
class ApiSession : public Session {
  public:
    using OnMessage = std::function<void(const std::string& text)>;
    using OnClose = std::function<void(const std::string& reason)>;
    ApiSession(Hub& hub, std::string address, Store::Executor ex, OnMessage on_message,
               OnClose on_close)
        : Session(hub, std::move(address)),
          ex_(std::move(ex)),
          on_message_(std::move(on_message)),
          on_close_(std::move(on_close)) {}
    // The player `auth` names, as its hello: the token's, or the access token's player.
    void sign_in(const ApiAuth& auth) {
        if (!auth.player) return receive(hello_text(auth.token));
        net::dispatch(ex_, [self = shared(), p = *auth.player] {
            if (!self->done_) self->hello_as(p);
        });
    }
    void receive(std::string text) {
        net::dispatch(ex_, [self = shared(), text = std::move(text)] {
            if (!self->done_) self->on_text(text);
        });
    }
    void finish() {
        net::dispatch(ex_, [self = shared()] {
            if (self->done_) return;
            self->done_ = true;
            self->on_message_ = {};
            self->on_close_ = {};
            self->on_closed();
        });
    }
    void deliver(Msg m) override {
        net::dispatch(ex_, [self = shared(), m = std::move(m)] {
            if (self->done_ || !m) return;
            if (auto seen = self->screen(m); seen && self->on_message_) self->on_message_(*seen);
        });
    }
    void close(std::string reason, bool) override {
        net::post(ex_, [self = shared(), reason = std::move(reason)] {
            if (self->done_) return;
            auto on_close = self->on_close_;
            if (on_close) on_close(reason);
            self->finish();
        });
    }

  protected:
    Store::Executor executor() override { return ex_; }
    const char* transport() const override { return "http"; }

  private:
    std::shared_ptr<ApiSession> shared() {
        return std::static_pointer_cast<ApiSession>(shared_from_this());
    }
    Store::Executor ex_;
    OnMessage on_message_;
    OnClose on_close_;
    bool done_ = false;
};

// ---- the bucket of each account ----

std::mutex g_buckets_m;
std::unordered_map<std::string, CreditBucket> g_buckets;

// The target without its query.
std::string_view path_of(std::string_view target) {
    return target.substr(0, target.find('?'));
}

// ---- routes ----

// "/api/game/CODE/ACTION" -> {CODE, ACTION}; "/api/challenge/X[/ACTION]" likewise.
struct Route {
    std::string base, subject, action;
};
std::optional<Route> route(std::string_view target) {
    target = path_of(target);
    for (std::string_view base : {"/api/game/", "/api/challenge/"}) {
        if (target.substr(0, base.size()) != base) continue;
        auto rest = target.substr(base.size());
        auto slash = rest.find('/');
        Route r{std::string(base), std::string(rest.substr(0, slash)), ""};
        if (slash != std::string_view::npos) r.action = std::string(rest.substr(slash + 1));
        if (r.subject.empty() || r.action.find('/') != std::string::npos) return std::nullopt;
        return r;
    }
    return std::nullopt;
}

unsigned status_of(Err code) {
    switch (code) {
        case Err::BadJson:
        case Err::BadMessage:
        case Err::UnknownType:
        case Err::TooLarge:
        case Err::BadVariant:
        case Err::ChatTooLong:
            return 400;
        case Err::BadToken:
            return 401;
        case Err::NotSeated:
        case Err::NotInvited:
        case Err::NotCreator:
        case Err::AccountRequired:
        case Err::Blocked:
        case Err::BotAccount:
        case Err::ChatMuted:
        case Err::AccountClosed:
        case Err::CannotChallenge:
            return 403;
        case Err::NoSuchGame:
        case Err::UnknownPlayer:
            return 404;
        case Err::IllegalSetup:
        case Err::IllegalTurn:
            return 422;
        case Err::RateLimited:
        case Err::Flooding:
        case Err::ChatRate:
        case Err::TooManyGames:
        case Err::TooManyOpenGames:
        case Err::TooManyConnections:
            return 429;
        case Err::StoreFailed:
        case Err::StoreUnavailable:
        case Err::InDoubt:
        case Err::TryAgain:
        case Err::Internal:
            return 503;
        default:
            return 409;  // the game's state refuses it: not your turn, stale, over, full...
    }
}

// A refusal as the API answers it, from the socket protocol's error message `m`: its code,
// message (and rule, version and game when it has them), under the code's status.
ApiResponse refusal_of(const json& m) {
    json e = {{"error", m.value("code", "internal")}, {"message", m.value("message", "")}};
    for (const char* k : {"rule", "version", "game"})
        if (m.contains(k) && !m[k].is_null()) e[k] = m[k];
    auto code = proto::err_from_name(e["error"].get<std::string>());
    return ApiResponse{code ? status_of(*code) : 409, "application/json", e.dump(), ""};
}

ApiResponse bad_request(std::string message) {
    return api_error(400, "bad_request", std::move(message));
}

// The socket protocol's message for a POST, with its ref; or the refusal.
std::variant<json, ApiResponse> message_for(const Route& r, const std::string& body,
                                            const std::string& ref) {
    json in = body.empty() ? json::object() : json::parse(body, nullptr, false);
    if (!in.is_object()) return bad_request("the body is a JSON object (or empty)");
    auto only = [&](std::initializer_list<const char*> keys) {
        for (auto it = in.begin(); it != in.end(); ++it)
            if (std::none_of(keys.begin(), keys.end(),
                             [&](const char* k) { return it.key() == k; }))
                return false;
        return true;
    };
    const std::string& code = r.subject;
    if (r.base == "/api/game/") {
        if (r.action == "setup" || r.action == "turn") {
            if (!in.contains(r.action) || !only({r.action.c_str(), "version"}))
                return bad_request("send {\"" + r.action + "\": ..., \"version\": N (optional)}");
            json m = {{"type", r.action}, {"game", code}, {r.action, in[r.action]}, {"ref", ref}};
            if (in.contains("version")) m["version"] = in["version"];
            return m;
        }
        if (r.action == "resign") {
            if (!in.empty()) return bad_request("resign takes no body");
            return json{{"type", "resign"}, {"game", code}, {"ref", ref}};
        }
        if (r.action == "draw") {
            const std::string act = in.value("act", std::string());
            if (!only({"act"}) || (act != "offer" && act != "accept" && act != "decline"))
                return bad_request("send {\"act\": \"offer\" | \"accept\" | \"decline\"}");
            return json{{"type", "draw_" + act}, {"game", code}, {"ref", ref}};
        }
        if (r.action == "chat") {
            if (!only({"text"}) || !in.contains("text"))
                return bad_request("send {\"text\": TEXT}");
            return json{{"type", "chat"}, {"game", code}, {"text", in["text"]}, {"ref", ref}};
        }
        return api_error(404, "not_found", "no such action: " + r.action);
    }
    if (r.action.empty()) {  // a challenge to the account r.subject
        if (!only({"variant", "time_control", "color", "rated"}))
            return bad_request(
                "send {\"variant\", \"time_control\", \"color\", \"rated\"} as create_game has "
                "them");
        json m = in;
        m["type"] = "create_game";
        m["to"] = r.subject;
        m["ref"] = ref;
        if (!m.contains("variant")) m["variant"] = {{"size", 9}};
        if (!m.contains("time_control")) m["time_control"] = nullptr;  // untimed
        if (!m.contains("color")) m["color"] = "random";
        m["public"] = false;  // a challenge is private whatever it says
        return m;
    }
    if (r.action == "accept") {
        if (!in.empty()) return bad_request("accept takes no body");
        return json{{"type", "join_game"}, {"code", code}};
    }
    if (r.action == "decline") {
        if (!only({"reason"})) return bad_request("send {\"reason\": R} (optional)");
        json m = {{"type", "decline_challenge"}, {"game", code}};
        if (in.contains("reason")) m["reason"] = in["reason"];
        return m;
    }
    return api_error(404, "not_found", "no such action: " + r.action);
}

// The answer a POST waits for, from the messages its connection gets: ok (an ack, a created
// game, the snapshot of a joined challenge, the cancel of a declined one) or the error.
std::optional<ApiResponse> answer_of(const std::string& text, const std::string& ref,
                                     const Route& r) {
    auto m = json::parse(text, nullptr, false);
    if (!m.is_object()) return std::nullopt;
    const std::string type = m.value("type", "");
    if (type == "error") return refusal_of(m);
    auto ok = [](json j) { return ApiResponse{200, "application/json", j.dump(), ""}; };
    if (type == "ack" && m.value("ref", "") == ref)
        return ok({{"ok", true}, {"version", m.value("version", std::int64_t(0))}});
    if (type == "game_created" && m.value("ref", "") == ref)
        return ok({{"game", m.value("code", "")}, {"link", m.value("link", "")}});
    if (type == "snapshot" && r.action == "accept" && m.value("game", "") == r.subject)
        return ok({{"ok", true}, {"game", r.subject}, {"version", m.value("version", 0)}});
    if (type == "event" && r.action == "decline" && m.value("kind", "") == "cancel")
        return ok({{"ok", true}});
    return std::nullopt;
}

// ---- the streams ----

// The account's stream or a game's: an ApiSession's messages, as NdjsonStream lines.
class PlayStream : public std::enable_shared_from_this<PlayStream> {
  public:
    PlayStream(net::ip::tcp::socket s, ConnLimiter::Slot slot, Hub& hub, std::string game,
               std::string head)
        : out_(std::make_shared<NdjsonStream>(std::move(s), std::move(slot), std::move(head))),
          hub_(hub),
          game_(std::move(game)) {}
    void start(const ApiAuth& auth, std::string address) {
        auto w = weak_from_this();
        session_ = std::make_shared<ApiSession>(
            hub_, std::move(address), out_->executor(),
            [w](const std::string& text) {
                if (auto self = w.lock()) self->on_message(text);
            },
            [w](const std::string& reason) {
                if (auto self = w.lock()) self->end(reason);
            });
        // The stream keeps this alive until its socket closes.
        out_->start([self = shared_from_this()] { self->stop(); });
        session_->sign_in(auth);
        if (!game_.empty()) session_->receive(json{{"type", "watch"}, {"code", game_}}.dump());
    }

  private:
    void on_message(const std::string& text) {
        auto m = json::parse(text, nullptr, false);
        const std::string type = m.is_object() ? m.value("type", "") : "";
        if (type == "welcome") {
            if (!game_.empty()) return;
            // The account's stream: its games, then its notifications as they come.
            out_->open();
            for (const auto& code : m.value("games", json::array()))
                out_->line(json{{"type", "game_start"}, {"game", code}}.dump());
            return;
        }
        if (game_.empty()) {
            if (type == "notification" || type == "shutdown") out_->line(text);
            if (type == "error") end(m.value("message", "refused"));
            return;
        }
        if (type == "notification" || type == "pong") return;
        if (!out_->opened() && type == "error") {  // the game cannot be watched: no stream
            out_->refuse(refusal_of(m));
            return stop();
        }
        out_->line(text);
        // A game that is over ends its stream (a rated game's `ratings` event follows its end).
        const std::string kind = m.value("kind", "");
        const std::string status = m.value("status", "");
        if ((type == "event" && (kind == "game_over" || kind == "cancel")) ||
            (type == "snapshot" && status != "open" && status != "playing"))
            end_soon();
    }
    // The stream ends a moment after the game did, with whatever followed its end.
    void end_soon() {
        if (ending_soon_) return;
        ending_soon_ = true;
        auto t = std::make_shared<net::steady_timer>(out_->executor(), std::chrono::seconds(1));
        t->async_wait([self = shared_from_this(), t](boost::system::error_code) {
            if (!self->out_->ended()) self->end("the game is over");
        });
    }
    // The stream ends (the game moved, the account logged out, the server stops).
    void end(const std::string& reason) {
        spdlog::info("http stream{}{}: ended: {}", game_.empty() ? "" : " of ", game_, reason);
        out_->end();
        stop();
    }
    void stop() {
        if (session_) session_->finish();
        session_.reset();
    }

    std::shared_ptr<NdjsonStream> out_;
    Hub& hub_;
    const std::string game_;  // "" for the account's stream
    std::shared_ptr<ApiSession> session_;
    bool ending_soon_ = false;
};

}  // namespace

bool is_play_target(std::string_view target) {
    return target.substr(0, 10) == "/api/game/" || target.substr(0, 15) == "/api/challenge/";
}

const char* scope_of(std::string_view target) {
    if (is_stream_target(target)) return "read";
    // Anything else asks for games: a challenge, or a tournament made or entered.
    return target.substr(0, 10) == "/api/game/" ? "play" : "challenge";
}

bool is_stream_target(std::string_view target) {
    target = path_of(target);
    return target == "/api/stream/event" || target.substr(0, 17) == "/api/game/stream/";
}

RateState take_api_credit(const Hub& hub, const std::string& player_id) {
    const double rate = hub.cfg.rate_per_second, burst = hub.cfg.rate_burst;
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(g_buckets_m);
    if (g_buckets.size() > 100'000) g_buckets.clear();  // forgets full buckets' owners at worst
    auto& b = g_buckets.try_emplace(player_id, burst, now).first->second;
    RateState s;
    s.allowed = b.take(rate, burst, now);
    s.limit = int(burst);
    s.remaining = int(std::floor(b.credits));
    s.reset_seconds = int(std::ceil((burst - b.credits) / rate));
    return s;
}

void play_api(Hub& hub, const ApiAuth& auth, std::string address, std::string_view target,
              const std::string& body, Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto r = route(target);
    if (!r) return net::post(ex, [done] { done(api_error(404, "not_found", "not found")); });
    static std::atomic<std::uint64_t> next_ref{1};
    const std::string ref = "http-" + std::to_string(next_ref++);
    auto msg = message_for(*r, body, ref);
    if (auto* refusal = std::get_if<ApiResponse>(&msg))
        return net::post(ex, [done, a = std::move(*refusal)] { done(a); });
    const std::string text = std::get<json>(msg).dump();
    // One answer: the first message that decides, or the connection's end, or the timeout.
    struct Call {
        std::function<void(ApiResponse)> done;
        std::shared_ptr<ApiSession> session;
        std::optional<net::steady_timer> timer;
        void answer(ApiResponse a) {
            if (!done) return;
            auto d = std::move(done);
            done = {};
            if (timer) timer->cancel();
            if (session) session->finish();
            session.reset();
            d(std::move(a));
        }
    };
    auto call = std::make_shared<Call>();
    call->done = std::move(done);
    call->timer.emplace(ex);
    std::weak_ptr<Call> w = call;
    call->session = std::make_shared<ApiSession>(
        hub, std::move(address), ex,
        [w, ref, r = *r](const std::string& t) {
            auto c = w.lock();
            if (!c) return;
            if (auto a = answer_of(t, ref, r)) c->answer(std::move(*a));
        },
        [w](const std::string& reason) {
            if (auto c = w.lock())
                c->answer(api_error(503, "try_again", "the connection ended: " + reason));
        });
    call->timer->expires_after(std::chrono::seconds(15));
    call->timer->async_wait([call](boost::system::error_code ec) {
        if (!ec) call->answer(api_error(504, "timeout", "the game did not answer in time"));
    });
    call->session->sign_in(auth);
    call->session->receive(text);
}

void start_play_stream(net::ip::tcp::socket socket, ConnLimiter::Slot slot, Hub& hub,
                       const ApiAuth& auth, std::string address, std::string_view target,
                       std::string head) {
    target = path_of(target);
    std::string game;
    if (target.substr(0, 17) == "/api/game/stream/") game = std::string(target.substr(17));
    auto s = std::make_shared<PlayStream>(std::move(socket), std::move(slot), hub, std::move(game),
                                          std::move(head));
    s->start(auth, std::move(address));
}

}  // namespace tf::server
