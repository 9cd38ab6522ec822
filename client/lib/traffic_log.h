// Optional record of every frame a Connection sends or receives, for the protocol-conformance
// check (tests/integration/validate_schema.py). When the environment variable TF_TRAFFIC_LOG
// names a directory, each process appends JSON lines to DIR/traffic-<pid>.jsonl:
//   {"dir":"sent"|"recv","transport":"tcp"|"ws","text":"<the frame>","binary"?:true,"probe"?:true}
// Thread-safe. Without the variable nothing is written.
#pragma once

#include <string_view>

namespace tf::client::traffic {

void record(const char* dir, const char* transport, std::string_view text, bool binary = false);
// A history API answer: {"dir":"http","transport":"http","path","status","text"}.
void record_http(std::string_view path, int status, std::string_view body);

// While one is alive on a thread, frames that thread sends are marked "probe": deliberately
// invalid input (bad-input tests) that the schema check skips. The server's answers are not.
class Probe {
  public:
    Probe();
    ~Probe();
    Probe(const Probe&) = delete;
    Probe& operator=(const Probe&) = delete;
};

}  // namespace tf::client::traffic
