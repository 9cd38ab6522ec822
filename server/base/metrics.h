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

// The process's own counters and gauges, one line each: X(member, value type, kind, name, help).
// Metrics declares a member for each, and GET /metrics (server/web/metrics_page.cpp) renders
// them all from this table; the labelled families and the histograms are written out there.
#define TF_METRICS(X)                                                                        \
    X(games_compacted, std::int64_t, gauge, "trunkfield_games_compacted",                    \
      "Finished games kept in memory as a summary, their state in the store.")               \
    X(games_suspended, std::int64_t, gauge, "trunkfield_games_suspended",                    \
      "Games paused at their last saved position because the store failed.")                 \
    X(games_resumed, std::uint64_t, counter, "trunkfield_games_resumed_total",               \
      "Suspended games that resumed once the store worked again.")                           \
    X(store_failures, std::uint64_t, counter, "trunkfield_store_failures_total",             \
      "Store operations that failed.")                                                       \
    X(store_episodes, std::uint64_t, counter, "trunkfield_store_failure_episodes_total",     \
      "Times the store went from working to failing.")                                       \
    X(spectators, std::int64_t, gauge, "trunkfield_spectators",                              \
      "Connections watching a game without a seat.")                                         \
    X(turns_accepted, std::uint64_t, counter, "trunkfield_turns_accepted_total",             \
      "Turns accepted and stored.")                                                          \
    X(setups_accepted, std::uint64_t, counter, "trunkfield_setups_accepted_total",           \
      "Setups accepted and stored.")                                                         \
    X(messages_in, std::uint64_t, counter, "trunkfield_messages_in_total",                   \
      "Messages received from clients.")                                                     \
    X(messages_out, std::uint64_t, counter, "trunkfield_messages_out_total",                 \
      "Messages queued to clients.")                                                         \
    X(accept_failures, std::uint64_t, counter, "trunkfield_accept_failures_total",           \
      "accept() calls that failed (descriptors or memory exhausted, resets).")               \
    X(accept_pauses, std::uint64_t, counter, "trunkfield_accept_pauses_total",               \
      "Episodes in which the listeners paused for want of descriptors or memory.")           \
    X(queue_drops, std::uint64_t, counter, "trunkfield_queue_drops_total",                   \
      "Connections dropped because their outgoing queue was full.")                          \
    X(password_refusals, std::uint64_t, counter, "trunkfield_password_refusals_total",       \
      "Password checks refused at once (try_again) because the password threads' queue was " \
      "full.")

struct Metrics {
#define TF_METRIC_MEMBER(member, type, kind, name, help) std::atomic<type> member{0};
    TF_METRICS(TF_METRIC_MEMBER)
#undef TF_METRIC_MEMBER
    // Labelled: connections by transport; refused at accept by --max-connections-per-ip
    // ("address") and --max-connections ("full"), server/web/listener.h.
    std::atomic<std::int64_t> connections_ws{0}, connections_tcp{0};
    std::atomic<std::uint64_t> connections_refused_address{0}, connections_refused_full{0};
    std::atomic<std::uint64_t> games_fenced{0};  // cluster: rooms dropped, another node owns them
    std::array<std::atomic<std::uint64_t>, proto::kErrCount> rejected{};  // by proto::Err
    Histogram turn_latency;    // a turn read from its connection -> ack delivered
    Histogram commit_latency;  // an operation queued in the store -> durable
    Histogram lease_renew;     // cluster: a renewal of this node's lease in PostgreSQL

    void reject(proto::Err e) {
        ++rejected[std::size_t(e)];
    }
};

Metrics& metrics();

// One metric of the page: its help, its type and its value.
void metric(std::string& out, const char* name, const char* type, const char* help,
            const std::string& value);

}  // namespace tf::server
