// Accepts TCP connections on one endpoint; each new socket gets its own strand and is handed
// to `on_accept` (which starts an HTTP or a raw TCP session).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>

namespace tf::server {

class Listener : public std::enable_shared_from_this<Listener> {
  public:
    using Socket = boost::asio::ip::tcp::socket;
    using OnAccept = std::function<void(Socket)>;
    // Throws boost::system::system_error when the endpoint cannot be bound.
    Listener(boost::asio::io_context& ioc, boost::asio::ip::tcp::endpoint ep, OnAccept on_accept);
    unsigned short port() const { return acceptor_.local_endpoint().port(); }
    void run();
    void stop();

  private:
    void accept();
    boost::asio::io_context& ioc_;
    boost::asio::ip::tcp::acceptor acceptor_;
    OnAccept on_accept_;
};

}  // namespace tf::server
