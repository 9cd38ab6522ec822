// An engine of the Trunkfield engine protocol (docs/ENGINE.md) seen from its controller: a child
// process started with `/bin/sh -c COMMAND`, lines written to its standard input and read from
// its standard output with a deadline; its standard error goes where the controller's goes.
// POSIX only (the terminal client's `engine-check` and bridge); not thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/engine_driver.h"

namespace tf::engine {

class EngineProcess : public EngineLink {
  public:
    // Starts `command`; null with `err` set when it cannot be started.
    static std::unique_ptr<EngineProcess> start(const std::string& command, std::string& err);
    ~EngineProcess() override;  // `quit`, a second to exit, then killed
    EngineProcess(const EngineProcess&) = delete;
    EngineProcess& operator=(const EngineProcess&) = delete;

    // Writes `line` and a newline; false once the engine stopped reading (it exited).
    bool send(const std::string& line) override;
    // The next line (without its newline or a carriage return before it) within `timeout`;
    // nullopt when none came in time or the engine closed its output (then closed() is true).
    // A line longer than kMaxLine is cut there and the rest of it dropped.
    std::optional<std::string> read_line(std::chrono::milliseconds timeout) override;
    bool closed() const override { return closed_; }
    static constexpr std::size_t kMaxLine = 4096;

  private:
    EngineProcess(pid_t pid, int in, int out) : pid_(pid), in_(in), out_(out) {}
    pid_t pid_;
    int in_, out_;  // the engine's standard input (we write) and output (we read)
    std::string buf_;
    bool closed_ = false;
    bool skipping_ = false;  // dropping the end of a line longer than kMaxLine
};

}  // namespace tf::engine
