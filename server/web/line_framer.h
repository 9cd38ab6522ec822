// The TCP transport's framing, without sockets: bytes in, complete lines out (proto/PROTOCOL.md
// "Transports and framing"). A line ends with '\n'; one trailing '\r' is dropped; lines that are
// then empty are skipped. A line whose bytes before the '\n' (a '\r' included) number more than
// the limit is an error, reported as soon as that many bytes arrived without a '\n'; after it the
// framer yields nothing more. Data after the last '\n' is a partial line and waits for more.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tf::server {

class LineFramer {
  public:
    enum class Status { NeedMore, Line, TooLong };
    struct Result {
        Status status;
        std::string_view line;  // Status::Line only; valid until the next feed()
    };

    explicit LineFramer(std::size_t max_line_bytes) : max_(max_line_bytes) {}

    // Appends received bytes (ignored once a line was too long). Invalidates earlier lines.
    void feed(std::string_view bytes);
    // The next complete non-empty line, NeedMore when none is complete yet, or TooLong (sticky).
    Result next();

    // Bytes received and not yet returned as (or skipped with) a complete line.
    std::size_t pending() const { return buf_.size() - pos_; }
    std::size_t max_line_bytes() const { return max_; }

  private:
    static bool blank(std::string_view line);
    std::size_t max_;
    std::string buf_;
    std::size_t pos_ = 0;   // start of the first line not yet returned
    std::size_t scan_ = 0;  // buf_[pos_, scan_) holds no '\n'
    bool too_long_ = false;
};

}  // namespace tf::server
