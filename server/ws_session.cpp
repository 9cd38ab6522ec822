// WebSocket transport: one JSON message per text frame. Binary frames get an error.
#include "server/ws_session.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>

#include "server/session.h"

namespace tf::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

namespace {

class WsSession : public Session {
  public:
    WsSession(beast::tcp_stream s, Hub& hub) : Session(hub), ws_(std::move(s)) {}
    void start(http::request<http::string_body> req) {
        ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
        ws_.read_message_max(proto::kMaxMessageBytes);
        ws_.text(true);
        ws_.async_accept(req, [self = shared()](beast::error_code ec) {
            if (ec) return self->finish();
            self->read();
        });
    }
    void deliver(Msg m) override {
        net::post(ws_.get_executor(), [self = shared(), m = std::move(m)] { self->enqueue(m); });
    }
    void close(std::string reason, bool now) override {
        net::post(ws_.get_executor(), [self = shared(), reason, now] {
            spdlog::info("ws: closing: {}", reason);
            self->close_reason_ = reason;
            if (now) self->queue_.resize(std::min<std::size_t>(self->queue_.size(), 1));
            if (self->queue_.empty()) self->do_close();
        });
    }

  protected:
    const char* transport() const override { return "ws"; }

  private:
    std::shared_ptr<WsSession> shared() {
        return std::static_pointer_cast<WsSession>(shared_from_this());
    }
    void read() {
        ws_.async_read(buf_,
                       [self = shared()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }
    void on_read(beast::error_code ec) {
        if (ec == websocket::error::message_too_big)
            spdlog::warn("ws: message over {} bytes, closed", proto::kMaxMessageBytes);
        if (ec) return finish();
        if (!ws_.got_text()) {
            spdlog::warn("ws: binary frame");
            send_error(proto::Err::BinaryFrame, "binary frames are not accepted");
        } else {
            auto data = buf_.cdata();
            on_text(std::string_view(static_cast<const char*>(data.data()), data.size()));
        }
        buf_.consume(buf_.size());
        if (!closed_) read();
    }
    void enqueue(const Msg& m) {
        if (closed_ || close_reason_) return;
        if (queue_.size() >= hub_.cfg.queue_limit) {
            spdlog::warn("ws: outgoing queue full, disconnecting a slow reader");
            beast::get_lowest_layer(ws_).close();
            return finish();
        }
        queue_.push_back(m);
        if (queue_.size() == 1) write();
    }
    void write() {
        ws_.async_write(net::buffer(*queue_.front()),
                        [self = shared()](beast::error_code ec, std::size_t) {
                            if (ec || self->closed_) return self->finish();
                            self->queue_.pop_front();
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

    websocket::stream<beast::tcp_stream> ws_;
    beast::flat_buffer buf_;
    std::deque<Msg> queue_;
    std::optional<std::string> close_reason_;
    bool closed_ = false;
};

}  // namespace

void start_ws_session(beast::tcp_stream stream, http::request<http::string_body> req, Hub& hub) {
    stream.expires_never();
    std::make_shared<WsSession>(std::move(stream), hub)->start(std::move(req));
}

}  // namespace tf::server
