// HTTP on the first port: GET /healthz, the WebSocket upgrade at /ws, and the web client's static
// files (GET/HEAD; "/", "/g/CODE", "/@/NAME" and "/players" give index.html;
// server/web/static_files.h; precompressed copies by Accept-Encoding, streamed from the file), 404
// otherwise (with the web client's page when a browser asked for a page: it says "not found"
// itself). A request must arrive whole within --handshake-seconds (also the keep-alive wait); one
// that cannot be parsed is answered 400, 413, 414 or 431 and the connection closed; a WebSocket
// upgrade from a page whose Origin is not in --allowed-origins gets 403. Every answer carries the
// security headers of set_security_headers(). Behind a trusted proxy (--trusted-proxies) each
// request's client is the one its X-Forwarded-For names (server/net/client_address.h), counted
// under that address.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "proto/messages.h"
#include "server/base/metrics.h"
#include "server/base/secrets.h"
#include "server/net/client_address.h"
#include "server/net/io_errors.h"
#include "server/session/hub.h"
#include "server/web/history_api.h"
#include "server/web/metrics_page.h"
#include "server/web/play_api.h"
#include "server/web/puzzle_api.h"
#include "server/web/social_api.h"
#include "server/web/static_files.h"
#include "server/web/token_api.h"
#include "server/web/tournament_api.h"
#include "server/web/transports.h"
#include "server/web/ws_session.h"

namespace tf::server {

namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// The page may run only its own scripts (and compile the rules' WebAssembly), talk only to this
// server, load styles and images only from it, and never be framed; no Referer leaves it.
// The web client has no inline script, style or handler (tests/browser fail on a violation).
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; "
    "style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

template <class Body>
void set_security_headers(http::response<Body>& res) {
    res.set("Content-Security-Policy",
            beast::string_view(kContentSecurityPolicy.data(), kContentSecurityPolicy.size()));
    res.set("Referrer-Policy", "no-referrer");
    res.set("X-Content-Type-Options", "nosniff");
}

// The same headers as raw lines, for the answers written without a parsed request.
const std::string& security_header_lines() {
    static const std::string lines =
        "Content-Security-Policy: " + std::string(kContentSecurityPolicy) +
        "\r\nReferrer-Policy: no-referrer\r\n"
        "X-Content-Type-Options: nosniff\r\n";
    return lines;
}

// A whole answer with `status` ("429 Too Many Requests") and a text body, closing the connection.
std::string raw_answer(std::string_view status, std::string_view body) {
    return "HTTP/1.1 " + std::string(status) +
           "\r\nServer: trunkfield\r\nContent-Type: text/plain\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n" + security_header_lines() +
           "Connection: close\r\n\r\n" + std::string(body);
}

// What a request that could not be parsed gets (RFC 9110, RFC 6585): the request line over the
// header limit is 414, the header fields 431, the body 413, anything else malformed 400.
const std::string& malformed_answer(beast::error_code ec, bool request_line_read) {
    static const std::string too_long_uri =
                                 raw_answer("414 URI Too Long", "request line too long\n"),
                             too_large_header = raw_answer("431 Request Header Fields Too Large",
                                                           "request header too large\n"),
                             too_large_body =
                                 raw_answer("413 Content Too Large", "request body too large\n"),
                             bad = raw_answer("400 Bad Request", "malformed request\n");
    if (ec == http::error::header_limit) return request_line_read ? too_large_header : too_long_uri;
    if (ec == http::error::body_limit) return too_large_body;
    return bad;
}

// An I/O error of a connection: logged at debug level (a client going away is routine), except
// the cancellations of our own shutdown, which say nothing.
// A client that ends its keep-alive connection or stays silent past the timeout is no failure.
void fail(beast::error_code ec, const char* what) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout) return;
    io_error("http", ec, what);
}

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

