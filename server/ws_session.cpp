// WebSocket transport: one JSON message per text frame. Binary frames get an error.
//
// Costs per connection and per message matter here (docs/BENCHMARKS.md, "Server under load"):
// the stream sits on a plain socket bound to a concrete strand type (no beast::tcp_stream
// timers, no type-erased executor on every operation; the WebSocket idle timeout and pings
// have their own timer), an idle connection keeps no read buffer and no queue storage, and a
// message goes out as a single frame with no compression.
//
// Timeouts: Beast's timer (the stream has it anyway) sends a ping after --idle-seconds of
// silence and closes the connection when nothing at all arrives within as long again. It
// restarts on every byte, so the socket under the stream (TimedSocket) times frames: a message
// or control frame not complete --slow-seconds after its first byte arrived fails the read
// with timed_out when the next byte comes (a client that stops sending instead meets the idle
// timeout). Cost per connection: one time point and the limit.
#include "server/ws_session.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <vector>

#include "server/metrics.h"
#include "server/session.h"

namespace tf::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

namespace {

using Strand = net::strand<net::io_context::executor_type>;
using Socket = net::basic_stream_socket<net::ip::tcp, Strand>;
using Clock = std::chrono::steady_clock;

class TimedSocket : public Socket {
  public:
    TimedSocket(Socket s, Clock::duration limit) : Socket(std::move(s)), limit_(limit) {}
    // Hides Socket's: Beast reads through this one.
    template <class Buffers, class Handler>
    void async_read_some(const Buffers& buffers, Handler&& handler) {
        Socket::async_read_some(
            buffers, Arrival<std::decay_t<Handler>>{std::forward<Handler>(handler), this});
    }
    // A message or a control frame is complete: the next byte starts a new one.
    void frame_done() { since_ = {}; }

  private:
    // Completes a read of the socket; bytes of a frame begun too long ago turn into timed_out.
    // The handler's executor (the strand) and allocator stay associated.
    template <class Handler>
    struct Arrival {
        Handler handler;
        TimedSocket* socket;
        using executor_type = net::associated_executor_t<Handler, Socket::executor_type>;
        executor_type get_executor() const noexcept {
            return net::get_associated_executor(handler, socket->get_executor());
        }
        using allocator_type = net::associated_allocator_t<Handler>;
        allocator_type get_allocator() const noexcept {
            return net::get_associated_allocator(handler);
        }
        void operator()(boost::system::error_code ec, std::size_t n) {
            if (!ec && n > 0 && socket->overdue()) ec = net::error::timed_out;
            std::move(handler)(ec, n);
        }
        friend bool asio_handler_is_continuation(Arrival* a) {  // Beast's hint, passed on
            return boost_asio_handler_cont_helpers::is_continuation(a->handler);
        }
    };
    bool overdue() {
        auto now = Clock::now();
        if (since_ == Clock::time_point{}) {
            since_ = now;
            return false;
        }
        return now - since_ > limit_;
    }
    Clock::time_point since_{};  // first byte after the last complete frame; {} = none
    Clock::duration limit_;
};

// Beast closes its stream through this (its catch-all for unknown socket types refuses to
// compile): the plain socket's teardown.
template <class Handler>
void async_teardown(beast::role_type role, TimedSocket& s, Handler&& handler) {
    websocket::async_teardown(role, static_cast<Socket&>(s), std::forward<Handler>(handler));
}

Clock::duration seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// FIFO of outgoing messages: a ring that allocates nothing before the first message and grows
// by doubling (an empty std::deque already holds about 600 bytes).
class MsgQueue {
  public:
    bool empty() const { return n_ == 0; }
    std::size_t size() const { return n_; }
    const Msg& front() const { return ring_[head_]; }
    void push(Msg m) {
        if (n_ == ring_.size()) grow();
        ring_[(head_ + n_) & (ring_.size() - 1)] = std::move(m);
        ++n_;
    }
    void pop() {
        ring_[head_].reset();
        head_ = (head_ + 1) & (ring_.size() - 1);
        --n_;
    }
    // Drops everything but the message being written.
    void keep_front() {
        for (; n_ > 1; --n_) ring_[(head_ + n_ - 1) & (ring_.size() - 1)].reset();
    }

