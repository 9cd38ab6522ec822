// tf-loadgen's measuring tools: latency samples and their percentiles, the server's CPU time
// and memory from /proc, and a scanner that reads the few top-level fields of a message
// without building a JSON tree (the generator reads every message the server sends).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tf::loadgen {

// Latency samples in microseconds; percentiles by sorting once at the end.
class Samples {
  public:
    void add(std::int64_t us) { v_.push_back(std::uint32_t(us < 0 ? 0 : us)); }
    void merge(const Samples& o) { v_.insert(v_.end(), o.v_.begin(), o.v_.end()); }
    std::size_t size() const { return v_.size(); }
    // {"count", "p50", "p90", "p99", "p999", "max"} in milliseconds (null fields when empty).
    nlohmann::json summary();

  private:
    std::vector<std::uint32_t> v_;
};

// What /proc tells about a process: CPU seconds (user + system) and memory.
struct ProcSample {
    double cpu_s = 0;
    long rss_kb = 0;  // VmRSS
    long hwm_kb = 0;  // VmHWM (peak resident)
};
std::optional<ProcSample> read_proc(pid_t pid);
// This process's own CPU seconds (getrusage).
double self_cpu_seconds();

// The top-level fields of a protocol message that the generator needs. String views point into
// the scanned text. Nested objects and arrays are skipped.
struct Fields {
    std::string_view type, ref, kind, game, code;
    std::optional<std::int64_t> version;
};
// False when the text is not a JSON object as far as the scan can tell.
bool scan_fields(std::string_view text, Fields& out);

}  // namespace tf::loadgen
