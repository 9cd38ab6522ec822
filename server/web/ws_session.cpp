// WebSocket transport: one JSON message per text frame. Binary frames get an error.
//
// The server speaks RFC 6455 itself over the Asio socket (framing in server/web/ws_framer.h; the
// upgrade request is parsed by Beast's HTTP in http_session.cpp). Beast's websocket::stream was
// used before; it holds about 2.8 KB of buffers and state per connection before the first byte
// (docs/BENCHMARKS.md, "Server under load"), more than the rest of a connection together. What
// this session keeps instead: the socket, one timer, a 256-byte read chunk, the framer's two
// buffers (empty between messages) and the outgoing queue (allocated on the first message).
// Messages are never compressed (no extension is negotiated) and never fragmented; everything
// queued while a write is in flight leaves in the next single gather write (an ack and the event
// that follows it: one sendmsg), built by the outbox both transports share (server/web/outbox.h).
//
// Timeouts, all on the one timer: a ping after --idle-seconds without a byte from the client, a
// close when nothing at all arrives within as long again; a frame (or fragmented message) not
// complete --slow-seconds after its first byte closes the connection even if bytes keep
// dripping; after the server's close frame the client has --handshake-seconds to answer it.
#include "server/web/ws_session.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <vector>

#include "server/base/metrics.h"
#include "server/base/time.h"
#include "server/net/io_errors.h"
#include "server/room/lag.h"
#include "server/session/session.h"
#include "server/web/outbox.h"
#include "server/web/write_now.h"
#include "server/web/ws_framer.h"

namespace tf::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

using Strand = net::strand<net::io_context::executor_type>;
using Socket = net::basic_stream_socket<net::ip::tcp, Strand>;
using Clock = std::chrono::steady_clock;
using Timer = net::basic_waitable_timer<Clock, net::wait_traits<Clock>, Strand>;

class WsSession : public Session {
  public:
    WsSession(Socket s, Hub& hub, ConnLimiter::Slot slot, std::string address)
        : Session(hub, std::move(address)),
          sock_(std::move(s)),
          timer_(sock_.get_executor()),
          slot_(std::move(slot)) {
        ++metrics().connections_ws;
    }
    ~WsSession() override { --metrics().connections_ws; }
    // Sends the 101 answer, then reads frames.
    void start(std::string response) {
        auto r = std::make_shared<std::string>(std::move(response));
        net::post(sock_.get_executor(), [self = shared(), r] {
            boost::system::error_code ec;
            self->sock_.non_blocking(true, ec);  // for write_now(); async operations are unchanged
            self->last_rx_ = Clock::now();
            self->arm();
            net::async_write(self->sock_, net::buffer(*r),
                             [self, r](boost::system::error_code ec, std::size_t) {
                                 if (ec) return self->fail(ec, "write the handshake");
                                 if (self->probe_every_ > Clock::duration::zero()) {
                                     self->next_probe_ = Clock::now();  // a first measure now
                                     self->arm();
                                 }
                                 self->read();
                             });
        });
    }
    // Queued on this connection's strand: at once when the caller runs there or the strand is
    // idle (net::dispatch: whatever was posted to the strand before still goes first), else
    // behind what it is running. Queueing never ends the session synchronously, so a caller
    // holding a lock of its own may deliver.
    void deliver(Msg m) override {
        net::dispatch(sock_.get_executor(), [self = shared(), m = std::move(m)]() mutable {
            self->enqueue(std::move(m));
        });
    }
    // A room operation's messages for this connection (an ack and its event): queued, then
    // written at once in one sendmsg, with no handler in between.
    void deliver_all(std::vector<Msg> ms) override {
        net::dispatch(sock_.get_executor(), [self = shared(), ms = std::move(ms)]() mutable {
            bool start = false;
            for (auto& m : ms) start |= self->enqueue(std::move(m), false);
            if (start) self->write();
        });
    }
    void close(std::string reason, bool now) override {
        net::post(sock_.get_executor(), [self = shared(), reason, now] {
            if (self->closed_ || self->close_sent_) return;
            spdlog::info("{}: closing: {}", self->tag(), reason);
            self->close_reason_ = reason;
            if (now) self->out_.drop_unsent();
            if (!self->out_.writing()) self->send_close(1008, reason);  // policy violation
        });
    }

