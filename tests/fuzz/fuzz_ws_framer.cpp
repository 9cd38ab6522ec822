// Fuzzes the WebSocket transport's framing (server/web/ws_framer.h): the same bytes fed whole and
// in chunks the input chooses must give the same messages, control frames and errors. Input: byte 0
// picks the message limit (%4 = 0: the protocol's 16 KiB, else 1 + byte % 64); bytes 1-8 are chunk
// sizes (1-16, used in turn); the rest is the stream. Checks: identical outcomes whatever the
// chunking; a text message is UTF-8; no message over the limit; nothing after an error or a close
// frame; control payloads of at most 125 bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proto/messages.h"
#include "server/web/ws_framer.h"
#include "tests/fuzz/chunked_stream.h"
#include "tests/fuzz/fuzz_check.h"

using tf::server::WsFramer;

namespace {

// Every result the framer gives for `stream` fed in the given chunks (one chunk: all of it).
std::vector<std::string> run(std::string_view stream, std::size_t max, const std::size_t* chunks,
                             int n_chunks) {
    WsFramer f(max);
    std::vector<std::string> out;
    bool ended = false;
    std::size_t at = 0;
    for (int i = 0; at < stream.size(); ++i) {
        std::size_t n = std::min(chunks[i % n_chunks], stream.size() - at);
        f.feed(stream.substr(at, n));
        at += n;
        for (;;) {
            auto r = f.next();
            if (r.status == WsFramer::Status::NeedMore) break;
            TF_FUZZ_CHECK(!ended);
            switch (r.status) {
                case WsFramer::Status::Text:
                    TF_FUZZ_CHECK(tf::server::valid_utf8(r.payload));
                    [[fallthrough]];
                case WsFramer::Status::Binary:
                    TF_FUZZ_CHECK(r.payload.size() <= max);
                    break;
                case WsFramer::Status::Ping:
                case WsFramer::Status::Pong:
                    TF_FUZZ_CHECK(r.payload.size() <= 125);
                    break;
                case WsFramer::Status::Close:
                case WsFramer::Status::Error:
                    ended = true;
                    TF_FUZZ_CHECK(f.done());
                    break;
                case WsFramer::Status::NeedMore:
                    break;
            }
            out.push_back(std::to_string(int(r.status)) + ":" + std::to_string(r.code) + ":" +
                          std::string(r.payload));
        }
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ChunkedStream in;
    if (!read_chunked_stream(data, size, in)) return 0;
    const std::size_t max = in.max;
    const std::size_t* chunks = in.chunks;
    const std::string_view stream = in.stream;
    const std::size_t whole[1] = {stream.size() + 1};
    TF_FUZZ_CHECK(run(stream, max, chunks, 8) == run(stream, max, whole, 1));
    return 0;
}
