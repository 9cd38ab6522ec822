// Raw TCP transport: one JSON message per line, in both directions.
#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "server/base/metrics.h"
#include "server/net/client_address.h"
#include "server/net/io_errors.h"
#include "server/session/session.h"
#include "server/web/line_framer.h"
#include "server/web/outbox.h"
#include "server/web/transports.h"
#include "server/web/write_now.h"

namespace tf::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

class TcpSession : public Session {
  public:
    // `from_proxy`: the peer is a trusted proxy, whose PROXY protocol header (if the stream
    // starts with one) names the client.
    TcpSession(tcp::socket s, Hub& hub, ConnLimiter::Slot slot, std::string address,
               bool from_proxy)
        : Session(hub, std::move(address)),
          sock_(std::move(s)),
          slot_(std::move(slot)),
          proxy_pending_(from_proxy) {
        ++metrics().connections_tcp;
    }
    ~TcpSession() override { --metrics().connections_tcp; }
    void start() {
        net::dispatch(sock_.get_executor(), [self = shared()] {
            boost::system::error_code ec;
            self->sock_.non_blocking(true, ec);  // for write_now(); async operations are unchanged
            self->arm(self->hub_.cfg.handshake_seconds, "no message within the handshake time");
            self->read();
        });
    }
    // Queued on this connection's strand, at once when that is idle or the caller's (see
    // WsSession::deliver); a full queue ends the session in a handler of its own.
    void deliver(Msg m) override {
        net::dispatch(sock_.get_executor(),
                      [self = shared(), m = std::move(m)] { self->enqueue(m); });
    }
    // A room operation's messages for this connection: queued, then written at once.
    void deliver_all(std::vector<Msg> ms) override {
        net::dispatch(sock_.get_executor(), [self = shared(), ms = std::move(ms)] {
            bool start = false;
            for (const auto& m : ms) start |= self->enqueue(m, false);
            if (start) self->write();
        });
    }
    void close(std::string reason, bool now) override {
        net::post(sock_.get_executor(), [self = shared(), reason, now] {
            spdlog::info("{}: closing: {}", self->tag(), reason);
            self->close_after_write_ = true;
            if (now || !self->out_.writing()) self->shutdown();
        });
    }

  protected:
    const char* transport() const override { return "tcp"; }
    Store::Executor executor() override { return sock_.get_executor(); }

