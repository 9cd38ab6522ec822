// The WebSocket transport's framing (RFC 6455 section 5), server side, without sockets: bytes
// from a client in, complete messages and control frames out; and the header of a frame the
// server sends. No extension is ever negotiated, so every RSV bit must be clear.
//
// What a client must do, and what breaks the connection otherwise (the status is the close code
// the server answers with): mask every frame (1002), use only the opcodes 0, 1, 2, 8, 9, 10
// (1002), send control frames whole and with at most 125 bytes of payload (1002), continue a
// fragmented message only with continuation frames and never start one out of the blue (1002),
// keep a message within the size limit (1009, reported as soon as a frame header announces more),
// send valid UTF-8 in text messages (1007) and a valid close frame (1002 for a bad code or
// length, 1007 for a reason that is not UTF-8). After an error or a close frame the framer
// yields nothing more.
//
// Memory: received bytes stay in a buffer until a frame is complete, a fragmented message's
// payload in another; both are released when emptied if they grew beyond a small size, so an
// idle connection keeps (almost) nothing here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tf::server {

class WsFramer {
  public:
    enum class Status { NeedMore, Text, Binary, Ping, Pong, Close, Error };
    struct Result {
        Status status;
        // Text/Binary: the whole message; Ping/Pong/Close: the frame's (unmasked) payload.
        // Valid until the next feed() or next().
        std::string_view payload;
        // Close: the client's code (1005 when it sent none); Error: the code to close with.
        std::uint16_t code = 0;
        const char* why = "";  // Error: what was wrong, for the log and the close reason
    };

    explicit WsFramer(std::size_t max_message_bytes) : max_(max_message_bytes) {}

    // Appends received bytes (ignored after an error or a close frame).
    void feed(std::string_view bytes);
    // The next complete message or control frame, NeedMore when none is complete yet, or Error
    // (once; NeedMore after it).
    Result next();

    // Bytes of a frame or a fragmented message have arrived and it is not complete yet.
    bool mid_message() const { return !done_ && (pos_ < buf_.size() || fragmented_); }
    // A fragmented data message has begun and its last fragment has not arrived.
    bool in_fragmented_message() const { return fragmented_ && !done_; }
    // The framer stopped: an error or a close frame was returned.
    bool done() const { return done_; }

  private:
    Result fail(std::uint16_t code, const char* why);
    void compact();

    std::size_t max_;
    std::string buf_;  // received bytes; buf_[pos_, end) not yet consumed
    std::size_t pos_ = 0;
    std::string msg_;          // payload of the data message being assembled
    bool fragmented_ = false;  // a data frame without FIN began a message
    bool text_ = false;        // that message's opcode was text
    bool done_ = false;
};

// The header (2, 4 or 10 bytes) of an unmasked, unfragmented frame from the server. Returns
// its length; `out` holds at least 10 bytes.
std::size_t ws_frame_header(std::uint8_t opcode, std::size_t payload_bytes, char* out);

// Whether the bytes are valid UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF).
bool valid_utf8(std::string_view s);

namespace ws_opcode {
constexpr std::uint8_t kContinuation = 0, kText = 1, kBinary = 2, kClose = 8, kPing = 9, kPong = 10;
}

// The Sec-WebSocket-Accept answer to a client's Sec-WebSocket-Key (RFC 6455 §4.2.2): base64 of
// the SHA-1 of the key and the protocol's GUID. Computed by Beast's websocket::detail, which is
// not a public API: pinned by a test of the RFC's own example.
std::string ws_accept_key(std::string_view client_key);
// The longest Sec-WebSocket-Key accepted (a base64 16-byte nonce is 24 characters).
std::size_t ws_max_key_size();

}  // namespace tf::server
