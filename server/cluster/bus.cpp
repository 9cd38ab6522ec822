// The Redis bus (bus.h). Each of the two roles (subscriber, publisher) has at most one Link, a
// TCP connection attempt with its buffers and its RESP reader; a failed Link is closed and
// dropped, and the handlers still pending on it hold it (their buffers stay valid) and see it
// is no longer their role's. Everything past the public entry points runs on `strand_`.
#include "server/cluster/bus.h"

#include <hiredis/hiredis.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <charconv>
#include <chrono>
#include <deque>
#include <mutex>
#include <string_view>

namespace tf::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::chrono::milliseconds kBackoffMin{100}, kBackoffMax{2000};
constexpr std::chrono::seconds kConnectTimeout{5};
// A PING on both connections every kHeartbeat; nothing read for kSilence closes one.
constexpr std::chrono::seconds kHeartbeat{5}, kSilence{15};
constexpr std::size_t kMaxQueued = 64u << 20;  // bytes waiting for the publisher's socket
constexpr std::size_t kMaxReply = 64u << 20;   // bytes of one reply not yet complete
constexpr std::size_t kReadChunk = 64u << 10;

struct ReaderFree {
    void operator()(redisReader* r) const { redisReaderFree(r); }
};
struct ReplyFree {
    void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReaderPtr = std::unique_ptr<redisReader, ReaderFree>;
using ReplyPtr = std::unique_ptr<redisReply, ReplyFree>;

// Appends one command, RESP-encoded, to `out`.
void append_command(std::string& out, const std::vector<std::string_view>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (auto a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    char* cmd = nullptr;
    int n = redisFormatCommandArgv(&cmd, static_cast<int>(argv.size()), argv.data(), lens.data());
    if (n < 0) throw std::bad_alloc();
    out.append(cmd, static_cast<std::size_t>(n));
    redisFreeCommand(cmd);
}

std::string_view text(const redisReply* r) {
    return r && r->str ? std::string_view(r->str, r->len) : std::string_view();
}

bool host_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_';
}

}  // namespace

bool parse_redis_url(const std::string& url, std::string& host, unsigned short& port) {
    std::string_view s = url;
    constexpr std::string_view scheme = "redis://";
    if (s.substr(0, scheme.size()) == scheme) s.remove_prefix(scheme.size());
    std::string_view h, p;
    bool bracketed = !s.empty() && s.front() == '[';
    if (bracketed) {
        auto close = s.find(']');
        if (close == s.npos) return false;
        h = s.substr(1, close - 1);
        auto rest = s.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':' || rest.size() == 1) return false;
            p = rest.substr(1);
        }
    } else {
        auto colon = s.find(':');
        h = s.substr(0, colon);
        if (colon != s.npos) {
            p = s.substr(colon + 1);
            if (p.empty()) return false;
        }
    }
    if (h.empty()) return false;
    for (char c : h) {
        if (!host_char(c) && !(bracketed && c == ':')) return false;
    }
    unsigned v = 6379;
    if (!p.empty()) {
        auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), v);
        if (ec != std::errc() || end != p.data() + p.size() || v == 0 || v > 65535) return false;
    }
    host = std::string(h);
    port = static_cast<unsigned short>(v);
    return true;
}

class Bus::Impl : public std::enable_shared_from_this<Impl> {
  public:
    Impl(asio::io_context& io, std::string url, std::vector<std::string> channels, Handlers h)
        : strand_(asio::make_strand(io)),
          url_(std::move(url)),
          channels_(std::move(channels)),
          h_(std::move(h)),
          sub_("subscriber", strand_),
          pub_("publisher", strand_) {
        url_ok_ = parse_redis_url(url_, host_, port_);
    }

    void start() {
        asio::post(strand_, [self = shared_from_this()] {
            if (self->stopped_ || self->started_) return;
            self->started_ = true;
            if (!self->url_ok_) {
                spdlog::error("bus: bad Redis URL '{}' (redis://host:port); not connecting",
                              self->url_);
                return;
            }
            self->connect(self->sub_);
            self->connect(self->pub_);
        });
    }

