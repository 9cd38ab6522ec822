// The input format of the framing targets (fuzz_line_framer, fuzz_ws_framer): byte 0 picks the
// message limit (%4 = 0: the protocol's 16 KiB, else 1 + byte % 64); bytes 1-8 are chunk sizes
// (1-16, used in turn); the rest is the stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "proto/messages.h"

struct ChunkedStream {
    std::size_t max = 0;
    std::size_t chunks[8] = {};
    std::string_view stream;
};

// False when the input is too short to hold the header.
inline bool read_chunked_stream(const std::uint8_t* data, std::size_t size, ChunkedStream& in) {
    if (size < 9) return false;
    in.max = data[0] % 4 == 0 ? tf::proto::kMaxMessageBytes : 1 + data[0] % 64;
    for (int i = 0; i < 8; ++i) in.chunks[i] = 1 + data[1 + i] % 16;
    in.stream = std::string_view(reinterpret_cast<const char*>(data + 9), size - 9);
    return true;
}
