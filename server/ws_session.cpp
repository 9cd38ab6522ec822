// WebSocket transport: one JSON message per text frame. Binary frames get an error.
//
// Costs per connection and per message matter here (docs/BENCHMARKS.md, "Server under load"):
// the stream sits on a plain socket bound to a concrete strand type (no beast::tcp_stream
// timers, no type-erased executor on every operation; the WebSocket idle timeout and pings
// have their own timer), an idle connection keeps no read buffer and no queue storage, and a
// message goes out as a single frame with no compression.
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
    WsSession(Socket s, Hub& hub) : Session(hub), ws_(std::move(s)) { ++metrics().connections_ws; }
    ~WsSession() override { --metrics().connections_ws; }
    void start(http::request<http::string_body> req) {
        ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
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
        if (ec) return finish();
        const bool done = ws_.is_message_done();
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
    void finish() {
        if (closed_) return;
        closed_ = true;
        on_closed();
    }

    websocket::stream<Socket> ws_;
    std::array<char, 256> chunk_;  // most client messages (a turn: ~200 bytes) fit
    std::string long_;
    MsgQueue queue_;
    std::optional<std::string> close_reason_;
    bool dropped_ = false;  // cut off for not reading: nothing more is queued
    bool closed_ = false;
};

}  // namespace

// The HTTP session is done with the socket: it moves to a socket type bound to a strand of
// its own (same descriptor; Asio re-registers it with the reactor).
void start_ws_session(beast::tcp_stream stream, http::request<http::string_body> req, Hub& hub) {
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
    std::make_shared<WsSession>(std::move(s), hub)->start(std::move(req));
}

}  // namespace tf::server