  private:
    void grow() {
        std::vector<Msg> bigger(ring_.empty() ? 4 : 2 * ring_.size());
        for (std::size_t i = 0; i < n_; ++i)
            bigger[i] = std::move(ring_[(head_ + i) & (ring_.size() - 1)]);
        ring_.swap(bigger);
        head_ = 0;
    }
    std::vector<Msg> ring_;  // size 0 or a power of two
    std::size_t head_ = 0, n_ = 0;
};

class WsSession : public Session {
  public:
    WsSession(Socket s, Hub& hub, ConnLimiter::Slot slot)
        : Session(hub),
          ws_(TimedSocket(std::move(s), seconds(hub.cfg.slow_seconds))),
          slot_(std::move(slot)) {
        ++metrics().connections_ws;
    }
    ~WsSession() override { --metrics().connections_ws; }
    void start(http::request<http::string_body> req) {
        websocket::stream_base::timeout t;
        t.handshake_timeout = seconds(hub_.cfg.handshake_seconds);  // also the closing handshake
        t.idle_timeout = seconds(2 * hub_.cfg.idle_seconds);        // Beast pings at half of it
        t.keep_alive_pings = true;
        ws_.set_option(t);
        // Pings, pongs and close frames complete a frame unless they arrive within a message.
        ws_.control_callback([this](websocket::frame_type, beast::string_view) {
            if (!in_message_) ws_.next_layer().frame_done();
        });
        websocket::permessage_deflate no_deflate;  // Beast's default, stated: never compress
        no_deflate.server_enable = no_deflate.client_enable = false;
        ws_.set_option(no_deflate);
        ws_.auto_fragment(false);  // one frame per message: one write, even for a snapshot
        ws_.read_message_max(proto::kMaxMessageBytes);
        ws_.text(true);
        ws_.async_accept(req, [self = shared()](beast::error_code ec) {
            if (ec) return self->finish();
            self->read();
        });
    }
    // From this connection's own strand (replies to its requests) the message is queued at
    // once; from elsewhere (rooms, the lobby) it is posted to the strand.
    void deliver(Msg m) override {
        if (ws_.get_executor().running_in_this_thread()) return enqueue(std::move(m));
        net::post(ws_.get_executor(),
                  [self = shared(), m = std::move(m)]() mutable { self->enqueue(std::move(m)); });
    }
    void close(std::string reason, bool now) override {
        net::post(ws_.get_executor(), [self = shared(), reason, now] {
            spdlog::info("ws#{}: closing: {}", self->conn_id_, reason);
            self->close_reason_ = reason;
            if (now) self->queue_.keep_front();
            if (self->queue_.empty()) self->do_close();
        });
    }

  protected:
    const char* transport() const override { return "ws"; }

