// A connection's write tried at once (both transports, server/web/outbox.h): on a socket in
// non-blocking mode, one sendmsg takes the whole batch in the usual case, and nothing then
// waits for a completion handler (with Asio's async_write, each write cost one more trip
// through the scheduler and its epoll_wait). What the socket did not take is written
// asynchronously.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/system/error_code.hpp>
#include <vector>

namespace tf::server {

struct WriteNow {
    boost::system::error_code error;              // the write failed: nothing more to do
    std::vector<boost::asio::const_buffer> rest;  // not taken yet: write it asynchronously
    bool done() const { return !error && rest.empty(); }
};

// `socket` must be non-blocking (basic_socket::non_blocking(true)).
template <class Socket>
WriteNow write_now(Socket& socket, const std::vector<boost::asio::const_buffer>& buffers) {
    WriteNow r;
    std::size_t n = socket.write_some(buffers, r.error);
    if (r.error == boost::asio::error::would_block || r.error == boost::asio::error::try_again) {
        r.error = {};
        n = 0;
    }
    if (r.error) return r;
    for (const auto& b : buffers) {
        if (n >= b.size()) {
            n -= b.size();
            continue;
        }
        r.rest.push_back(b + n);
        n = 0;
    }
    return r;
}

}  // namespace tf::server
