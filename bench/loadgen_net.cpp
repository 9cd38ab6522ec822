#include "bench/loadgen_net.h"

#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

namespace tf::loadgen {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

void Conn::settled() {
    if (auto* c = std::exchange(connector_, nullptr)) c->done();
}

namespace {

class WsConn : public Conn {
  public:
    WsConn(Strand ex, ConnHandler& h, int tag) : Conn(h, tag), ws_(ex) {}
    void start(const tcp::endpoint& ep, const std::string& host) override {
        host_ = host;
        beast::get_lowest_layer(ws_).async_connect(
            ep, [self = shared()](beast::error_code ec) { self->on_connect(ec); });
    }
    void send(std::string text) override {
        if (failed) return;
        queue_.push_back(std::move(text));
        if (open && !writing_) write();
    }

  private:
    std::shared_ptr<WsConn> shared() {
        return std::static_pointer_cast<WsConn>(shared_from_this());
    }
    void on_connect(beast::error_code ec) {
        if (ec) return fail("connect", ec);
        beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true), ec);
        ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
        ws_.secure_prng(false);  // masking keys need no cryptographic quality here
        ws_.text(true);
        ws_.async_handshake(host_, "/ws", [self = shared()](beast::error_code ec) {
            if (ec) return self->fail("handshake", ec);
            self->open = true;
            self->settled();
            self->handler.on_open(*self);  // may send, and so start the first write
            if (!self->queue_.empty() && !self->writing_) self->write();
            self->read();
        });
    }
    void read() {
        ws_.async_read(buf_, [self = shared()](beast::error_code ec, std::size_t) {
            if (ec) return self->fail("read", ec);
            auto d = self->buf_.cdata();
            self->handler.on_message(
                *self, std::string_view(static_cast<const char*>(d.data()), d.size()));
            self->buf_.consume(self->buf_.size());
            if (!self->failed) self->read();
        });
    }
    // One message per write; Beast allows a single write in flight.
    void write() {
        writing_ = true;
        ws_.async_write(net::buffer(queue_.front()),
                        [self = shared()](beast::error_code ec, std::size_t) {
                            self->writing_ = false;
                            if (ec) return self->fail("write", ec);
                            self->queue_.pop_front();
                            if (!self->queue_.empty()) self->write();
                        });
    }
    void fail(const char* what, beast::error_code ec) {
        if (failed) return;
        failed = true;
        settled();
        handler.on_fail(*this, what, ec.message());
    }

    websocket::stream<beast::tcp_stream> ws_;
    beast::flat_buffer buf_;
    std::deque<std::string> queue_;
    std::string host_;
    bool writing_ = false;
};

// Raw TCP: lines in both directions. Everything queued while a write is in flight goes out in
// the next single write.
class TcpConn : public Conn {
  public:
    TcpConn(Strand ex, ConnHandler& h, int tag) : Conn(h, tag), sock_(ex) {}
    void start(const tcp::endpoint& ep, const std::string&) override {
        sock_.async_connect(ep, [self = shared()](boost::system::error_code ec) {
            if (ec) return self->fail("connect", ec);
            self->sock_.set_option(tcp::no_delay(true), ec);
            self->open = true;
            self->settled();
            self->handler.on_open(*self);
            if (!self->out_.empty() && !self->writing_) self->flush();
            self->read();
        });
    }
    void send(std::string text) override {
        if (failed) return;
        out_ += text;
        out_ += '\n';
        if (open && !writing_) flush();
    }

  private:
    std::shared_ptr<TcpConn> shared() {
        return std::static_pointer_cast<TcpConn>(shared_from_this());
    }
    void read() {
        sock_.async_read_some(net::buffer(chunk_),
                              [self = shared()](boost::system::error_code ec, std::size_t n) {
                                  if (ec) return self->fail("read", ec);
                                  self->on_bytes(n);
                              });
    }
    void on_bytes(std::size_t n) {
        std::string_view data(chunk_.data(), n);
        while (!failed) {
            auto nl = data.find('\n');
            if (nl == std::string_view::npos) break;
            if (partial_.empty()) {
                handler.on_message(*this, data.substr(0, nl));
            } else {
                partial_.append(data.substr(0, nl));
                handler.on_message(*this, partial_);
                partial_.clear();
            }
            data.remove_prefix(nl + 1);
        }
        partial_.append(data);
        if (!failed) read();
    }
    void flush() {
        writing_ = true;
        sending_.swap(out_);
        out_.clear();
        net::async_write(sock_, net::buffer(sending_),
                         [self = shared()](boost::system::error_code ec, std::size_t) {
                             self->writing_ = false;
                             if (ec) return self->fail("write", ec);
                             if (!self->out_.empty()) self->flush();
                         });
    }
    void fail(const char* what, boost::system::error_code ec) {
        if (failed) return;
        failed = true;
        settled();
        handler.on_fail(*this, what, ec.message());
    }

    tcp::socket sock_;
    std::array<char, 16384> chunk_;
    std::string partial_, out_, sending_;
    bool writing_ = false;
};

}  // namespace

std::shared_ptr<Conn> make_conn(Transport t, Strand ex, ConnHandler& h, int tag) {
    if (t == Transport::Ws) return std::make_shared<WsConn>(std::move(ex), h, tag);
    return std::make_shared<TcpConn>(std::move(ex), h, tag);
}

void Connector::add(std::shared_ptr<Conn> c) {
    std::unique_lock lock(m_);
    c->connector_ = this;
    waiting_.push_back(std::move(c));
    launch_locked(lock);
}

void Connector::done() {
    std::unique_lock lock(m_);
    --in_flight_;
    launch_locked(lock);
}

void Connector::launch_locked(std::unique_lock<std::mutex>& lock) {
    while (in_flight_ < parallel_ && !waiting_.empty()) {
        auto c = std::move(waiting_.front());
        waiting_.pop_front();
        ++in_flight_;
        lock.unlock();
        // Handlers run on the connection's strand, never inline.
        const auto& to = ep2_ && ep3_ && c->tag >= 2 ? (c->tag % 3 == 0   ? ep_
                                                        : c->tag % 3 == 1 ? *ep2_
                                                                          : *ep3_)
                         : ep2_ && c->tag % 2 == 1   ? *ep2_
                                                     : ep_;
        c->start(to, host_);
        lock.lock();
    }
}

}  // namespace tf::loadgen
