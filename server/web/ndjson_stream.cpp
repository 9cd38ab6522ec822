#include "server/web/ndjson_stream.h"

#include <spdlog/spdlog.h>

#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdio>

namespace tf::server {

namespace net = boost::asio;

namespace {
constexpr auto kKeepAlive = std::chrono::seconds(7);
constexpr std::size_t kMaxQueued = 4 << 20;  // bytes a reader that does not read may fall behind
}  // namespace

NdjsonStream::NdjsonStream(net::ip::tcp::socket socket, ConnLimiter::Slot slot, std::string head)
    : sock_(std::move(socket)),
      slot_(std::move(slot)),
      head_(std::move(head)),
      timer_(sock_.get_executor()) {}

void NdjsonStream::start(std::function<void()> closed) {
    closed_fn_ = std::move(closed);
    read();
    keep_alive();
}

void NdjsonStream::open() {
    if (opened_) return;
    opened_ = true;
    queue(head_ + "Transfer-Encoding: chunked\r\n\r\n");
}

void NdjsonStream::line(const std::string& text) {
    if (ending_) return;
    open();
    std::string l = text;
    while (!l.empty() && l.back() == '\n') l.pop_back();
    l += '\n';
    char size[20];
    std::snprintf(size, sizeof size, "%zx\r\n", l.size());
    queue(size + l + "\r\n");
    wrote_ = true;
}

// The stream's head with the refusal's status and type in place of 200 and NDJSON.
void NdjsonStream::refuse(const ApiResponse& a) {
    if (ending_ || opened_) return end();
    const char* reason = a.status == 404 ? "Not Found" : a.status == 403 ? "Forbidden" : "Error";
    constexpr std::string_view kNdjson = "application/x-ndjson";
    std::string h = head_;
    h.replace(0, h.find("\r\n"), "HTTP/1.1 " + std::to_string(a.status) + " " + reason);
    if (auto at = h.find(kNdjson); at != std::string::npos)
        h.replace(at, kNdjson.size(), a.content_type);
    opened_ = true;
    queue(h + "Content-Length: " + std::to_string(a.body.size()) + "\r\n\r\n" + a.body);
    ending_ = true;
}

void NdjsonStream::end() {
    if (ending_) return;
    open();
    ending_ = true;
    queue("0\r\n\r\n");
}

void NdjsonStream::queue(std::string bytes) {
    if (closed_) return;
    queued_ += bytes.size();
    if (queued_ > kMaxQueued) {
        spdlog::warn("http stream: the reader fell {} bytes behind; closing", queued_);
        return shutdown();
    }
    out_.push_back(std::move(bytes));
    if (!writing_) write();
}

void NdjsonStream::write() {
    if (out_.empty()) {
        writing_ = false;
        if (ending_) shutdown();
        return;
    }
    writing_ = true;
    net::async_write(sock_, net::buffer(out_.front()),
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                         if (ec) return self->shutdown();
                         self->queued_ -= self->out_.front().size();
                         self->out_.pop_front();
                         self->write();
                     });
}

// The client says nothing more; a read ends when it goes away.
void NdjsonStream::read() {
    sock_.async_read_some(net::buffer(scratch_),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                              if (ec) return self->shutdown();
                              self->read();
                          });
}

void NdjsonStream::keep_alive() {
    timer_.expires_after(kKeepAlive);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec || self->closed_) return;
        if (self->opened_ && !self->wrote_ && !self->ending_) self->queue("1\r\n\n\r\n");
        self->wrote_ = false;
        self->keep_alive();
    });
}

void NdjsonStream::shutdown() {
    if (closed_) return;
    closed_ = true;
    timer_.cancel();
    boost::system::error_code ec;
    sock_.shutdown(net::ip::tcp::socket::shutdown_both, ec);
    sock_.close(ec);
    if (auto fn = std::exchange(closed_fn_, {})) fn();
}

}  // namespace tf::server
