#include "client/lib/traffic_log.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace tf::client::traffic {
namespace {

thread_local int probes = 0;

struct Log {
    std::mutex m;
    std::FILE* f = nullptr;
    Log() {
        const char* dir = std::getenv("TF_TRAFFIC_LOG");
        if (!dir || !*dir) return;
        std::string path = std::string(dir) + "/traffic-" + std::to_string(getpid()) + ".jsonl";
        f = std::fopen(path.c_str(), "a");
    }
    ~Log() {
        if (f) std::fclose(f);
    }
};

Log& log() {
    static Log l;
    return l;
}

}  // namespace

Probe::Probe() {
    ++probes;
}
Probe::~Probe() {
    --probes;
}

void record(const char* dir, const char* transport, std::string_view text, bool binary) {
    Log& l = log();
    if (!l.f) return;
    nlohmann::json j = {{"dir", dir}, {"transport", transport}, {"text", text}};
    if (binary) j["binary"] = true;
    if (probes > 0 && std::string_view(dir) == "sent") j["probe"] = true;
    std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::lock_guard lock(l.m);
    std::fwrite(line.data(), 1, line.size(), l.f);
    std::fflush(l.f);
}

void record_http(std::string_view path, int status, std::string_view body) {
    Log& l = log();
    if (!l.f) return;
    nlohmann::json j = {
        {"dir", "http"}, {"transport", "http"}, {"path", path}, {"status", status}, {"text", body}};
    std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::lock_guard lock(l.m);
    std::fwrite(line.data(), 1, line.size(), l.f);
    std::fflush(l.f);
}

}  // namespace tf::client::traffic
