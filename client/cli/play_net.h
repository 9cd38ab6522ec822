// The terminal client's connection: newline-delimited JSON over a non-blocking TCP socket, so
// that one poll() loop can wait on the keyboard and the server at once (the blocking
// client/lib Connection would need a reader thread, and closing it from another thread is not
// allowed). Frames are recorded in the traffic log (client/lib/traffic_log.h) like the library's.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace tf::play {

class LineSocket {
  public:
    using Clock = std::chrono::steady_clock;

    LineSocket() = default;
    ~LineSocket() { close(); }
    LineSocket(const LineSocket&) = delete;
    LineSocket& operator=(const LineSocket&) = delete;

    // Starts connecting (resolving the name blocks; the TCP handshake does not). Returns an
    // error text when no address could even be tried.
    std::optional<std::string> start(const std::string& host, unsigned short port);
    void close();

    int fd() const { return fd_; }
    bool is_open() const { return fd_ >= 0; }
    bool is_connecting() const { return fd_ >= 0 && connecting_; }
    bool is_connected() const { return fd_ >= 0 && !connecting_; }
    // The events to poll() for.
    short poll_events() const;

    struct Result {
        bool connected_now = false;         // the handshake completed in this call
        std::vector<std::string> lines;     // complete lines received
        std::optional<std::string> closed;  // the connection ended, and why
    };
    // Call with poll()'s revents for fd() (0 is fine: it then only checks the timeout).
    Result on_ready(short revents, Clock::time_point now);

    // Queues one message (a newline is added) and writes what the socket takes at once.
    // Returns false when the connection is not usable (nothing is queued then).
    bool send_line(const std::string& text);

    static constexpr std::size_t kMaxLine = 8u << 20;    // a longer line is a broken peer
    static constexpr std::size_t kMaxQueued = 4u << 20;  // unsent output before giving up
    static constexpr auto kConnectTimeout = std::chrono::seconds(10);

  private:
    bool flush(std::string& err);
    void take_lines(std::vector<std::string>& out);  // complete lines out of in_

    int fd_ = -1;
    bool connecting_ = false;
    Clock::time_point started_{};
    std::string in_, out_;
};

}  // namespace tf::play
