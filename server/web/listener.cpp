#include "server/web/listener.h"

#include <spdlog/spdlog.h>

#include <boost/asio/strand.hpp>
#include <cerrno>

#include "server/base/metrics.h"

namespace tf::server {

namespace net = boost::asio;

namespace {

// Failures that free descriptors or memory will end: wait for them instead of retrying at once.
bool resource_shortage(const boost::system::error_code& ec) {
    if (ec.category() != boost::system::system_category()) return false;
    const int e = ec.value();
    return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

}  // namespace

Listener::Listener(net::io_context& ioc, net::ip::tcp::endpoint ep, OnAccept on_accept)
    : ioc_(ioc), acceptor_(ioc), pause_(ioc), on_accept_(std::move(on_accept)) {
    acceptor_.open(ep.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(net::socket_base::max_listen_connections);
}

void Listener::run() {
    accept();
}

void Listener::stop() {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
        boost::system::error_code ec;
        self->acceptor_.close(ec);
        self->pause_.cancel();
    });
}

void Listener::accept() {
    acceptor_.async_accept(net::make_strand(ioc_),
                           [self = shared_from_this()](boost::system::error_code ec, Socket s) {
                               self->on_accept(ec, std::move(s));
                           });
}

void Listener::on_accept(boost::system::error_code ec, Socket s) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
    if (!ec) {
        if (failures_) {
            spdlog::warn("accept on port {}: accepting again after {} failures over {} ms", port(),
                         failures_,
                         std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - failing_since_)
                             .count());
            failures_ = 0;
            backoff_ = {};
        }
        s.set_option(net::ip::tcp::no_delay(true), ec);  // small messages, sent at once
        on_accept_(std::move(s));
        return accept();
    }
    ++metrics().accept_failures;
    if (!resource_shortage(ec)) {  // a connection reset before it was accepted, and the like
        spdlog::debug("accept on port {}: {}", port(), ec.message());
        return accept();
    }
    if (failures_++ == 0) {
        ++metrics().accept_pauses;
        failing_since_ = std::chrono::steady_clock::now();
        spdlog::error(
            "accept on port {}: {}; pausing new connections until descriptors free up "
            "(--max-connections keeps the server below RLIMIT_NOFILE; raise LimitNOFILE)",
            port(), ec.message());
    }
    backoff_ = backoff_.count() ? std::min(backoff_ * 2, std::chrono::milliseconds(1000))
                                : std::chrono::milliseconds(50);
    pause_.expires_after(backoff_);
    pause_.async_wait([self = shared_from_this()](boost::system::error_code e) {
        if (!e) self->accept();
    });
}

}  // namespace tf::server