  private:
    std::shared_ptr<WsSession> shared() {
        return std::static_pointer_cast<WsSession>(shared_from_this());
    }
    // A message arrives in pieces of at most chunk_'s size (Beast's own frame buffer holds what
    // the socket gave): a short one is used in place, a longer one is assembled in long_ and
    // freed afterwards, so an idle connection owns no read buffer on the heap.
    void read() {
        ws_.async_read_some(
            net::buffer(chunk_),
            [self = shared()](beast::error_code ec, std::size_t n) { self->on_read(ec, n); });
    }
    void on_read(beast::error_code ec, std::size_t n) {
        if (ec == websocket::error::message_too_big)
            spdlog::warn("ws#{}: message over {} bytes, closed", conn_id_, proto::kMaxMessageBytes);
        else if (ec == net::error::timed_out)
            spdlog::warn("ws#{}: a message left incomplete too long, disconnecting", conn_id_);
        else if (ec == beast::error::timeout)
            spdlog::warn("ws#{}: no answer to a ping within the idle time, disconnecting",
                         conn_id_);
        if (ec) return finish();
        const bool done = ws_.is_message_done();
        in_message_ = !done;
        if (done) ws_.next_layer().frame_done();
        if (!done || !long_.empty()) {
            long_.append(chunk_.data(), n);
            if (!done) return read();
        }
        if (!ws_.got_text()) {
            spdlog::warn("ws#{}: binary frame", conn_id_);
            send_error(proto::Err::BinaryFrame, "binary frames are not accepted");
        } else {
            on_text(long_.empty() ? std::string_view(chunk_.data(), n) : std::string_view(long_));
        }
        if (!long_.empty()) std::string().swap(long_);
        if (!closed_) read();
    }
    // May run inside this session's own request handling (deliver from its strand), so a slow
    // reader is only cut off here; the session ends in a handler of its own.
    void enqueue(Msg m) {
        if (closed_ || dropped_ || close_reason_) return;
        if (queue_.size() >= hub_.cfg.queue_limit) {
            spdlog::warn("ws#{}: outgoing queue full, disconnecting a slow reader", conn_id_);
            ++metrics().queue_drops;
            dropped_ = true;
            beast::error_code ec;
            beast::get_lowest_layer(ws_).close(ec);
            net::post(ws_.get_executor(), [self = shared()] { self->finish(); });
            return;
        }
        ++metrics().messages_out;
        queue_.push(std::move(m));
        if (queue_.size() == 1) write();
    }
    void write() {
        ws_.async_write(net::buffer(*queue_.front()),
                        [self = shared()](beast::error_code ec, std::size_t) {
                            if (ec || self->closed_) return self->finish();
                            self->queue_.pop();
                            if (!self->queue_.empty()) return self->write();
                            if (self->close_reason_) self->do_close();
                        });
    }
    void do_close() {
        if (closed_) return;
        websocket::close_reason cr(websocket::close_code::policy_error);
        cr.reason = close_reason_.value_or("closing");
        ws_.async_close(cr, [self = shared()](beast::error_code) { self->finish(); });
    }
    // The socket closes here (a write to a client that stopped reading would otherwise keep
    // the session, its descriptor and its per-address slot alive).
    void finish() {
        if (closed_) return;
        closed_ = true;
        beast::error_code ec;
        beast::get_lowest_layer(ws_).close(ec);
        on_closed();
    }

    websocket::stream<TimedSocket> ws_;
    ConnLimiter::Slot slot_;
    std::array<char, 256> chunk_;  // most client messages (a turn: ~200 bytes) fit
    std::string long_;
    MsgQueue queue_;
    std::optional<std::string> close_reason_;
    bool dropped_ = false;  // cut off for not reading: nothing more is queued
    bool closed_ = false;
    bool in_message_ = false;  // a data message has begun and not ended
};

}  // namespace

// The HTTP session is done with the socket: it moves to a socket type bound to a strand of
// its own (same descriptor; Asio re-registers it with the reactor).
void start_ws_session(beast::tcp_stream stream, http::request<http::string_body> req, Hub& hub,
                      ConnLimiter::Slot slot) {
    stream.expires_never();
    net::ip::tcp::socket plain = stream.release_socket();
    beast::error_code ec;
    auto protocol = plain.local_endpoint(ec).protocol();
    if (ec) return;  // the peer is already gone
    auto fd = plain.release(ec);
    if (ec) return;
    Socket s(net::make_strand(hub.ioc));
    s.assign(protocol, fd, ec);
    if (ec) {
        ::close(fd);
        spdlog::error("ws: cannot adopt the upgraded socket: {}", ec.message());
        return;
    }
    std::make_shared<WsSession>(std::move(s), hub, std::move(slot))->start(std::move(req));
}

}  // namespace tf::server