  protected:
    const char* transport() const override { return "ws"; }
    Store::Executor executor() override { return sock_.get_executor(); }

  private:
    std::shared_ptr<WsSession> shared() {
        return std::static_pointer_cast<WsSession>(shared_from_this());
    }

    void read() {
        sock_.async_read_some(net::buffer(chunk_),
                              [self = shared()](boost::system::error_code ec, std::size_t n) {
                                  self->on_read(ec, n);
                              });
    }
    void on_read(boost::system::error_code ec, std::size_t n) {
        if (ec) return fail(ec, "read");
        last_rx_ = Clock::now();
        ping_sent_ = false;
        framer_.feed(std::string_view(chunk_.data(), n));
        next_frame();
    }
    // One message per handler, as a read per message did: a close posted by on_text runs in
    // between.
    void next_frame() {
        if (closed_) return;
        auto r = framer_.next();
        // A frame is complete; its deadline ends, unless it was a control frame between the
        // fragments of a message, whose deadline runs on.
        if (r.status != WsFramer::Status::NeedMore && !framer_.in_fragmented_message())
            frame_since_ = {};
        switch (r.status) {
            case WsFramer::Status::NeedMore:
                if (!framer_.mid_message()) {
                    frame_since_ = {};
                } else if (frame_since_ == Clock::time_point{}) {  // a frame has begun
                    frame_since_ = last_rx_;
                    if (frame_since_ + slow_ < timer_.expiry()) arm();
                }
                return read();
            case WsFramer::Status::Text:
                if (!close_sent_) on_text(r.payload);
                break;
            case WsFramer::Status::Binary:
                spdlog::warn("{}: binary frame", tag());
                if (!close_sent_)
                    send_error(proto::Err::BinaryFrame, "binary frames are not accepted");
                break;
            case WsFramer::Status::Ping:  // a ping costs a message credit, as a message does
                if (!close_sent_ && pay_for_control())
                    push({std::make_shared<const std::string>(r.payload), ws_opcode::kPong});
                break;
            case WsFramer::Status::Pong:
                on_pong(r.payload);
                break;
            case WsFramer::Status::Close:
                peer_closed_ = true;
                if (close_sent_) return finish();  // the answer to ours: done
                out_.drop_unsent();
                // Echo the client's code (none if it gave none), then close the connection.
                send_close(r.code, "", r.code != 1005);
                return read();  // until the echo is written; EOF or errors just end it
            case WsFramer::Status::Error:
                if (r.code == 1009)
                    spdlog::warn("{}: message over {} bytes, closed", tag(),
                                 proto::kMaxMessageBytes);
                else
                    spdlog::warn("{}: protocol error ({}), closed", tag(), r.why);
                out_.drop_unsent();
                send_close(r.code, r.why);
                return read();
        }
        if (framer_.mid_message()) {  // more bytes are buffered: the next frame in a handler
            net::post(sock_.get_executor(), [self = shared()] { self->next_frame(); });
        } else {
            read();
        }
    }

    // The single timer: the earliest of the frame deadline, the idle ping or close, and the
    // closing handshake's deadline. Activity only moves time stamps; the timer, when it fires,
    // looks at them and sets itself again.
    Clock::time_point deadline() const {
        auto t = last_rx_ + (ping_sent_ ? 2 * idle_ : idle_);
        if (next_probe_ != Clock::time_point{}) t = std::min(t, next_probe_);
        if (frame_since_ != Clock::time_point{}) t = std::min(t, frame_since_ + slow_);
        if (close_sent_) t = std::min(t, close_by_);
        return t;
    }
    void arm() {
        timer_.expires_at(deadline());
        timer_.async_wait([self = shared()](boost::system::error_code ec) {
            if (!ec) self->on_timer();
        });
    }
    void on_timer() {
        if (closed_) return;
        const auto now = Clock::now();
        if (close_sent_ && now >= close_by_) return finish();
        if (frame_since_ != Clock::time_point{} && now - frame_since_ >= slow_) {
            spdlog::warn("{}: a message left incomplete too long, disconnecting", tag());
            return finish();
        }
        if (now - last_rx_ >= 2 * idle_) {
            spdlog::warn("{}: no answer to a ping within the idle time, disconnecting", tag());
            return finish();
        }
        if (now - last_rx_ >= idle_ && !ping_sent_ && !close_sent_) {
            ping_sent_ = true;
            push({empty_payload(), ws_opcode::kPing});
        }
        if (next_probe_ != Clock::time_point{} && now >= next_probe_) {
            next_probe_ = now + probe_every_;
            if (!close_sent_) send_probe(now);
        }
        arm();
    }

