#include "server/base/metrics.h"

namespace tf::server {

Metrics& metrics() {
    static Metrics m;
    return m;
}

void Histogram::observe(double ms) {
    std::size_t i = 0;
    while (i < kBounds.size() && ms > kBounds[i]) ++i;
    ++buckets_[i];
    ++count_;
    sum_us_ += std::uint64_t(ms * 1000);
}

void Histogram::render(std::string& out, const char* name, const char* help) const {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " histogram\n";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= kBounds.size(); ++i) {
        cumulative += buckets_[i].load();
        std::string le = i < kBounds.size() ? std::to_string(kBounds[i] / 1000) : "+Inf";
        if (i < kBounds.size()) {  // seconds, trimmed
            le.erase(le.find_last_not_of('0') + 1);
            if (le.back() == '.') le.pop_back();
        }
        out +=
            std::string(name) + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
    }
    out += std::string(name) + "_sum " + std::to_string(double(sum_us_.load()) / 1e6) + "\n";
    out += std::string(name) + "_count " + std::to_string(count_.load()) + "\n";
}

void metric(std::string& out, const char* name, const char* type, const char* help,
            const std::string& value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" +
           name + " " + value + "\n";
}

}  // namespace tf::server
