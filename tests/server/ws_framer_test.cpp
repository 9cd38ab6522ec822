// The WebSocket transport's framing (server/web/ws_framer.h): masked frames split anywhere, the
// three length forms, fragmented messages with control frames between fragments, every protocol
// error with its close code, the size limit at its exact boundary, UTF-8, and the server's headers.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "server/web/ws_framer.h"

namespace tf::server {
namespace {

using Status = WsFramer::Status;

// A client frame: FIN/RSV/opcode byte, the masked payload.
std::string frame(std::uint8_t first, const std::string& payload, bool masked = true,
                  int len_form = 0) {
    std::string f(1, char(first));
    const std::size_t n = payload.size();
    const char m = masked ? char(0x80) : 0;
    if (len_form == 0 && n < 126) {
        f += char(m | char(n));
    } else if (len_form <= 126 && n <= 0xffff) {
        f += char(m | 126);
        f += char(n >> 8);
        f += char(n & 0xff);
    } else {
        f += char(m | 127);
        for (int i = 7; i >= 0; --i) f += char((std::uint64_t(n) >> (8 * i)) & 0xff);
    }
    const char key[4] = {0x12, 0x34, 0x56, 0x78};
    if (masked) f.append(key, 4);
    for (std::size_t i = 0; i < n; ++i) f += masked ? char(payload[i] ^ key[i & 3]) : payload[i];
    return f;
}
std::string text(const std::string& s) {
    return frame(0x81, s);
}

// Everything available now: "T:payload", "B:", "ping:", "pong:", "close:CODE", "error:CODE".
std::vector<std::string> drain(WsFramer& f) {
    std::vector<std::string> out;
    for (;;) {
        auto r = f.next();
        switch (r.status) {
            case Status::NeedMore:
                out.push_back("<need>");
                return out;
            case Status::Text:
                out.push_back("T:" + std::string(r.payload));
                break;
            case Status::Binary:
                out.push_back("B:" + std::string(r.payload));
                break;
            case Status::Ping:
                out.push_back("ping:" + std::string(r.payload));
                break;
            case Status::Pong:
                out.push_back("pong:" + std::string(r.payload));
                break;
            case Status::Close:
                out.push_back("close:" + std::to_string(r.code));
                break;
            case Status::Error:
                out.push_back("error:" + std::to_string(r.code));
                return out;
        }
    }
}

using Out = std::vector<std::string>;

TEST_CASE("ws framer: whole frames, one byte at a time, and the three length forms") {
    WsFramer f(20000);
    f.feed(text(R"({"type":"ping"})") + text("") + frame(0x82, "\x01\x02"));
    CHECK(drain(f) == Out{R"(T:{"type":"ping"})", "T:", "B:\x01\x02", "<need>"});
    CHECK_FALSE(f.mid_message());

    const std::string all = text("abc") + frame(0x81, std::string(300, 'x'), true, 126) +
                            frame(0x81, "short but long form", true, 127);
    for (char c : all) {
        f.feed(std::string(1, c));
        auto r = f.next();
        if (r.status != Status::NeedMore) CHECK(r.status == Status::Text);
    }
    CHECK_FALSE(f.mid_message());
    f.feed(text("abc").substr(0, 3));
    CHECK(drain(f) == Out{"<need>"});
    CHECK(f.mid_message());
}

TEST_CASE("ws framer: fragments, with control frames between them") {
    WsFramer f(100);
    f.feed(frame(0x01, "hel") + frame(0x89, "p1") + frame(0x00, "lo ") + frame(0x8a, "") +
           frame(0x80, "world"));
    CHECK(drain(f) == Out{"ping:p1", "pong:", "T:hello world", "<need>"});
    CHECK_FALSE(f.mid_message());
    f.feed(frame(0x01, "a"));
    CHECK(drain(f) == Out{"<need>"});
    CHECK(f.mid_message());  // a fragmented message is open even with no bytes buffered
    f.feed(frame(0x80, "b") + text("next"));
    CHECK(drain(f) == Out{"T:ab", "T:next", "<need>"});
}

TEST_CASE("ws framer: the size limit at its boundary, over one frame or several") {
    WsFramer ok(10);
    ok.feed(text(std::string(10, 'a')) + frame(0x01, "12345") + frame(0x80, "67890"));
    CHECK(drain(ok) == Out{"T:aaaaaaaaaa", "T:1234567890", "<need>"});

    WsFramer big(10);
    big.feed(frame(0x81, std::string(11, 'a')).substr(0, 2));  // the header alone tells
    CHECK(drain(big) == Out{"error:1009"});
    CHECK(big.done());
    big.feed(text("ignored"));
    CHECK(drain(big) == Out{"<need>"});

    WsFramer split(10);
    split.feed(frame(0x01, "123456") + frame(0x80, "12345"));
    CHECK(drain(split) == Out{"error:1009"});
}

TEST_CASE("ws framer: protocol errors close with 1002") {
    auto first_error = [](const std::string& bytes) {
        WsFramer f(1000);
        f.feed(bytes);
        return drain(f).back();
    };
    CHECK(first_error(frame(0x81, "x", false)) == "error:1002");             // unmasked
    CHECK(first_error(frame(0xc1, "x")) == "error:1002");                    // RSV1
    CHECK(first_error(frame(0x83, "x")) == "error:1002");                    // opcode 3
    CHECK(first_error(frame(0x8b, "x")) == "error:1002");                    // opcode 11
    CHECK(first_error(frame(0x09, "x")) == "error:1002");                    // fragmented ping
    CHECK(first_error(frame(0x89, std::string(126, 'p'))) == "error:1002");  // long ping
    CHECK(first_error(frame(0x80, "x")) == "error:1002");  // continuation out of the blue
    CHECK(first_error(frame(0x01, "a") + text("b")) == "error:1002");  // new message inside
    CHECK(first_error(frame(0x88, "\x03")) == "error:1002");           // close with one byte
    CHECK(first_error(frame(0x88, "\x03\xed")) == "error:1002");       // close code 1005
    CHECK(first_error(frame(0x88, "\x03\xe8\xff")) == "error:1007");   // reason not UTF-8
    std::string huge("\x81\xff\x80\x00\x00\x00\x00\x00\x00\x01", 10);  // 2^63 + 1 bytes
    CHECK(first_error(huge) == "error:1002");
}

TEST_CASE("ws framer: close frames end the stream") {
    WsFramer f(100);
    f.feed(frame(0x88, "") + text("after"));
    CHECK(drain(f) == Out{"close:1005", "<need>"});
    CHECK(f.done());
    WsFramer g(100);
    g.feed(frame(0x88,
                 "\x03\xe8"
                 "bye") +
           text("after"));
    CHECK(drain(g) == Out{"close:1000", "<need>"});
    WsFramer h(100);
    h.feed(frame(0x88, "\x0f\xa0"));  // 4000: a private code
    CHECK(drain(h) == Out{"close:4000", "<need>"});
}

TEST_CASE("ws framer: text must be UTF-8, binary need not") {
    auto result = [](const std::string& bytes) {
        WsFramer f(1000);
        f.feed(bytes);
        return drain(f).front();
    };
    CHECK(result(text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x98")) ==
          "T:caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x98");
    CHECK(result(text("\xc3")) == "error:1007");              // truncated
    CHECK(result(text("\xc0\xaf")) == "error:1007");          // overlong
    CHECK(result(text("\xed\xa0\x80")) == "error:1007");      // surrogate
    CHECK(result(text("\xf4\x90\x80\x80")) == "error:1007");  // above U+10FFFF
    CHECK(result(frame(0x01, "\xe2\x82") + frame(0x80, "\xac")) == "T:\xe2\x82\xac");
    CHECK(result(frame(0x82, "\xc3")) == "B:\xc3");
}

TEST_CASE("ws framer: the server's frame headers") {
    char h[10];
    CHECK(ws_frame_header(ws_opcode::kText, 5, h) == 2);
    CHECK(std::string(h, 2) == "\x81\x05");
    CHECK(ws_frame_header(ws_opcode::kText, 125, h) == 2);
    CHECK(ws_frame_header(ws_opcode::kText, 126, h) == 4);
    CHECK(std::string(h, 4) == std::string("\x81\x7e\x00\x7e", 4));
    CHECK(ws_frame_header(ws_opcode::kClose, 65535, h) == 4);
    CHECK(std::string(h, 4) == "\x88\x7e\xff\xff");
    CHECK(ws_frame_header(ws_opcode::kText, 65536, h) == 10);
    CHECK(std::string(h, 10) == std::string("\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00", 10));
}

}  // namespace
TEST_CASE("ws handshake: the accept key of RFC 6455's own example") {
    // RFC 6455 §1.3: "dGhlIHNhbXBsZSBub25jZQ==" is answered "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
    CHECK(ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    CHECK(ws_max_key_size() >= 24);
}

}  // namespace tf::server
