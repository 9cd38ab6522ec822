// One NDJSON answer written as HTTP/1.1 chunks on a socket the HTTP session handed over: the
// writing half the API's streams share (an account's events, a game's, a tournament's
// standings). It writes the head before the first line, an empty keep-alive line when nothing
// else went out for a while, and closes when the reader goes away, falls too far behind, or the
// stream ends. What to write is its owner's.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "server/net/conn_limit.h"
#include "server/web/history_api.h"

namespace tf::server {

class NdjsonStream : public std::enable_shared_from_this<NdjsonStream> {
  public:
    // `head`: the answer's status line and headers up to (without) the final CRLF, with
    // Content-Type application/x-ndjson; the stream adds Transfer-Encoding.
    NdjsonStream(boost::asio::ip::tcp::socket socket, ConnLimiter::Slot slot, std::string head);
    // Starts watching for the reader's leaving, and the keep-alives. `closed` runs once, on the
    // socket's executor, when the socket closes for any reason; the owner stops feeding it then
    // (and may keep itself alive through it until then).
    void start(std::function<void()> closed);
    // Writes the head (200, NDJSON) now, before any line.
    void open();
    // One line (a trailing newline is added when missing); the head first if not written yet.
    void line(const std::string& text);
    // Answers with `a` in place of the stream (a status other than 200), then closes.
    void refuse(const ApiResponse& a);
    // The last chunk, then closes once it is written.
    void end();
    bool opened() const { return opened_; }
    bool ended() const { return ending_ || closed_; }
    boost::asio::any_io_executor executor() { return sock_.get_executor(); }

  private:
    void queue(std::string bytes);
    void write();
    void read();
    void keep_alive();
    void shutdown();

    boost::asio::ip::tcp::socket sock_;
    ConnLimiter::Slot slot_;
    const std::string head_;
    boost::asio::steady_timer timer_;
    std::function<void()> closed_fn_;
    std::deque<std::string> out_;
    std::size_t queued_ = 0;
    std::array<char, 512> scratch_{};
    bool opened_ = false, writing_ = false, wrote_ = false, ending_ = false, closed_ = false;
};

}  // namespace tf::server
