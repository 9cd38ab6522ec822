// Raw TCP transport: one JSON message per line, in both directions.
#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>
#include <deque>

#include "server/session.h"
#include "server/transports.h"

namespace tf::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

class TcpSession : public Session {
  public:
    TcpSession(tcp::socket s, Hub& hub) : Session(hub), sock_(std::move(s)) {}
    void start() {
        net::dispatch(sock_.get_executor(), [self = shared()] { self->read(); });
    }
    void deliver(Msg m) override {
        net::post(sock_.get_executor(), [self = shared(), m = std::move(m)] { self->enqueue(m); });
    }
    void close(std::string reason, bool now) override {
        net::post(sock_.get_executor(), [self = shared(), reason, now] {
            spdlog::info("tcp: closing: {}", reason);
            self->close_after_write_ = true;
            if (now || self->queue_.empty()) self->shutdown();
        });
    }

  protected:
    const char* transport() const override { return "tcp"; }

  private:
    std::shared_ptr<TcpSession> shared() {
        return std::static_pointer_cast<TcpSession>(shared_from_this());
    }
    void read() {
        net::async_read_until(sock_, net::dynamic_buffer(in_, proto::kMaxMessageBytes + 1), '\n',
                              [self = shared()](boost::system::error_code ec, std::size_t n) {
                                  self->on_read(ec, n);
                              });
    }
    void on_read(boost::system::error_code ec, std::size_t n) {
        if (ec == net::error::not_found) {  // no newline within the size limit
            spdlog::warn("tcp: message over {} bytes", proto::kMaxMessageBytes);
            send_error(proto::Err::TooLarge, "message larger than 16 KiB");
            return close("too large", false);
        }
        if (ec) return finish();
        std::string_view line(in_.data(), n - 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty()) on_text(line);
        in_.erase(0, n);
        if (!close_after_write_) read();
    }
    void enqueue(const Msg& m) {
        if (closed_ || close_after_write_) return;
        if (queue_.size() >= hub_.cfg.queue_limit) {
            spdlog::warn("tcp: outgoing queue full, disconnecting a slow reader");
            return shutdown();
        }
        queue_.push_back(m);
        if (queue_.size() == 1) write();
    }
    void write() {
        std::array<net::const_buffer, 2> bufs{net::buffer(*queue_.front()), net::buffer("\n", 1)};
        net::async_write(sock_, bufs, [self = shared()](boost::system::error_code ec, std::size_t) {
            if (ec || self->closed_) return self->shutdown();
            self->queue_.pop_front();
            if (!self->queue_.empty()) return self->write();
            if (self->close_after_write_) self->shutdown();
        });
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
        closed_ = true;  // a write in flight still owns queue_.front()
        on_closed();
    }

    tcp::socket sock_;
    std::string in_;
    std::deque<Msg> queue_;
    bool close_after_write_ = false;
    bool closed_ = false;
};

}  // namespace

void start_tcp_session(tcp::socket s, Hub& hub) {
    std::make_shared<TcpSession>(std::move(s), hub)->start();
}

}  // namespace tf::server
