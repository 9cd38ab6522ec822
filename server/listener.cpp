#include "server/listener.h"

#include <spdlog/spdlog.h>

#include <boost/asio/strand.hpp>

namespace tf::server {

namespace net = boost::asio;

Listener::Listener(net::io_context& ioc, net::ip::tcp::endpoint ep, OnAccept on_accept)
    : ioc_(ioc), acceptor_(ioc), on_accept_(std::move(on_accept)) {
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
    });
}

void Listener::accept() {
    acceptor_.async_accept(net::make_strand(ioc_), [self = shared_from_this()](
                                                       boost::system::error_code ec, Socket s) {
        if (ec == net::error::operation_aborted) return;
        if (ec)
            spdlog::error("accept: {}", ec.message());
        else {
            s.set_option(net::ip::tcp::no_delay(true), ec);  // small messages, sent at once
            self->on_accept_(std::move(s));
        }
        self->accept();
    });
}

}  // namespace tf::server
