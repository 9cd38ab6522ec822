#include "bench/loadgen_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace tf::loadgen {

nlohmann::json Samples::summary() {
    nlohmann::json j = {{"count", v_.size()}};
    auto at = [&](double q) {
        std::size_t i = std::size_t(q * double(v_.size() - 1) + 0.5);
        return double(v_[std::min(i, v_.size() - 1)]) / 1000.0;
    };
    if (v_.empty()) {
        for (const char* k : {"p50", "p90", "p99", "p999", "max"}) j[k] = nullptr;
        return j;
    }
    std::sort(v_.begin(), v_.end());
    j["p50"] = at(0.50);
    j["p90"] = at(0.90);
    j["p99"] = at(0.99);
    j["p999"] = at(0.999);
    j["max"] = double(v_.back()) / 1000.0;
    return j;
}

std::optional<ProcSample> read_proc(pid_t pid) {
    ProcSample s;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return std::nullopt;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    auto close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    unsigned long utime = 0, stime = 0;
    for (int i = 3; rest >> field; ++i) {  // field 3 is the state
        if (i == 14) utime = std::stoul(field);
        if (i == 15) {
            stime = std::stoul(field);
            break;
        }
    }
    s.cpu_s = double(utime + stime) / double(sysconf(_SC_CLK_TCK));
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) s.rss_kb = std::stol(line.substr(6));
        if (line.rfind("VmHWM:", 0) == 0) s.hwm_kb = std::stol(line.substr(6));
    }
    return s;
}

double self_cpu_seconds() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

namespace {

struct Scanner {
    std::string_view s;
    std::size_t i = 0;

    void ws() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    }
    // A string starting at s[i] == '"'; the raw text between the quotes (escapes kept).
    bool string(std::string_view& out) {
        if (i >= s.size() || s[i] != '"') return false;
        std::size_t start = ++i;
        while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
        if (i >= s.size()) return false;
        out = s.substr(start, i - start);
        ++i;
        return true;
    }
    // Skips any value: string, number, literal, or a nested object/array (strings inside
    // brackets may hold brackets).
    bool skip() {
        if (i >= s.size()) return false;
        std::string_view ignored;
        if (s[i] == '"') return string(ignored);
        if (s[i] == '{' || s[i] == '[') {
            int depth = 0;
            while (i < s.size()) {
                char c = s[i];
                if (c == '"') {
                    if (!string(ignored)) return false;
                    continue;
                }
                if (c == '{' || c == '[') ++depth;
                if (c == '}' || c == ']') --depth;
                ++i;
                if (depth == 0) return true;
            }
            return false;
        }
        while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
        return true;
    }
};

}  // namespace

bool scan_fields(std::string_view text, Fields& out) {
    Scanner sc{text};
    out = Fields{};
    sc.ws();
    if (sc.i >= text.size() || text[sc.i] != '{') return false;
    ++sc.i;
    for (;;) {
        sc.ws();
        if (sc.i < text.size() && text[sc.i] == '}') return true;
        std::string_view key;
        if (!sc.string(key)) return false;
        sc.ws();
        if (sc.i >= text.size() || text[sc.i] != ':') return false;
        ++sc.i;
        sc.ws();
        std::string_view* target = key == "type"   ? &out.type
                                   : key == "ref"  ? &out.ref
                                   : key == "kind" ? &out.kind
                                   : key == "game" ? &out.game
                                   : key == "code" ? &out.code
                                                   : nullptr;
        if (target && sc.i < text.size() && text[sc.i] == '"') {
            if (!sc.string(*target)) return false;
        } else if (key == "version") {
            std::int64_t v = 0;
            auto [p, ec] = std::from_chars(text.data() + sc.i, text.data() + text.size(), v);
            if (ec != std::errc()) return false;
            sc.i = std::size_t(p - text.data());
            out.version = v;
        } else if (!sc.skip()) {
            return false;
        }
        sc.ws();
        if (sc.i < text.size() && text[sc.i] == ',') {
            ++sc.i;
            continue;
        }
        return sc.i < text.size() && text[sc.i] == '}';
    }
}

}  // namespace tf::loadgen
