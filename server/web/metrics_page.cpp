#include "server/web/metrics_page.h"

#include <unistd.h>

#include <fstream>

#include "server/base/metrics.h"
#include "server/session/hub.h"

namespace tf::server {

namespace {

long rss_bytes() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

}  // namespace

std::string render_metrics(Hub& hub) {
    Metrics& m = metrics();
    const bool store_healthy = hub.store->healthy();
    auto lists = hub.listings.counts();
    std::string out;
    out +=
        "# HELP trunkfield_connections Open client connections by transport.\n"
        "# TYPE trunkfield_connections gauge\n"
        "trunkfield_connections{transport=\"ws\"} " +
        std::to_string(m.connections_ws.load()) +
        "\n"
        "trunkfield_connections{transport=\"tcp\"} " +
        std::to_string(m.connections_tcp.load()) + "\n";
    metric(out, "trunkfield_players", "gauge", "Players with at least one connection.",
           std::to_string(hub.players.players()));
    metric(out, "trunkfield_open_games", "gauge", "Public games waiting for an opponent.",
           std::to_string(lists.open_games));
    metric(out, "trunkfield_live_games", "gauge", "Public games being played.",
           std::to_string(lists.live_games));
    metric(out, "trunkfield_games_in_memory", "gauge", "Games held in memory.",
           std::to_string(hub.directory.size()));
    metric(out, "trunkfield_games_compacted", "gauge",
           "Finished games kept in memory as a summary, their state in the store.",
           std::to_string(m.games_compacted.load()));
    metric(out, "trunkfield_quick_match_waiting", "gauge", "Quick-match requests waiting.",
           std::to_string(hub.matchmaker.waiting()));
    metric(out, "trunkfield_games_suspended", "gauge",
           "Games paused at their last saved position because the store failed.",
           std::to_string(m.games_suspended.load()));
    metric(out, "trunkfield_games_resumed_total", "counter",
           "Suspended games that resumed once the store worked again.",
           std::to_string(m.games_resumed.load()));
    metric(out, "trunkfield_store_healthy", "gauge", "1 while store writes succeed, else 0.",
           store_healthy ? "1" : "0");
    metric(out, "trunkfield_store_failures_total", "counter", "Store operations that failed.",
           std::to_string(m.store_failures.load()));
    metric(out, "trunkfield_store_failure_episodes_total", "counter",
           "Times the store went from working to failing.",
           std::to_string(m.store_episodes.load()));
    metric(out, "trunkfield_spectators", "gauge", "Connections watching a game without a seat.",
           std::to_string(m.spectators.load()));
    metric(out, "trunkfield_turns_accepted_total", "counter", "Turns accepted and stored.",
           std::to_string(m.turns_accepted.load()));
    metric(out, "trunkfield_setups_accepted_total", "counter", "Setups accepted and stored.",
           std::to_string(m.setups_accepted.load()));
    out +=
        "# HELP trunkfield_rejected_total Requests answered with an error, by error code.\n"
        "# TYPE trunkfield_rejected_total counter\n";
#define X(id, name)                                          \
    out += "trunkfield_rejected_total{code=\"" name "\"} " + \
           std::to_string(m.rejected[std::size_t(proto::Err::id)].load()) + "\n";
    TF_PROTO_ERRORS(X)
#undef X
    metric(out, "trunkfield_messages_in_total", "counter", "Messages received from clients.",
           std::to_string(m.messages_in.load()));
    metric(out, "trunkfield_messages_out_total", "counter", "Messages queued to clients.",
           std::to_string(m.messages_out.load()));
    out +=
        "# HELP trunkfield_connections_refused_total Connections refused at accept: too many "
        "from the client's address (--max-connections-per-ip) or in all (--max-connections).\n"
        "# TYPE trunkfield_connections_refused_total counter\n"
        "trunkfield_connections_refused_total{reason=\"address\"} " +
        std::to_string(m.connections_refused_address.load()) +
        "\n"
        "trunkfield_connections_refused_total{reason=\"full\"} " +
        std::to_string(m.connections_refused_full.load()) + "\n";
    metric(out, "trunkfield_connections_max", "gauge",
           "Connections the server accepts in all (--max-connections; 0: no limit).",
           std::to_string(hub.conn_limit.max_total()));
    metric(out, "trunkfield_accept_failures_total", "counter",
           "accept() calls that failed (descriptors or memory exhausted, resets).",
           std::to_string(m.accept_failures.load()));
    metric(out, "trunkfield_accept_pauses_total", "counter",
           "Episodes in which the listeners paused for want of descriptors or memory.",
           std::to_string(m.accept_pauses.load()));
    metric(out, "trunkfield_queue_drops_total", "counter",
           "Connections dropped because their outgoing queue was full.",
           std::to_string(m.queue_drops.load()));
    m.commit_latency.render(out, "trunkfield_store_commit_seconds",
                            "Store operations from queued to durable.");
    m.turn_latency.render(out, "trunkfield_turn_seconds",
                          "Turns from received to acknowledged (validation and commit).");
    hub.peers->render_metrics(out);  // the cluster's, with several nodes
    metric(out, "trunkfield_resident_memory_bytes", "gauge", "Resident set size of the process.",
           std::to_string(rss_bytes()));
    return out;
}

}  // namespace tf::server