    void stop() {
        {
            std::lock_guard<std::recursive_mutex> lk(cb_mu_);  // a running handler returns first
            if (stopped_.exchange(true)) return;
        }
        healthy_ = false;
        asio::post(strand_, [self = shared_from_this()] { self->close_all(); });
    }

    void publish(std::string channel, std::string payload, std::function<void(long)> done) {
        asio::post(strand_, [self = shared_from_this(), channel = std::move(channel),
                             payload = std::move(payload), done = std::move(done)]() mutable {
            self->do_publish(channel, payload, std::move(done));
        });
    }

    bool healthy() const { return healthy_; }
    Stats stats() const {
        return {published_.load(std::memory_order_relaxed),
                received_.load(std::memory_order_relaxed), dropped_.load(std::memory_order_relaxed),
                reconnects_.load(std::memory_order_relaxed)};
    }

  private:
    // One TCP connection attempt.
    struct Link {
        explicit Link(const asio::strand<asio::io_context::executor_type>& ex)
            : sock(ex), resolver(ex), timer(ex), reader(redisReaderCreate()), rbuf(kReadChunk) {
            if (!reader) throw std::bad_alloc();
        }
        tcp::socket sock;
        tcp::resolver resolver;
        asio::steady_timer timer;  // the connect's timeout, then the heartbeat
        ReaderPtr reader;
        std::vector<char> rbuf;
        std::string out, wbuf;  // queued; being written
        bool writing = false, connected = false;
        Clock::time_point last_rx;
        std::size_t confirmed = 0;  // subscriber: SUBSCRIBE confirmations so far
    };
    struct Conn {
        Conn(const char* n, const asio::strand<asio::io_context::executor_type>& ex)
            : name(n), retry(ex) {}
        const char* name;
        std::shared_ptr<Link> link;
        asio::steady_timer retry;
        std::chrono::milliseconds backoff = kBackoffMin;
        bool ready = false;   // publisher: connected; subscriber: subscribed to every channel
        bool failed = false;  // ever failed: the next connect is a reconnect
        bool warned = false;  // this outage's warning is logged
    };
    struct Pending {
        std::function<void(long)> done;
        bool ping = false;
    };
    enum class Phase { starting, up, down };

    // Calls a user handler, unless stopped: never while stop() runs or after it returned.
    template <class F, class... A>
    void notify(const F& f, A&&... a) {
        if (!f) return;
        std::lock_guard<std::recursive_mutex> lk(cb_mu_);
        if (stopped_) return;
        f(std::forward<A>(a)...);
    }

    bool current(const Conn& c, const std::shared_ptr<Link>& l) const {
        return !stopped_ && c.link == l;
    }

    void connect(Conn& c) {
        auto l = std::make_shared<Link>(strand_);
        c.link = l;
        auto self = shared_from_this();
        l->timer.expires_after(kConnectTimeout);
        l->timer.async_wait([this, self, &c, l](error_code ec) {
            if (!ec && current(c, l) && !l->connected) fail(c, "connect timed out");
        });
        l->resolver.async_resolve(
            host_, std::to_string(port_),
            [this, self, &c, l](error_code ec, tcp::resolver::results_type addrs) {
                if (!current(c, l)) return;
                if (ec) return fail(c, "resolve: " + ec.message());
                asio::async_connect(l->sock, addrs, [this, self, &c, l](error_code ec, auto&&) {
                    if (!current(c, l)) return;
                    if (ec) return fail(c, ec.message());
                    on_connected(c, l);
                });
            });
    }

    void on_connected(Conn& c, const std::shared_ptr<Link>& l) {
        error_code ignored;
        l->sock.set_option(tcp::no_delay(true), ignored);
        l->sock.set_option(asio::socket_base::keep_alive(true), ignored);
        l->connected = true;
        l->last_rx = Clock::now();
        if (c.failed) reconnects_.fetch_add(1, std::memory_order_relaxed);
        read(c, l);
        heartbeat(c, l);
        if (&c == &sub_ && !channels_.empty()) {
            std::vector<std::string_view> args{"SUBSCRIBE"};
            args.insert(args.end(), channels_.begin(), channels_.end());
            append_command(l->out, args);
            flush(c, l);
        } else {
            set_ready(c);
        }
    }