    // Lag probes (PROTOCOL.md "Lag"): a ping whose payload is a number of ours; the browser
    // answers it at once with a pong of the same payload, and the time between is the round
    // trip. A pong that does not answer the probe in flight (unsolicited, late, or made up)
    // measures nothing.
    void send_probe(Clock::time_point now) {
        ++probe_id_;
        probe_sent_ = now;
        auto payload = std::make_shared<std::string>(8, '\0');
        for (int i = 0; i < 8; ++i)
            (*payload)[std::size_t(i)] = char((probe_id_ >> (8 * i)) & 0xff);
        push({std::move(payload), ws_opcode::kPing});
    }
    void on_pong(std::string_view payload) {
        if (!probe_sent_ || payload.size() != 8) return;
        std::uint64_t id = 0;
        for (int i = 0; i < 8; ++i)
            id |= std::uint64_t(std::uint8_t(payload[std::size_t(i)])) << (8 * i);
        if (id != probe_id_) return;
        lag_.add(std::chrono::duration_cast<LagEstimate::Duration>(last_rx_ - *probe_sent_));
        probe_sent_.reset();
    }
    std::optional<std::int64_t> turn_lag_ms(std::optional<std::int64_t>) const override {
        auto v = lag_.value();
        if (!v) return std::nullopt;
        return std::min<std::int64_t>((v->count() + 500) / 1000, proto::kMaxLagMs);
    }
    static const Msg& empty_payload() {
        static const Msg empty = std::make_shared<const std::string>();
        return empty;
    }

    // May run inside this session's own request handling (deliver from its strand), so a slow
    // reader is only cut off here; the session ends in a handler of its own.
    // True when the caller must start the write (post_write false).
    bool enqueue(Msg m, bool post_write = true) {
        if (closed_ || dropped_ || close_reason_ || close_sent_) return false;
        m = screen(std::move(m));
        if (!m) return false;
        ++metrics().messages_out;
        return push({std::move(m), ws_opcode::kText}, post_write);
    }
    bool push(Out o, bool post_write = true) {
        if (closed_ || dropped_) return false;
        switch (out_.push(std::move(o))) {
            case Outbox::Push::Full: {
                spdlog::warn("{}: outgoing queue full, disconnecting a slow reader", tag());
                ++metrics().queue_drops;
                dropped_ = true;
                boost::system::error_code ec;
                sock_.close(ec);
                net::post(sock_.get_executor(), [self = shared()] { self->finish(); });
                return false;
            }
            case Outbox::Push::StartWrite:
                if (!post_write) return true;
                net::post(sock_.get_executor(), [self = shared()] { self->write(); });
                return false;
            case Outbox::Push::Queued:
                return false;
        }
        return false;
    }
    void write() {
        if (closed_) return;
        if (out_.empty()) return on_written({}, false);  // drop_unsent() emptied a pending write
        auto batch = out_.next_write();
        auto now = write_now(sock_, batch.buffers);
        if (now.done()) return on_written({}, batch.closes);
        if (now.error)  // handled in a handler of its own: a delivery never ends the session
            return net::post(sock_.get_executor(),
                             [self = shared(), ec = now.error, closes = batch.closes] {
                                 self->on_written(ec, closes);
                             });
        net::async_write(
            sock_, std::move(now.rest),
            [self = shared(), closes = batch.closes](boost::system::error_code ec, std::size_t) {
                self->on_written(ec, closes);
            });
    }
    void on_written(boost::system::error_code ec, bool closes) {
        if (ec) return fail(ec, "write");
        if (closed_) return;
        const bool more = out_.written();
        if (closes) {  // nothing follows a close frame
            if (peer_closed_) return finish();
            boost::system::error_code ignored;
            sock_.shutdown(net::ip::tcp::socket::shutdown_send, ignored);
            return;  // reading goes on until the client's close, EOF or close_by_
        }
        if (more) return write();
        if (close_reason_ && !close_sent_) send_close(1008, *close_reason_);
    }
    // Queues a close frame (code and reason, at most 125 bytes) as the last frame.
    void send_close(std::uint16_t code, std::string_view reason, bool with_code = true) {
        if (close_sent_ || closed_) return;
        close_sent_ = true;
        close_by_ = Clock::now() + steady_seconds(hub_.cfg.handshake_seconds);
        std::string payload;
        if (with_code) {
            payload = {char(code >> 8), char(code & 0xff)};
            reason = reason.substr(0, 123);
            while (!valid_utf8(reason)) reason.remove_suffix(1);
            payload.append(reason);
        }
        push({std::make_shared<const std::string>(std::move(payload)), ws_opcode::kClose});
        arm();
    }
    void fail(boost::system::error_code ec, const char* what) {
        if (!closed_) io_error(tag(), ec, what);
        finish();
    }
    // The socket closes here (a write to a client that stopped reading would otherwise keep
    // the session, its descriptor and its per-address slot alive).
    void finish() {
        if (closed_) return;
        closed_ = true;
        boost::system::error_code ec;
        sock_.close(ec);
        timer_.cancel();
        on_closed();
    }

