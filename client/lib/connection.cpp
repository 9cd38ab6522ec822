#include "client/lib/connection.h"

#include "client/lib/traffic_log.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

namespace tf::client {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

nlohmann::json Connection::recv_type(const std::string& type) {
    for (;;) {
        auto j = recv();
        if (j.value("type", "") == type) return j;
    }
}

namespace {

class TcpConnection : public Connection {
  public:
    TcpConnection(const std::string& host, unsigned short port) : sock_(ioc_) {
        tcp::resolver r(ioc_);
        net::connect(sock_, r.resolve(host, std::to_string(port)));
        sock_.set_option(tcp::no_delay(true));
    }
    void send_text(const std::string& text) override {
        traffic::record("sent", "tcp", text);
        net::write(sock_, net::buffer(text + "\n"));
    }
    void send_binary(const std::string&) override {
        throw std::logic_error("no binary frames on TCP");
    }
    std::string recv_text() override { return *recv_line(-1); }
    std::optional<std::string> recv_text_for(std::chrono::milliseconds timeout) override {
        return recv_line(std::max<long long>(0, timeout.count()));
    }
    void close() override {
        boost::system::error_code ec;
        sock_.shutdown(tcp::socket::shutdown_both, ec);
        sock_.close(ec);
    }

  private:
    // The next line, waiting at most `timeout_ms` for it to be complete (-1: no limit).
    std::optional<std::string> recv_line(long long timeout_ms) {
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
        for (;;) {
            if (const std::size_t nl = in_.find('\n'); nl != std::string::npos) {
                std::string line = in_.substr(0, nl);
                in_.erase(0, nl + 1);
                traffic::record("recv", "tcp", line);
                return line;
            }
            int wait = -1;
            if (timeout_ms >= 0) {
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now());
                wait = int(std::clamp<long long>(left.count(), 0, 1 << 30));
            }
            pollfd p{sock_.native_handle(), POLLIN, 0};
            const int rc = ::poll(&p, 1, wait);
            if (rc < 0 && errno == EINTR) continue;
            if (rc < 0) throw Closed(std::strerror(errno));
            if (rc == 0) return std::nullopt;
            char buf[4096];
            boost::system::error_code ec;
            const std::size_t n = sock_.read_some(net::buffer(buf), ec);
            if (ec) throw Closed(ec.message());
            in_.append(buf, n);
        }
    }

    net::io_context ioc_;
    tcp::socket sock_;
    std::string in_;
};

class WsConnection : public Connection {
  public:
    WsConnection(const std::string& host, unsigned short port) : ws_(ioc_) {
        tcp::resolver r(ioc_);
        auto ep = net::connect(beast::get_lowest_layer(ws_), r.resolve(host, std::to_string(port)));
        beast::get_lowest_layer(ws_).set_option(tcp::no_delay(true));
        ws_.read_message_max(1 << 24);
        ws_.handshake(host + ":" + std::to_string(ep.port()), "/ws");
    }
    void send_text(const std::string& text) override {
        traffic::record("sent", "ws", text);
        ws_.text(true);
        ws_.write(net::buffer(text));
    }
    void send_binary(const std::string& data) override {
        traffic::record("sent", "ws", data, true);
        ws_.binary(true);
        ws_.write(net::buffer(data));
    }
    std::optional<std::string> recv_text_for(std::chrono::milliseconds) override {
        throw std::logic_error("no receive timeouts on WebSocket");
    }
    std::string recv_text() override {
        beast::flat_buffer buf;
        beast::error_code ec;
        ws_.read(buf, ec);
        if (ec) {
            std::string reason = ec.message();
            if (ec == websocket::error::closed)
                reason = std::string(ws_.reason().reason.data(), ws_.reason().reason.size());
            throw Closed(reason);
        }
        std::string text = beast::buffers_to_string(buf.data());
        traffic::record("recv", "ws", text, !ws_.got_text());
        return text;
    }
    void close() override {
        beast::error_code ec;
        ws_.close(websocket::close_code::normal, ec);
    }

  private:
    net::io_context ioc_;
    websocket::stream<tcp::socket> ws_;
};

}  // namespace

std::unique_ptr<Connection> connect_tcp(const std::string& host, unsigned short port) {
    return std::make_unique<TcpConnection>(host, port);
}
std::unique_ptr<Connection> connect_ws(const std::string& host, unsigned short port) {
    return std::make_unique<WsConnection>(host, port);
}

}  // namespace tf::client