  private:
    std::shared_ptr<TcpSession> shared() {
        return std::static_pointer_cast<TcpSession>(shared_from_this());
    }
    void read() {
        sock_.async_read_some(net::buffer(chunk_),
                              [self = shared()](boost::system::error_code ec, std::size_t n) {
                                  self->on_read(ec, n);
                              });
    }
    void on_read(boost::system::error_code ec, std::size_t n) {
        if (ec) {  // a partial line at the end is dropped
            io_error(tag(), ec, "read");
            return finish();
        }
        if (proxy_pending_) return proxy_header(std::string_view(chunk_.data(), n));
        framer_.feed(std::string_view(chunk_.data(), n));
        next_line();
    }
    // The first bytes from a trusted proxy: a PROXY protocol header names the client (counted
    // under its address from now on); without one, the proxy's own connection.
    void proxy_header(std::string_view bytes) {
        proxy_buf_.append(bytes);
        auto h = parse_proxy_header(proxy_buf_);
        switch (h.status) {
            case ProxyHeader::Status::NeedMore:
                return read();  // within the handshake time armed at start
            case ProxyHeader::Status::Bad:
                spdlog::warn("{}: {}, disconnecting", tag(), h.why);
                return shutdown();
            case ProxyHeader::Status::NotProxy:
                h.length = 0;
                break;
            case ProxyHeader::Status::Done:
                if (h.source) {
                    set_address(h.source->to_string());
                    if (!slot_.rekey(*h.source)) {
                        metrics().reject(proto::Err::TooManyConnections);
                        send_error(proto::Err::TooManyConnections,
                                   "too many connections from your address");
                        return close("too many connections from the address", false);
                    }
                }
                break;
        }
        proxy_pending_ = false;
        framer_.feed(std::string_view(proxy_buf_).substr(h.length));
        std::string().swap(proxy_buf_);
        next_line();
    }
    // One line per handler, as a read per line did: a close posted by on_text runs in between.
    void next_line() {
        if (close_after_write_ || closed_) return;
        auto r = framer_.next();
        if (r.status == LineFramer::Status::NeedMore) {
            if (greeted_ && !partial_ && framer_.pending() > 0) {  // a line has begun
                partial_ = true;
                arm(hub_.cfg.slow_seconds, "a message left incomplete too long");
            }
            return read();
        }
        if (r.status == LineFramer::Status::TooLong) {  // no newline within the size limit
            spdlog::warn("tcp: message over {} bytes", proto::kMaxMessageBytes);
            send_error(proto::Err::TooLarge, "message larger than 16 KiB");
            return close("too large", false);
        }
        if (!greeted_ || partial_) slow_.cancel();  // a complete line: the deadlines are met
        greeted_ = true;
        partial_ = false;
        on_text(r.line);
        net::post(sock_.get_executor(), [self = shared()] { self->next_line(); });
    }
    // Slow or silent senders (slowloris): no first message within the handshake time, or a
    // message that stays incomplete, closes the connection.
    void arm(double seconds, const char* why) {
        slow_.expires_after(std::chrono::milliseconds(std::int64_t(seconds * 1000)));
        slow_.async_wait([self = shared(), why](boost::system::error_code ec) {
            if (ec || self->closed_) return;
            spdlog::warn("{}: {}, disconnecting", self->tag(), why);
            self->shutdown();
        });
    }
    // True when the caller must start the write (post_write false).
    bool enqueue(const Msg& original, bool post_write = true) {
        if (closed_ || close_after_write_) return false;
        const Msg m = screen(original);
        if (!m) return false;
        bool start = false;
        switch (out_.push({m})) {
            case Outbox::Push::Full:
                spdlog::warn("{}: outgoing queue full, disconnecting a slow reader", tag());
                ++metrics().queue_drops;
                close_after_write_ = true;  // nothing more is queued; the end in a handler
                net::post(sock_.get_executor(), [self = shared()] { self->shutdown(); });
                return false;
            case Outbox::Push::StartWrite:
                if (!post_write)
                    start = true;
                else
                    net::post(sock_.get_executor(), [self = shared()] { self->write(); });
                break;
            case Outbox::Push::Queued:
                break;
        }
        ++metrics().messages_out;
        return start;
    }
    void write() {
        if (closed_) return;
        auto now = write_now(sock_, out_.next_write().buffers);
        if (now.done()) return written({});
        if (now.error)  // handled in a handler of its own: a delivery never ends the session
            return net::post(sock_.get_executor(),
                             [self = shared(), ec = now.error] { self->written(ec); });
        net::async_write(
            sock_, std::move(now.rest),
            [self = shared()](boost::system::error_code ec, std::size_t) { self->written(ec); });
    }
    void written(boost::system::error_code ec) {
        if (ec) io_error(tag(), ec, "write");
        if (ec || closed_) return shutdown();
        if (out_.written()) return write();
        if (close_after_write_) shutdown();
    }
    void shutdown() {
        if (closed_) return;
        boost::system::error_code ec;
        sock_.shutdown(tcp::socket::shutdown_both, ec);
        sock_.close(ec);
        finish();
    }
    void finish() {
        if (closed_) return;
        closed_ = true;  // a write in flight still owns the outbox's messages
        slow_.cancel();
        on_closed();
    }

    tcp::socket sock_;
    ConnLimiter::Slot slot_;  // this connection's place under --max-connections(-per-ip)
    bool proxy_pending_;      // a trusted proxy's PROXY header may still come
    std::string proxy_buf_;   // its bytes so far
    net::steady_timer slow_{sock_.get_executor()};
    bool greeted_ = false;  // a complete message arrived
    bool partial_ = false;  // slow_ runs for an incomplete message
    std::array<char, 4096> chunk_;
    LineFramer framer_{proto::kMaxMessageBytes};
    Outbox out_{Outbox::Framing::Lines, hub_.cfg.queue_limit};
    bool close_after_write_ = false;
    bool closed_ = false;
};

}  // namespace

void start_tcp_session(tcp::socket s, Hub& hub) {
    boost::system::error_code ec;
    auto peer = s.remote_endpoint(ec);
    if (ec) return;  // already gone
    const bool from_proxy = hub.trusted.contains(peer.address());
    ConnLimiter::Refusal why{};
    auto slot = hub.conn_limit.acquire(peer.address(), !from_proxy, &why);
    if (!slot) {
        metrics().reject(proto::Err::TooManyConnections);
        auto line = [](const char* message) {
            return proto::to_text(
                       proto::ErrorMsg{proto::Err::TooManyConnections, message, {}, {}, {}}) +
                   "\n";
        };
        static const std::string address = line("too many connections from your address"),
                                 full = line("the server is full; try again in a moment");
        return refuse_connection(s, why == ConnLimiter::Refusal::Full ? full : address);
    }
    std::make_shared<TcpSession>(std::move(s), hub, std::move(*slot), peer.address().to_string(),
                                 from_proxy)
        ->start();
}

}  // namespace tf::server