    void set_ready(Conn& c) {
        c.ready = true;
        c.warned = false;
        c.backoff = kBackoffMin;
        update_health();
    }

    // Closes the role's link, fails what waited on it, and tries again after the backoff.
    void fail(Conn& c, const std::string& why) {
        auto l = std::move(c.link);
        if (l) {
            error_code ignored;
            l->sock.close(ignored);
            l->resolver.cancel();
            l->timer.cancel();
        }
        bool was_ready = std::exchange(c.ready, false);
        c.failed = true;
        if (was_ready) {
            spdlog::warn("bus: lost the Redis {} connection to {}: {}; reconnecting", c.name, url_,
                         why);
        } else if (!c.warned) {
            spdlog::warn("bus: no Redis {} connection to {}: {}; retrying", c.name, url_, why);
        } else {
            spdlog::debug("bus: Redis {} connection to {}: {}; retrying", c.name, url_, why);
        }
        c.warned = true;
        update_health();  // `down` first, then the publishes that failed with it
        if (&c == &pub_) fail_pending();
        if (stopped_) return;
        c.retry.expires_after(c.backoff);
        c.backoff = std::min(c.backoff * 2, kBackoffMax);
        c.retry.async_wait([this, self = shared_from_this(), &c](error_code ec) {
            if (!ec && !stopped_ && !c.link) connect(c);
        });
    }

    void fail_pending() {
        auto pending = std::exchange(pub_pending_, {});
        for (auto& p : pending) {
            if (p.ping) continue;
            dropped_.fetch_add(1, std::memory_order_relaxed);
            notify(p.done, -1L);
        }
    }

    void update_health() {
        bool h = sub_.ready && pub_.ready && !stopped_;
        healthy_ = h;
        if (h && phase_ != Phase::up) {
            spdlog::info("bus: {} Redis at {}, subscribed to {} channel(s)",
                         phase_ == Phase::starting ? "connected to" : "connected again to", url_,
                         channels_.size());
            phase_ = Phase::up;
            notify(h_.up);
        } else if (!h && phase_ == Phase::up) {
            phase_ = Phase::down;
            notify(h_.down);
        }
    }

    void close_all() {
        for (Conn* c : {&sub_, &pub_}) {
            if (auto l = std::move(c->link)) {
                error_code ignored;
                l->sock.close(ignored);
                l->resolver.cancel();
                l->timer.cancel();
            }
            c->retry.cancel();
            c->ready = false;
        }
        healthy_ = false;
        for (auto& p : std::exchange(pub_pending_, {})) {
            if (!p.ping) dropped_.fetch_add(1, std::memory_order_relaxed);
        }
    }

    void read(Conn& c, const std::shared_ptr<Link>& l) {
        l->sock.async_read_some(asio::buffer(l->rbuf), [this, self = shared_from_this(), &c, l](
                                                           error_code ec, std::size_t n) {
            if (!current(c, l)) return;
            if (ec) return fail(c, ec == asio::error::eof ? "closed by Redis" : ec.message());
            l->last_rx = Clock::now();
            redisReader* r = l->reader.get();
            if (redisReaderFeed(r, l->rbuf.data(), n) != REDIS_OK) {
                return fail(c, std::string("RESP: ") + r->errstr);
            }
            for (;;) {
                void* raw = nullptr;
                if (redisReaderGetReply(r, &raw) != REDIS_OK) {
                    return fail(c, std::string("RESP: ") + r->errstr);
                }
                if (!raw) break;
                ReplyPtr reply(static_cast<redisReply*>(raw));
                std::string error = &c == &sub_ ? on_sub_reply(*l, *reply) : on_pub_reply(*reply);
                if (!current(c, l)) return;  // stopped from a handler
                if (!error.empty()) return fail(c, error);
            }
            if (r->len - r->pos > kMaxReply) return fail(c, "a reply of more than 64 MiB");
            read(c, l);
        });
    }

