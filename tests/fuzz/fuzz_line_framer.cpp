// Fuzzes the TCP transport's line framing (server/web/line_framer.h) against a one-pass model of
// PROTOCOL.md's framing, with the bytes fed in chunks the input chooses.
// Input: byte 0 picks the line limit (%4 = 0: the protocol's 16 KiB, else 1 + byte % 64);
// bytes 1-8 are chunk sizes (1-16, used in turn); the rest is the stream.
// Checks: the lines, their order, a "too long" at the right place and nothing after it, and the
// buffered byte count, are those of the model whatever the chunking; memory stays bounded by the
// limit plus one chunk.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proto/messages.h"
#include "server/web/line_framer.h"
#include "tests/fuzz/chunked_stream.h"
#include "tests/fuzz/fuzz_check.h"

using tf::server::LineFramer;

namespace {

struct Outcome {
    std::vector<std::string> lines;
    bool too_long = false;
    std::size_t pending = 0;  // bytes of the unfinished last line (0 after too_long)
};

// Split at every '\n'; a line longer than the limit (before the '\n') ends the stream; one
// trailing '\r' goes; empty lines and lines of spaces and tabs are skipped; an unfinished tail
// longer than the limit too.
Outcome model(std::string_view s, std::size_t max) {
    Outcome o;
    for (;;) {
        std::size_t nl = s.find('\n');
        if (nl == std::string_view::npos) {
            if (s.size() > max) {
                o.too_long = true;
            } else {
                o.pending = s.size();
            }
            return o;
        }
        if (nl > max) {
            o.too_long = true;
            return o;
        }
        std::string_view line = s.substr(0, nl);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find_first_not_of(" \t") != std::string_view::npos) o.lines.emplace_back(line);
        s.remove_prefix(nl + 1);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ChunkedStream in;
    if (!read_chunked_stream(data, size, in)) return 0;
    const std::size_t max = in.max;
    const std::size_t* chunks = in.chunks;
    const std::string_view stream = in.stream;

    LineFramer f(max);
    Outcome got;
    std::size_t at = 0;
    for (int i = 0; at < stream.size(); ++i) {
        std::size_t n = std::min(chunks[i % 8], stream.size() - at);
        f.feed(stream.substr(at, n));
        at += n;
        for (;;) {
            auto r = f.next();
            if (r.status == LineFramer::Status::NeedMore) break;
            if (r.status == LineFramer::Status::TooLong) {
                TF_FUZZ_CHECK(!got.too_long || f.pending() == 0);
                got.too_long = true;
                break;
            }
            TF_FUZZ_CHECK(!got.too_long);
            TF_FUZZ_CHECK(!r.line.empty() && r.line.size() <= max);
            got.lines.emplace_back(r.line);
        }
        TF_FUZZ_CHECK(f.pending() <= max);
    }
    if (!got.too_long) got.pending = f.pending();

    Outcome want = model(stream, max);
    TF_FUZZ_CHECK(got.too_long == want.too_long);
    TF_FUZZ_CHECK(got.lines == want.lines);
    TF_FUZZ_CHECK(got.pending == want.pending);
    return 0;
}
