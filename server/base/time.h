// Wall-clock time as the stores and the wire write it: milliseconds since the Unix epoch.
#pragma once

#include <chrono>
#include <cstdint>

namespace tf::server {

inline std::int64_t epoch_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace tf::server
