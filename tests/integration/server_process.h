// Runs build/bin/trunkfield-server on ephemeral loopback ports for one test and stops it
// (SIGTERM, then SIGKILL) when destroyed. The log goes to a temporary file; the ports are read
// from its "listening http=... tcp=..." line.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tf::test {

class ServerProcess {
  public:
    explicit ServerProcess(std::vector<std::string> extra_args = {});
    ~ServerProcess();
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    unsigned short http_port() const { return http_; }
    unsigned short tcp_port() const { return tcp_; }
    std::string log() const;
    // True while the process has not exited.
    bool alive();

  private:
    pid_t pid_ = -1;
    std::string log_path_;
    unsigned short http_ = 0, tcp_ = 0;
};

}  // namespace tf::test