    Socket sock_;
    Timer timer_;
    ConnLimiter::Slot slot_;
    const Clock::duration idle_ = steady_seconds(hub_.cfg.idle_seconds);
    const Clock::duration slow_ = steady_seconds(hub_.cfg.slow_seconds);
    const Clock::duration probe_every_ = steady_seconds(hub_.cfg.lag_probe_seconds);
    Clock::time_point next_probe_{};               // the next lag probe; {} = not yet / never
    std::optional<Clock::time_point> probe_sent_;  // the probe in flight
    std::uint64_t probe_id_ = 0;
    LagEstimate lag_;                  // this connection's round trip
    Clock::time_point last_rx_{};      // the last byte from the client
    Clock::time_point frame_since_{};  // first byte of the incomplete frame; {} = none
    Clock::time_point close_by_{};     // after our close frame: the client's answer is due
    std::array<char, 256> chunk_;      // most client messages (a turn: ~200 bytes) fit
    WsFramer framer_{proto::kMaxMessageBytes};
    Outbox out_{Outbox::Framing::WebSocket, hub_.cfg.queue_limit};
    std::optional<std::string> close_reason_;  // close() asked: a close frame after the queue
    bool ping_sent_ = false;                   // since the last byte from the client
    bool close_sent_ = false;                  // our close frame is queued: nothing else follows it
    bool peer_closed_ = false;                 // the client's close frame arrived
    bool dropped_ = false;                     // cut off for not reading: nothing more is queued
    bool closed_ = false;
};

}  // namespace

std::optional<std::string> ws_upgrade_refusal(
    const boost::beast::http::request<boost::beast::http::string_body>& req) {
    if (req[http::field::sec_websocket_version] != "13") return "unsupported WebSocket version";
    auto key = req[http::field::sec_websocket_key];
    if (key.empty() || key.size() > ws_max_key_size()) return "bad Sec-WebSocket-Key";
    return std::nullopt;
}

// The HTTP session is done with the socket: it moves to a socket type bound to a strand of
// its own (same descriptor; Asio re-registers it with the reactor).
void start_ws_session(beast::tcp_stream stream, http::request<http::string_body> req, Hub& hub,
                      ConnLimiter::Slot slot, std::string address) {
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
    const auto key = req[http::field::sec_websocket_key];
    std::string response =
        "HTTP/1.1 101 Switching Protocols\r\nServer: trunkfield\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Accept: ";
    response += ws_accept_key(std::string_view(key.data(), key.size()));
    response += "\r\n\r\n";
    std::make_shared<WsSession>(std::move(s), hub, std::move(slot), address)
        ->start(std::move(response));
}

}  // namespace tf::server
