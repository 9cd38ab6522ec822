#include "server/base/time.h"

#include <ctime>

namespace tf::server {

std::string utc_minute(std::int64_t ms) {
    const std::time_t t = std::time_t(ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char out[32];
    const auto n = std::strftime(out, sizeof out, "%Y-%m-%d %H:%M", &tm);
    return std::string(out, n);
}

}  // namespace tf::server
