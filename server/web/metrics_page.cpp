#include "server/web/metrics_page.h"

#include <unistd.h>

#include <fstream>
#include <initializer_list>
#include <utility>

#include "server/base/metrics.h"
#include "server/session/hub.h"
#include "server/social/social_service.h"

namespace tf::server {

namespace {

long rss_bytes() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

// The gauges read from the Hub's parts, one line each: X(name, help, value).
#define TF_HUB_GAUGES(X)                                                                           \
    X("trunkfield_players", "Players with at least one connection.", hub.players.players())        \
    X("trunkfield_open_games", "Public games waiting for an opponent.", lists.open_games)          \
    X("trunkfield_live_games", "Public games being played.", lists.live_games)                     \
    X("trunkfield_games_in_memory", "Games held in memory.", hub.directory.size())                 \
    X("trunkfield_quick_match_waiting", "Quick-match requests waiting.", hub.matchmaker.waiting()) \
    X("trunkfield_store_healthy", "1 while store writes succeed, else 0.",                         \
      hub.store->healthy() ? 1 : 0)                                                                \
    X("trunkfield_connections_max",                                                                \
      "Connections the server accepts in all (--max-connections; 0: no limit).",                   \
      hub.conn_limit.max_total())                                                                  \
    X("trunkfield_resident_memory_bytes", "Resident set size of the process.", rss_bytes())

// One labelled family: its help and type, then a line per label value.
void family(std::string& out, const char* name, const char* type, const char* help,
            const char* label, std::initializer_list<std::pair<const char*, std::uint64_t>> rows) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    for (const auto& [value, n] : rows)
        out += std::string(name) + "{" + label + "=\"" + value + "\"} " + std::to_string(n) + "\n";
}

}  // namespace

std::string render_metrics(Hub& hub) {
    Metrics& m = metrics();
    const auto lists = hub.listings.counts();
    std::string out;
    family(out, "trunkfield_connections", "gauge", "Open client connections by transport.",
           "transport",
           {{"ws", std::uint64_t(m.connections_ws.load())},
            {"tcp", std::uint64_t(m.connections_tcp.load())}});
#define X(name, help, value) metric(out, name, "gauge", help, std::to_string(value));
    TF_HUB_GAUGES(X)
#undef X
#define X(member, type, kind, name, help) \
    metric(out, name, #kind, help, std::to_string(m.member.load()));
    TF_METRICS(X)
#undef X
    out +=
        "# HELP trunkfield_rejected_total Requests answered with an error, by error code.\n"
        "# TYPE trunkfield_rejected_total counter\n";
#define X(id, name)                                          \
    out += "trunkfield_rejected_total{code=\"" name "\"} " + \
           std::to_string(m.rejected[std::size_t(proto::Err::id)].load()) + "\n";
    TF_PROTO_ERRORS(X)
#undef X
    family(out, "trunkfield_connections_refused_total", "counter",
           "Connections refused at accept: too many from the client's address "
           "(--max-connections-per-ip) or in all (--max-connections).",
           "reason",
           {{"address", m.connections_refused_address.load()},
            {"full", m.connections_refused_full.load()}});
    m.commit_latency.render(out, "trunkfield_store_commit_seconds",
                            "Store operations from queued to durable.");
    m.turn_latency.render(out, "trunkfield_turn_seconds",
                          "Turns from received to acknowledged (validation and commit).");
    if (auto* mailer = hub.social ? hub.social->mailer() : nullptr)
        family(
            out, "trunkfield_mails_total", "counter",
            "Mails this node handed to the SMTP relay (sent), or gave up on (failed).", "result",
            {{"sent", std::uint64_t(mailer->sent())}, {"failed", std::uint64_t(mailer->failed())}});
    hub.peers->render_metrics(out);  // the cluster's, with several nodes
    return out;
}

}  // namespace tf::server
