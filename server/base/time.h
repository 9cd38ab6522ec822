// Time as the server counts it: wall-clock milliseconds since the Unix epoch, as the stores and
// the wire write it, and the configuration's seconds as steady-clock durations.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace tf::server {

inline std::int64_t epoch_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// "2026-12-05 21:04" (UTC) of epoch milliseconds, for messages people read.
std::string utc_minute(std::int64_t ms);

// A configured number of seconds (a flag's double, fractions allowed) as a steady-clock duration.
inline std::chrono::steady_clock::duration steady_seconds(double s) {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(s));
}

}  // namespace tf::server
