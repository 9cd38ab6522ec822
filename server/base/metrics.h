// Process-wide counters for GET /metrics (Prometheus text format 0.0.4). Lock-free atomics,
// cheap enough for every message; one registry per process, like the Prometheus client
// libraries' default registry.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "proto/errors.h"

namespace tf::server {

// A histogram with fixed buckets (milliseconds).
class Histogram {
  public:
    static constexpr std::array<double, 14> kBounds = {0.1, 0.25, 0.5, 1,   2.5, 5,    10,
                                                       25,  50,   100, 250, 500, 1000, 5000};
    void observe(double ms);
    void render(std::string& out, const char* name, const char* help) const;

  private:
    std::array<std::atomic<std::uint64_t>, kBounds.size() + 1> buckets_{};
    std::atomic<std::uint64_t> count_{0};
    std::atomic<std::uint64_t> sum_us_{0};
};

struct Metrics {
    std::atomic<std::int64_t> connections_ws{0}, connections_tcp{0};
    std::atomic<std::uint64_t> messages_in{0}, messages_out{0}, queue_drops{0};
    // Connections refused at accept: --max-connections-per-ip, --max-connections; accept()
    // failures and the pauses of the listeners for want of descriptors (server/web/listener.h).
    std::atomic<std::uint64_t> connections_refused_address{0}, connections_refused_full{0};
    std::atomic<std::uint64_t> accept_failures{0}, accept_pauses{0};
    // Password checks refused because the password threads' queue was full (try_again), and
    // refused by the login limits (too_many_attempts), by reason.
    std::atomic<std::uint64_t> password_refusals{0};
    std::atomic<std::uint64_t> turns_accepted{0}, setups_accepted{0};
    std::atomic<std::int64_t> spectators{0};
    std::atomic<std::int64_t> games_suspended{0};  // rooms paused by a store failure
    std::atomic<std::int64_t> games_compacted{0};  // finished rooms kept as a summary
    std::atomic<std::uint64_t> store_failures{0};  // store operations that failed
    std::atomic<std::uint64_t> store_episodes{0};  // times the store started failing
    std::atomic<std::uint64_t> games_resumed{0};   // suspended rooms that resumed
    std::atomic<std::uint64_t> games_fenced{0};    // cluster: rooms dropped, another node owns them
    std::array<std::atomic<std::uint64_t>, proto::kErrCount> rejected{};  // by proto::Err
    Histogram turn_latency;    // a turn read from its connection -> ack delivered
    Histogram commit_latency;  // an operation queued in the store -> durable
    Histogram lease_renew;     // cluster: a renewal of this node's lease in PostgreSQL

    void reject(proto::Err e) { ++rejected[std::size_t(e)]; }
};

Metrics& metrics();

// One metric of the page: its help, its type and its value.
void metric(std::string& out, const char* name, const char* type, const char* help,
            const std::string& value);

}  // namespace tf::server
