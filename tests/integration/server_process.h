// Runs build/bin/trunkfield-server on ephemeral loopback ports for one test and stops it
// (SIGTERM, then SIGKILL) when destroyed. The log goes to a temporary file; the ports are read
// from its "listening http=... tcp=..." line. Without a --data argument the server gets a fresh
// temporary data directory, removed afterwards.
//
// With TF_TEST_DATABASE_URL set (tests/postgres.cmake) and no --store argument, the server
// stores in PostgreSQL: in a database of that cluster named after the data directory (created
// when missing), so that a server restarted on the same --data finds its games. The data
// directory is still passed. The database is dropped with the data directory when this process
// made that directory, else when the test program exits.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tf::test {

// Starts `args` (args[0] the program) as a child process with its standard output and error on
// `out_fd`, and RLIMIT_NOFILE `nofile` (soft and hard) when it is not 0; the child's pid (the
// caller closes out_fd and reaps the child).
pid_t spawn(std::vector<std::string> args, int out_fd, long nofile = 0);

class ServerProcess {
  public:
    // `extra_args` go to the server, but for "--test-nofile=N", which runs it with
    // RLIMIT_NOFILE N (soft and hard).
    explicit ServerProcess(std::vector<std::string> extra_args = {});
    ~ServerProcess();
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    unsigned short http_port() const { return http_; }
    unsigned short tcp_port() const { return tcp_; }
    std::string log() const;
    // True while the process has not exited.
    bool alive();
    // kill -9, and waits for the process to be gone.
    void kill_hard();
    // SIGTERM, and waits up to `seconds` for the exit: its exit code, or -1 when it had to be
    // killed (or died of a signal).
    int terminate(int seconds = 20);
    const std::string& data_dir() const { return data_dir_; }
    // The PostgreSQL database of the data directory, or "" when the server runs on SQLite.
    const std::string& database() const { return database_; }

  private:
    // Removes what the server was given for this test alone (log, data directory, database).
    void remove_own_files();

    pid_t pid_ = -1;
    std::string log_path_;
    std::string data_dir_;
    std::string database_;
    bool own_data_ = false;
    unsigned short http_ = 0, tcp_ = 0;
};

}  // namespace tf::test