    std::string on_sub_reply(Link& l, const redisReply& r) {
        if (r.type == REDIS_REPLY_ERROR) return "error reply: " + std::string(text(&r));
        if (r.type != REDIS_REPLY_ARRAY || r.elements < 1) return {};  // +PONG, no channels
        auto kind = text(r.element[0]);
        if (kind == "message" && r.elements == 3) {
            received_.fetch_add(1, std::memory_order_relaxed);
            notify(h_.message, std::string(text(r.element[1])), std::string(text(r.element[2])));
        } else if (kind == "subscribe") {
            if (++l.confirmed == channels_.size()) set_ready(sub_);
        }
        return {};  // "pong" to the heartbeat
    }

    std::string on_pub_reply(const redisReply& r) {
        if (pub_pending_.empty()) return "a reply to no command";
        Pending p = std::move(pub_pending_.front());
        pub_pending_.pop_front();
        if (p.ping) return {};
        if (r.type == REDIS_REPLY_INTEGER) {
            published_.fetch_add(1, std::memory_order_relaxed);
            notify(p.done, static_cast<long>(r.integer));
        } else {
            spdlog::warn("bus: PUBLISH failed: {}", text(&r));
            dropped_.fetch_add(1, std::memory_order_relaxed);
            notify(p.done, -1L);
        }
        return {};
    }

    void heartbeat(Conn& c, const std::shared_ptr<Link>& l) {
        l->timer.expires_after(kHeartbeat);
        l->timer.async_wait([this, self = shared_from_this(), &c, l](error_code ec) {
            if (ec || !current(c, l)) return;
            if (Clock::now() - l->last_rx > kSilence) return fail(c, "no answer for 15 s");
            append_command(l->out, {"PING"});
            if (&c == &pub_) pub_pending_.push_back({{}, true});
            flush(c, l);
            heartbeat(c, l);
        });
    }

    // Writes everything queued in one write, when none is in flight.
    void flush(Conn& c, const std::shared_ptr<Link>& l) {
        if (l->writing || l->out.empty()) return;
        l->writing = true;
        l->wbuf.clear();
        std::swap(l->out, l->wbuf);
        asio::async_write(l->sock, asio::buffer(l->wbuf),
                          [this, self = shared_from_this(), &c, l](error_code ec, std::size_t) {
                              l->writing = false;
                              if (!current(c, l)) return;
                              if (ec) return fail(c, "write: " + ec.message());
                              flush(c, l);
                          });
    }

    void do_publish(const std::string& channel, const std::string& payload,
                    std::function<void(long)> done) {
        const auto& l = pub_.link;
        bool full = l && l->out.size() + channel.size() + payload.size() > kMaxQueued;
        if (stopped_ || !pub_.ready || full) {
            dropped_.fetch_add(1, std::memory_order_relaxed);
            if (full) spdlog::debug("bus: PUBLISH dropped, {} bytes wait already", l->out.size());
            return notify(done, -1L);
        }
        append_command(l->out, {"PUBLISH", channel, payload});
        pub_pending_.push_back({std::move(done), false});
        flush(pub_, l);
    }

    asio::strand<asio::io_context::executor_type> strand_;
    std::string url_, host_;
    unsigned short port_ = 0;
    bool url_ok_ = false, started_ = false;
    std::vector<std::string> channels_;
    Handlers h_;
    Conn sub_, pub_;
    std::deque<Pending> pub_pending_;  // the publisher's commands sent or queued, in order
    Phase phase_ = Phase::starting;

    std::recursive_mutex cb_mu_;  // held while a user handler runs (stop() from one is fine)
    std::atomic<bool> stopped_{false}, healthy_{false};
    std::atomic<std::uint64_t> published_{0}, received_{0}, dropped_{0}, reconnects_{0};
};

Bus::Bus(asio::io_context& io, std::string url, std::vector<std::string> channels, Handlers h)
    : impl_(std::make_shared<Impl>(io, std::move(url), std::move(channels), std::move(h))) {}

Bus::~Bus() {
    impl_->stop();
}

void Bus::start() {
    impl_->start();
}
void Bus::stop() {
    impl_->stop();
}
void Bus::publish(std::string channel, std::string payload, std::function<void(long)> done) {
    impl_->publish(std::move(channel), std::move(payload), std::move(done));
}
bool Bus::healthy() const {
    return impl_->healthy();
}
Bus::Stats Bus::stats() const {
    return impl_->stats();
}

}  // namespace tf::server