class HttpSession : public std::enable_shared_from_this<HttpSession> {
  public:
    HttpSession(boost::asio::ip::tcp::socket s, Hub& hub, ConnLimiter::Slot slot,
                boost::asio::ip::address peer)
        : stream_(std::move(s)),
          hub_(hub),
          slot_(std::move(slot)),
          peer_(peer),
          from_proxy_(hub.trusted.contains(peer)),
          client_(peer) {}
    void read() {
        parser_.emplace();
        parser_->body_limit(proto::kMaxMessageBytes);
        parser_->header_limit(8 * 1024);
        stream_.expires_after(
            std::chrono::milliseconds(std::int64_t(hub_.cfg.handshake_seconds * 1000)));
        http::async_read(
            stream_, buf_, *parser_,
            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

  private:
    // Every answer starts here: the status, the body and its type, the security headers (and
    // HSTS when the request came through a TLS-terminating proxy: X-Forwarded-Proto https; a
    // browser ignores it over plain HTTP, so a forged header can do nothing), keep-alive.
    static std::shared_ptr<Response> make(const Request& req, http::status st,
                                          std::string_view content_type, std::string body) {
        auto res = std::make_shared<Response>(st, req.version());
        res->set(http::field::server, "trunkfield");
        res->set(http::field::content_type,
                 beast::string_view(content_type.data(), content_type.size()));
        set_security_headers(*res);
        if (beast::iequals(req["X-Forwarded-Proto"], "https"))
            res->set(http::field::strict_transport_security, "max-age=31536000");
        res->keep_alive(req.keep_alive());
        res->body() = std::move(body);
        res->prepare_payload();
        return res;
    }
    void respond(const Request& req, http::status st, const char* body) {
        send(make(req, st, "text/plain", body));
    }

    void on_read(beast::error_code ec) {
        if (ec == http::error::end_of_stream) return close();
        if (ec && ec.category() == beast::error_code(http::error::bad_target).category() &&
            ec != http::error::partial_message)
            return answer_malformed(ec);
        if (ec) return fail(ec, "read");  // timeout, reset: dropped
        auto req = parser_->release();
        if (from_proxy_ && !forwarded(req)) return;
        if (beast::websocket::is_upgrade(req)) return upgrade(std::move(req));
        const bool get = req.method() == http::verb::get;
        if (get && req.target() == "/healthz") return respond(req, http::status::ok, "ok");
        if (get && req.target() == "/readyz") {
            std::string why;
            if (!hub_.ready) return respond(req, http::status::service_unavailable, "not ready\n");
            if (!hub_.store->healthy())
                return respond(req, http::status::service_unavailable,
                               "not ready: the store cannot write\n");
            if (!hub_.peers->healthy(&why))
                return respond(req, http::status::service_unavailable,
                               ("not ready: " + why + "\n").c_str());
            return respond(req, http::status::ok, "ready");
        }
        if (get && req.target() == "/metrics") {
            if (!metrics_allowed(req)) return respond(req, http::status::not_found, "not found\n");
            return send(
                make(req, http::status::ok, "text/plain; version=0.0.4", render_metrics(hub_)));
        }
        const std::string_view target(req.target().data(), req.target().size());
        if (get && is_stream_target(target)) return serve_play(std::move(req), true);
        if (get && is_tournament_stream(target)) {
            const std::string h = stream_head(req, {});
            stream_.expires_never();
            return start_tournament_stream(stream_.release_socket(), std::move(slot_), hub_, target,
                                           h);
        }
        if (is_tournament_target(target)) {
            if (req.method() == http::verb::post) return serve_play(std::move(req), false);
            if (get) return serve_api(std::move(req));
            auto api = api_error(405, "method_not_allowed", "this address takes a GET or a POST");
            api.headers = {{"Allow", "GET, POST"}};
            return send_api(req, std::move(api));
        }
        if (is_play_target(target)) {
            if (req.method() != http::verb::post) {
                auto api = api_error(405, "method_not_allowed", "this address takes a POST");
                api.headers = {{"Allow", "POST"}};
                return send_api(req, std::move(api));
            }
            return serve_play(std::move(req), false);
        }
        if ((get || req.method() == http::verb::post) &&
            (is_puzzle_target(target) || is_social_target(target)))
            return serve_api(std::move(req));
        if (get && is_api_target(target)) return serve_api(std::move(req));
        if (get || req.method() == http::verb::head) return serve_static(req);
        respond(req, http::status::not_found, "not found\n");
    }
    // A request through a trusted proxy: its client is the one X-Forwarded-For names, and the
    // connection is counted under that client's address (a proxy may carry several clients'
    // requests on one connection, one after the other). False when that address is full: 429,
    // and the connection closes.
    bool forwarded(const Request& req) {
        std::string chain;
        for (auto it = req.find("X-Forwarded-For");
             it != req.end() && beast::iequals(it->name_string(), "X-Forwarded-For"); ++it)
            chain += (chain.empty() ? "" : ",") + std::string(it->value());
        client_ = forwarded_client(peer_, chain, hub_.trusted);
        if (slot_.rekey(client_)) return true;
        metrics().reject(proto::Err::TooManyConnections);
        static const std::string refusal =
            raw_answer("429 Too Many Requests", "too many connections from your address\n");
        boost::asio::async_write(
            stream_, boost::asio::buffer(refusal),
            [self = shared_from_this()](beast::error_code, std::size_t) { self->close(); });
        return false;
    }
    // A request that could not be parsed: answered, then closed.
    void answer_malformed(beast::error_code ec) {
        // Beast parses the request line as soon as it is whole: then a header field is too long.
        const bool request_line = parser_ && !parser_->get().target().empty();
        spdlog::warn("http [{}]: malformed request ({}), answered and closed", client_.to_string(),
                     ec.message());
        const std::string& answer = malformed_answer(ec, request_line);
        boost::asio::async_write(
            stream_, boost::asio::buffer(answer),
            [self = shared_from_this()](beast::error_code, std::size_t) { self->close(); });
    }
    // /metrics: with --metrics-token, for requests that present it (Authorization: Bearer);
    // without one, only for clients on this machine that came straight here (no proxy's
    // X-Forwarded-For or Forwarded header: a proxy on this machine, trusted or not, adds one), as
    // the operator's own scraper does. Anyone else: 404.
    bool metrics_allowed(const Request& req) const {
        const std::string& token = hub_.cfg.metrics_token;
        if (!token.empty()) {
            auto auth = req[http::field::authorization];
            std::string_view a(auth.data(), auth.size());
            return a.substr(0, 7) == "Bearer " && constant_time_equal(a.substr(7), token);
        }
        return client_.is_loopback() && req.find("X-Forwarded-For") == req.end() &&
               req.find("Forwarded") == req.end();
    }
    void upgrade(Request req) {
        if (req.target() != "/ws") return respond(req, http::status::not_found, "not found\n");
        if (!origin_allowed(req[http::field::origin])) {
            spdlog::warn("ws [{}]: upgrade from origin '{}' refused (--allowed-origins)",
                         client_.to_string(), std::string(req[http::field::origin].substr(0, 200)));
            return respond(req, http::status::forbidden, "origin not allowed\n");
        }
        if (auto why = ws_upgrade_refusal(req)) {
            spdlog::warn("ws [{}]: upgrade refused: {}", client_.to_string(), *why);
            auto res = make(req, http::status::upgrade_required, "text/plain", *why + "\n");
            res->set(http::field::sec_websocket_version, "13");
            res->keep_alive(false);
            return send(std::move(res));
        }
        start_ws_session(std::move(stream_), std::move(req), hub_, std::move(slot_),
                         client_.to_string());
    }
    // No Origin header (a non-browser client) or an empty allow-list: allowed. Otherwise the
    // origin must be listed (ASCII case-insensitive, as browsers send it: scheme://host[:port]).
    bool origin_allowed(beast::string_view origin) const {
        const auto& allowed = hub_.cfg.allowed_origins;
        if (allowed.empty() || origin.empty()) return true;
        for (const auto& a : allowed)
            if (beast::iequals(origin, a)) return true;
        return false;
    }
    // The file is streamed from the disk as the socket takes it (Beast's file_body): a request
    // costs a descriptor and a buffer, never the file's size in memory.
    void serve_static(const Request& req) {
        const auto target = req.target();
        const auto accept = req[http::field::accept_encoding];
        auto file =
            load_static_file(hub_.cfg.web_root, std::string_view(target.data(), target.size()),
                             std::string_view(accept.data(), accept.size()));
        if (!file) return not_found_page(req);
        send_file(req, *file, http::status::ok);
    }
    // An address with nothing behind it: a browser asking for a page gets the web client's own
    // (its router, knowing no such address, says so in the player's language) with status 404;
    // anything else (a script, an image, a client that is no browser) a line of text.
    void not_found_page(const Request& req) {
        const auto wants = req[http::field::accept];
        const auto accept = req[http::field::accept_encoding];
        std::optional<StaticFile> page;
        if (std::string_view(wants.data(), wants.size()).find("text/html") !=
            std::string_view::npos)
            page = load_static_file(hub_.cfg.web_root, "/",
                                    std::string_view(accept.data(), accept.size()));
        if (!page) return respond(req, http::status::not_found, "not found\n");
        send_file(req, *page, http::status::not_found);
    }
    // `file` as the answer with status `st` (an ok one is 304 when the client has it already).
    void send_file(const Request& req, const StaticFile& file, http::status st) {
        const bool head = req.method() == http::verb::head;
        const bool same = st == http::status::ok && req[http::field::if_none_match] == file.etag;
        auto res = std::make_shared<http::response<http::file_body>>(
            same ? http::status::not_modified : st, req.version());
        res->set(http::field::server, "trunkfield");
        res->set(http::field::content_type, file.content_type);
        set_security_headers(*res);
        if (beast::iequals(req["X-Forwarded-Proto"], "https"))
            res->set(http::field::strict_transport_security, "max-age=31536000");
        res->keep_alive(req.keep_alive());
        if (st == http::status::ok) {
            res->set(http::field::cache_control, file.cache_control);
            res->set(http::field::etag, file.etag);
        } else {
            res->set(http::field::cache_control, "no-store");
        }
        if (!file.content_encoding.empty())
            res->set(http::field::content_encoding, file.content_encoding);
        if (file.vary) res->set(http::field::vary, "Accept-Encoding");
        if (!same && !head) {
            beast::error_code ec;
            res->body().open(file.path.c_str(), beast::file_mode::scan, ec);
            if (ec) return respond(req, http::status::not_found, "not found\n");
            res->prepare_payload();
        } else if (head && !same) {
            res->content_length(file.size);
        }
        send(std::move(res));
    }
    // The history API answers from the store's asynchronous reads, back on this connection's
    // executor.
    // A request with `Authorization: Bearer TOKEN` (a player's token, as in `hello`) sees that
    // player's private games too; a token that is not valid sees what anyone sees.
    // The token of `Authorization: Bearer TOKEN` (at most 128 characters), or nullopt.
    static std::optional<std::string> bearer(const Request& req) {
        auto auth = req[http::field::authorization];
        std::string_view a(auth.data(), auth.size());
        if (a.substr(0, 7) != "Bearer " || a.size() > 7 + 128) return std::nullopt;
        return std::string(a.substr(7));
    }
    void serve_api(Request req) {
        auto token = bearer(req);
        if (!token) return answer_api(std::move(req), {});
        hub_.identity.restore(*token, stream_.get_executor(),
                              [self = shared_from_this(), req = std::move(req)](
                                  const Read<std::shared_ptr<const Player>>& r) mutable {
                                  PuzzleReader reader;
                                  if (r.ok() && *r.value)
                                      reader = {(*r.value)->id, (*r.value)->account};
                                  self->answer_api(std::move(req), std::move(reader));
                              });
    }
    // The HTTP API for programs (server/web/play_api.h): a valid token first, then a credit of
    // its account's bucket; the answer says the bucket's state in RateLimit-* headers.
    void serve_play(Request req, bool stream) {
        auto bearer_token = bearer(req);
        if (!bearer_token)
            return send_api(req,
                            api_error(401, "unauthorized", "send Authorization: Bearer TOKEN"));
        const std::string token = std::move(*bearer_token);
        // An access token: its account, if the request is within its scopes.
        if (is_api_token(token))
            return check_api_token(
                hub_.social.get(), token, stream_.get_executor(),
                [self = shared_from_this(), req = std::move(req), stream](TokenCheck c) mutable {
                    if (c.refusal) return self->send_api(req, std::move(*c.refusal));
                    const std::string_view t(req.target().data(), req.target().size());
                    const char* scope = scope_of(t);
                    std::optional<ApiResponse> refusal;
                    if (std::find(c.scopes.begin(), c.scopes.end(), scope) == c.scopes.end())
                        refusal =
                            api_error(403, "missing_scope",
                                      std::string("this token's scopes lack \"") + scope + "\"");
                    const Player p = *c.player;
                    self->play(std::move(req), p, ApiAuth{"", p}, stream, std::move(refusal));
                });
        hub_.identity.restore(
            token, stream_.get_executor(),
            [self = shared_from_this(), req = std::move(req), token,
             stream](const Read<std::shared_ptr<const Player>>& r) mutable {
                if (!r.ok())
                    return self->send_api(req, api_error(503, "store_unavailable", r.error));
                if (!*r.value)
                    return self->send_api(req, api_error(401, "unauthorized", "unknown token"));
                self->play(std::move(req), **r.value, ApiAuth{token, std::nullopt}, stream);
            });
    }
    // `refusal`: the request is answered so (after paying for it) rather than made.
    // An NDJSON stream's head, up to (without) the blank line: the stream adds
    // Transfer-Encoding and the blank line (server/web/ndjson_stream.h).
    std::string stream_head(const Request& req,
                            const std::vector<std::pair<std::string, std::string>>& headers) {
        auto res = make(req, http::status::ok, "application/x-ndjson", "");
        res->set(http::field::cache_control, "no-store");
        res->set("X-Accel-Buffering", "no");  // nginx passes each line on at once
        for (const auto& [k, v] : headers) res->set(k, v);
        res->keep_alive(false);
        res->erase(http::field::content_length);
        std::ostringstream head;
        head << res->base();
        std::string h = head.str();
        while (h.size() >= 2 && h.compare(h.size() - 2, 2, "\r\n") == 0) h.resize(h.size() - 2);
        return h + "\r\n";  // the last field's end
    }
    void play(Request req, const Player& p, const ApiAuth& auth, bool stream,
              std::optional<ApiResponse> refusal = std::nullopt) {
        const RateState rate = take_api_credit(hub_, p.id);
        std::vector<std::pair<std::string, std::string>> headers = {
            {"RateLimit-Limit", std::to_string(rate.limit)},
            {"RateLimit-Remaining", std::to_string(rate.remaining)},
            {"RateLimit-Reset", std::to_string(rate.reset_seconds)}};
        if (!rate.allowed) {
            metrics().reject(proto::Err::RateLimited);
            spdlog::warn("http [{}]: {} is rate limited", client_.to_string(), p.name);
            auto api = api_error(429, "rate_limited", "too many requests; slow down");
            headers.emplace_back("Retry-After", std::to_string(std::max(1, rate.reset_seconds)));
            api.headers = std::move(headers);
            return send_api(req, std::move(api));
        }
        if (refusal) {
            refusal->headers = std::move(headers);
            return send_api(req, std::move(*refusal));
        }
        const std::string_view t(req.target().data(), req.target().size());
        if (stream) {
            std::string h = stream_head(req, headers);
            stream_.expires_never();
            return start_play_stream(stream_.release_socket(), std::move(slot_), hub_, auth,
                                     client_.to_string(), t, std::move(h));
        }
        if (is_tournament_target(t))
            return tournament_post(hub_, p, t, req.body(), stream_.get_executor(),
                                   [self = shared_from_this(), req, headers](ApiResponse api) {
                                       api.headers.insert(api.headers.begin(), headers.begin(),
                                                          headers.end());
                                       self->send_api(req, std::move(api));
                                   });
        play_api(hub_, auth, client_.to_string(), t, req.body(), stream_.get_executor(),
                 [self = shared_from_this(), req, headers](ApiResponse api) {
                     api.headers.insert(api.headers.begin(), headers.begin(), headers.end());
                     self->send_api(req, std::move(api));
                 });
    }
    void answer_api(Request req, PuzzleReader reader) {
        const std::string_view t(req.target().data(), req.target().size());
        if (is_tournament_target(t))
            return tournament_read(hub_, t, reader.player_id, stream_.get_executor(),
                                   [self = shared_from_this(), req = std::move(req)](
                                       ApiResponse api) { self->send_api(req, std::move(api)); });
        if (is_puzzle_target(t)) {
            const bool post = req.method() == http::verb::post;
            std::string body = post ? std::move(req.body()) : std::string();
            return puzzle_api(hub_.puzzles.get(), post, t, std::move(body), std::move(reader),
                              stream_.get_executor(),
                              [self = shared_from_this(), req = std::move(req)](ApiResponse api) {
                                  self->send_api(req, std::move(api));
                              });
        }
        if (is_social_target(t)) {
            const bool post = req.method() == http::verb::post;
            std::string body = post ? std::move(req.body()) : std::string();
            const std::string target(t);  // req moves into the callback below
            SocialReader who{std::move(reader.player_id), reader.account,
                             [players = &hub_.players](const std::string& id) {
                                 return !players->connections(id).empty();
                             }};
            return social_api(hub_.social.get(), post, target, std::move(body), std::move(who),
                              stream_.get_executor(),
                              [self = shared_from_this(), req = std::move(req)](ApiResponse api) {
                                  self->send_api(req, std::move(api));
                              });
        }
        std::string viewer = std::move(reader.player_id);
        auto target = std::string(req.target());
        auto* dir = &hub_.directory;
        history_api(
            *hub_.store, target, [dir](const std::string& code) { return dir->is_suspended(code); },
            std::move(viewer), stream_.get_executor(),
            [self = shared_from_this(), req = std::move(req)](ApiResponse api) {
                self->send_api(req, std::move(api));
            });
    }
    void send_api(const Request& req, ApiResponse api) {
        auto res = make(req, http::status(api.status), api.content_type, std::move(api.body));
        res->set(http::field::cache_control, "no-store");
        for (const auto& [k, v] : api.headers) res->set(k, v);
        if (!api.filename.empty())
            res->set(http::field::content_disposition,
                     "attachment; filename=\"" + api.filename + "\"");
        send(std::move(res));
    }
    template <class Body>
    void send(std::shared_ptr<http::response<Body>> res) {
        http::async_write(stream_, *res,
                          [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                              if (ec) return fail(ec, "write");
                              if (!res->keep_alive()) return self->close();
                              self->read();
                          });
    }
    void close() {
        beast::error_code ec;
        stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buf_;
    std::optional<http::request_parser<http::string_body>> parser_;
    Hub& hub_;
    ConnLimiter::Slot slot_;  // handed to the WebSocket session on upgrade
    const boost::asio::ip::address peer_;
    const bool from_proxy_;            // the peer is a trusted proxy
    boost::asio::ip::address client_;  // the last request's client
};

}  // namespace

void start_http_session(boost::asio::ip::tcp::socket s, Hub& hub) {
    beast::error_code ec;
    auto peer = s.remote_endpoint(ec);
    if (ec) return;  // already gone
    ConnLimiter::Refusal why{};
    auto slot = hub.conn_limit.acquire(peer.address(), !hub.trusted.contains(peer.address()), &why);
    if (!slot) {
        metrics().reject(proto::Err::TooManyConnections);
        static const std::string address = raw_answer("429 Too Many Requests",
                                                      "too many connections from your address\n"),
                                 full = raw_answer("503 Service Unavailable",
                                                   "the server is full; try again in a moment\n");
        return refuse_connection(s, why == ConnLimiter::Refusal::Full ? full : address);
    }
    std::make_shared<HttpSession>(std::move(s), hub, std::move(*slot), peer.address())->read();
}

}  // namespace tf::server
