// Accepts TCP connections on one endpoint; each new socket gets its own strand and is handed
// to `on_accept` (which starts an HTTP or a raw TCP session).
//
// When accept() fails for want of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) the
// listener pauses instead of trying again at once (which spins a core and floods the log): it
// waits 50 ms, doubling to 1 s while the failures go on, logs one line when such an episode
// starts and one when it ends, and counts both in /metrics. The connections it has are served
// meanwhile; the kernel holds new ones in the backlog until descriptors free up.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
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
    void on_accept(boost::system::error_code ec, Socket s);
    boost::asio::io_context& ioc_;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer pause_;
    OnAccept on_accept_;
    // The current episode of failing accepts (none when failures_ is 0).
    std::uint64_t failures_ = 0;
    std::chrono::milliseconds backoff_{0};
    std::chrono::steady_clock::time_point failing_since_{};
};

}  // namespace tf::server
