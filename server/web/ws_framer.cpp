#include "server/web/ws_framer.h"

#include <boost/beast/websocket/detail/hybi13.hpp>

#include <cstring>

namespace tf::server {

namespace {

// Buffers larger than this are released once empty (an idle connection keeps none).
constexpr std::size_t kKeep = 512;

void release_if_large(std::string& s) {
    if (s.capacity() > kKeep)
        std::string().swap(s);
    else
        s.clear();
}

bool valid_close_code(std::uint16_t c) {
    if (c >= 3000 && c <= 4999) return true;  // registered and private codes
    return (c >= 1000 && c <= 1003) || (c >= 1007 && c <= 1011);
}

}  // namespace

void WsFramer::feed(std::string_view bytes) {
    if (done_) return;
    compact();
    buf_.append(bytes);
}

// Drops what was consumed, so the buffer holds one incomplete frame at most.
void WsFramer::compact() {
    if (pos_ == 0) return;
    if (pos_ == buf_.size()) {
        release_if_large(buf_);
    } else {
        buf_.erase(0, pos_);
    }
    pos_ = 0;
}

WsFramer::Result WsFramer::fail(std::uint16_t code, const char* why) {
    done_ = true;
    std::string().swap(buf_);
    std::string().swap(msg_);
    pos_ = 0;
    return {Status::Error, {}, code, why};
}

WsFramer::Result WsFramer::next() {
    if (done_) return {Status::NeedMore, {}};
    if (!fragmented_ && !msg_.empty()) release_if_large(msg_);  // the last message was returned
    for (;;) {
        const std::size_t avail = buf_.size() - pos_;
        if (avail < 2) return {Status::NeedMore, {}};
        const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + pos_);
        const bool fin = p[0] & 0x80;
        const std::uint8_t opcode = p[0] & 0x0f;
        if (p[0] & 0x70) return fail(1002, "reserved bits set");
        if (!(p[1] & 0x80)) return fail(1002, "unmasked frame");
        const bool control = opcode & 0x08;
        if (control ? opcode > ws_opcode::kPong : opcode > ws_opcode::kBinary)
            return fail(1002, "unknown opcode");

        std::uint64_t len = p[1] & 0x7f;
        std::size_t header = 2;
        if (control && (len > 125 || !fin)) return fail(1002, "bad control frame");
        if (len == 126) {
            if (avail < 4) return {Status::NeedMore, {}};
            len = (std::uint64_t(p[2]) << 8) | p[3];
            header = 4;
        } else if (len == 127) {
            if (avail < 10) return {Status::NeedMore, {}};
            len = 0;
            for (int i = 2; i < 10; ++i) len = (len << 8) | p[i];
            if (len >> 63) return fail(1002, "bad frame length");
            header = 10;
        }
        if (!control) {
            if (opcode == ws_opcode::kContinuation && !fragmented_)
                return fail(1002, "continuation without a message");
            if (opcode != ws_opcode::kContinuation && fragmented_)
                return fail(1002, "new message inside a fragmented one");
            if (len > max_ || msg_.size() + len > max_) return fail(1009, "message too big");
        }
        header += 4;  // the masking key
        if (avail < header || avail - header < len) return {Status::NeedMore, {}};

        unsigned char key[4];
        std::memcpy(key, p + header - 4, 4);
        char* payload = buf_.data() + pos_ + header;
        for (std::size_t i = 0; i < len; ++i) payload[i] = char(payload[i] ^ key[i & 3]);
        pos_ += header + std::size_t(len);
        const std::string_view data(payload, std::size_t(len));

        if (control) {
            if (opcode == ws_opcode::kPing) return {Status::Ping, data};
            if (opcode == ws_opcode::kPong) return {Status::Pong, data};
            // Close: no payload, or a valid code and a UTF-8 reason.
            std::uint16_t code = 1005;
            if (data.size() == 1) return fail(1002, "bad close frame");
            if (data.size() >= 2) {
                code = std::uint16_t((std::uint8_t(data[0]) << 8) | std::uint8_t(data[1]));
                if (!valid_close_code(code)) return fail(1002, "bad close code");
                if (!valid_utf8(data.substr(2))) return fail(1007, "close reason not UTF-8");
            }
            done_ = true;
            return {Status::Close, data, code};
        }

        if (opcode != ws_opcode::kContinuation) text_ = opcode == ws_opcode::kText;
        if (fin && !fragmented_) {  // the common case: a whole message in one frame, in place
            if (text_ && !valid_utf8(data)) return fail(1007, "text message not UTF-8");
            return {text_ ? Status::Text : Status::Binary, data};
        }
        msg_.append(data);
        fragmented_ = !fin;
        if (fin) {
            if (text_ && !valid_utf8(msg_)) return fail(1007, "text message not UTF-8");
            return {text_ ? Status::Text : Status::Binary, msg_};
        }
    }
}

std::size_t ws_frame_header(std::uint8_t opcode, std::size_t n, char* out) {
    auto* o = reinterpret_cast<unsigned char*>(out);
    o[0] = std::uint8_t(0x80 | opcode);
    if (n < 126) {
        o[1] = std::uint8_t(n);
        return 2;
    }
    if (n <= 0xffff) {
        o[1] = 126;
        o[2] = std::uint8_t(n >> 8);
        o[3] = std::uint8_t(n);
        return 4;
    }
    o[1] = 127;
    for (int i = 0; i < 8; ++i) o[2 + i] = std::uint8_t(std::uint64_t(n) >> (56 - 8 * i));
    return 10;
}

bool valid_utf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        unsigned char c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int n;
        unsigned char lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
        if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            if (c == 0xe0) lo = 0xa0;  // overlong
            if (c == 0xed) hi = 0x9f;  // surrogates
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            if (c == 0xf0) lo = 0x90;  // overlong
            if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
        } else {
            return false;
        }
        if (end - p <= n) return false;
        if (p[1] < lo || p[1] > hi) return false;
        for (int i = 2; i <= n; ++i)
            if ((p[i] & 0xc0) != 0x80) return false;
        p += n + 1;
    }
    return true;
}

std::string ws_accept_key(std::string_view client_key) {
    boost::beast::websocket::detail::sec_ws_accept_type accept;
    boost::beast::websocket::detail::make_sec_ws_accept(
        accept, boost::beast::string_view(client_key.data(), client_key.size()));
    return std::string(accept.data(), accept.size());
}

std::size_t ws_max_key_size() {
    return boost::beast::websocket::detail::sec_ws_key_type::max_size_n;
}

}  // namespace tf::server
