// Waiting for PostgreSQL at start (docs/OPERATING.md "Starting before PostgreSQL"): a node
// started while its database is unreachable does not exit; it holds its HTTP port and answers
// every request there 503 ("not ready: waiting for PostgreSQL"; /healthz 200: the process is
// alive), so that a load balancer or an orchestrator sees it starting, and tries the database
// again with a backoff of 0.5 s doubling to 10 s. --fail-fast keeps the old behaviour (exit 1 at
// once) for scripts.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace tf::server {

class StartupResponder {
  public:
    // Binds bind:port (port 0: any) and answers on a thread of its own until stop().
    StartupResponder(const std::string& bind, unsigned short port);
    ~StartupResponder();
    StartupResponder(const StartupResponder&) = delete;
    StartupResponder& operator=(const StartupResponder&) = delete;
    unsigned short port() const;
    // What /readyz says after "not ready: " (thread-safe).
    void set_reason(const std::string& why);
    // Closes the port (the server binds it again for its own listener) and joins the thread.
    void stop();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Tries `reach` until it returns true: false at once with `fail_fast`, else waits with the
// backoff, logging each failure (`reach` fills `why`). Returns whether it was reached; `stop`
// (checked between attempts) gives up (a signal during the wait).
bool wait_until_reached(const std::function<bool(std::string& why)>& reach, bool fail_fast,
                        const std::function<bool()>& stop, StartupResponder* responder);

}  // namespace tf::server
