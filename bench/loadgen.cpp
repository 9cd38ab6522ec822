// tf-loadgen: an open-loop load generator for trunkfield-server (proto/PROTOCOL.md over
// WebSocket or TCP) and for the bare relay it is compared with (bench/relay/relay.mjs).
//
// N games, each two connections playing legal random games (a local rules Game per table
// draws every setup and turn; a finished game is followed by a new one), S spectators per
// game, K idle connections. Moves fall due at a fixed aggregate rate whatever the server does:
// a move that cannot be sent yet (the game's previous move has not reached the opponent) waits,
// and its latency still counts from the instant it was due, so a slow server shows as latency
// rather than as a lower offered load. Prints one JSON line on stdout and a table on stderr.
// See docs/BENCHMARKS.md ("Server under load") and bench/run.
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <thread>

#include "bench/loadgen_game.h"

using namespace tf::loadgen;
namespace net = boost::asio;

namespace {

// Waits (polling) until `done` or `seconds` passed; false on timeout.
template <class F>
bool wait_for(F done, double seconds) {
    auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(seconds));
    while (!done()) {
        if (Clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

void raise_fd_limit() {
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

std::string fmt_ms(const nlohmann::json& j, const char* k) {
    if (!j.contains(k) || j[k].is_null()) return "-";
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", j[k].get<double>());
    return b;
}

void print_table(const nlohmann::json& r) {
    auto& o = r["options"];
    std::fprintf(stderr,
                 "tf-loadgen: %s over %s, %d games, %d spectators/game, %d idle; target %.0f "
                 "moves/s for %.1f s (after %.1f s warm-up)\n",
                 o["proto"].get<std::string>().c_str(), o["transport"].get<std::string>().c_str(),
                 o["games"].get<int>(), o["spectators"].get<int>(), o["idle"].get<int>(),
                 o["rate"].get<double>(), o["duration_s"].get<double>(),
                 o["warmup_s"].get<double>());
    std::fprintf(stderr,
                 "  moves/s achieved %.1f (due %lld, sent %lld, delivered %lld; games %lld)\n",
                 r["turns_per_s"].get<double>(), r["turns_due"].get<long long>(),
                 r["turns_sent"].get<long long>(), r["turns_delivered"].get<long long>(),
                 r["games_started"].get<long long>());
    std::fprintf(stderr, "  %-20s %9s %9s %9s %9s %9s %9s\n", "latency (ms)", "p50", "p90", "p99",
                 "p99.9", "max", "count");
    for (auto [name, key] : {std::pair{"to opponent", "opponent"},
                             {"ack to sender", "ack"},
                             {"to spectators", "spectator"},
                             {"send lag", "send_lag"}}) {
        auto& h = r["latency_ms"][key];
        std::fprintf(stderr, "  %-20s %9s %9s %9s %9s %9s %9lld\n", name, fmt_ms(h, "p50").c_str(),
                     fmt_ms(h, "p90").c_str(), fmt_ms(h, "p99").c_str(), fmt_ms(h, "p999").c_str(),
                     fmt_ms(h, "max").c_str(), h["count"].get<long long>());
    }
    std::fprintf(stderr, "  lost %lld, undelivered %lld, out of order %lld, errors %lld%s\n",
                 r["lost"].get<long long>(), r["undelivered"].get<long long>(),
                 r["out_of_order"].get<long long>(), r["errors"].get<long long>(),
                 r["ok"].get<bool>() ? "" : "  <-- NOT OK");
    for (auto& [k, v] : r["error_kinds"].items())
        std::fprintf(stderr, "    %s: %lld\n", k.c_str(), v.get<long long>());
    if (r.contains("server")) {
        auto& s = r["server"];
        std::fprintf(stderr, "  server pid %d: cpu %.1f%% of a core, rss %.1f MB (peak %.1f MB)\n",
                     s["pid"].get<int>(), s["cpu_pct"].get<double>(),
                     s["rss_kb"].get<double>() / 1024, s["hwm_kb"].get<double>() / 1024);
    }
    if (r.contains("idle_conns")) {
        auto& i = r["idle_conns"];
        std::fprintf(stderr, "  idle connections: %d open", i["open"].get<int>());
        if (!i["bytes_per_conn"].is_null())
            std::fprintf(stderr, ", server rss %.1f -> %.1f MB, %.0f bytes each",
                         i["rss_before_kb"].get<double>() / 1024,
                         i["rss_after_kb"].get<double>() / 1024, i["bytes_per_conn"].get<double>());
        std::fprintf(stderr, "\n");
    }
    std::fprintf(stderr, "  loadgen cpu %.1f%% of a core\n", r["loadgen_cpu_pct"].get<double>());
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    std::string transport = "ws", proto = "trunkfield", json_out;
    CLI::App app{"tf-loadgen: open-loop load for trunkfield-server or the bench relay"};
    app.add_option("--transport", transport, "ws or tcp")->check(CLI::IsMember({"ws", "tcp"}));
    app.add_option("--proto", proto, "trunkfield or relay (bench/relay/relay.mjs, ws only)")
        ->check(CLI::IsMember({"trunkfield", "relay"}));
    app.add_option("--host", opt.host, "server address");
    app.add_option("--port", opt.port, "HTTP/WebSocket port (ws) or TCP port (tcp)")->required();
    app.add_option("--port2", opt.port2,
                   "a second node of a cluster (same host): each game's second player and every "
                   "other spectator connect there");
    app.add_option("--port3", opt.port3,
                   "with --port2, a third node: the spectators are spread over the three nodes "
                   "(the players stay on the first two)");
    app.add_option("--games", opt.games, "concurrent games")->check(CLI::Range(0, 1000000));
    app.add_option("--rate", opt.rate, "moves (setups and turns) per second, all games")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--duration", opt.duration, "measured seconds")->check(CLI::PositiveNumber);
    app.add_option("--warmup", opt.warmup, "seconds of load before measuring")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--drain", opt.drain, "seconds allowed after the window for last deliveries")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--spectators", opt.spectators, "spectators per game")
        ->check(CLI::Range(0, 1000000));
    app.add_option("--idle", opt.idle, "idle connections held open")->check(CLI::Range(0, 1000000));
    app.add_flag("!--idle-no-hello", opt.idle_hello,
                 "idle connections stay silent (default: they say hello first)");
    app.add_flag("!--private", opt.public_games, "create private games (default: public)");
    app.add_option("--server-pid", opt.server_pid, "read the server's CPU time and memory there");
    std::vector<int> other_pids;
    app.add_option("--other-pid", other_pids,
                   "also read these processes' CPU time over the window (a cluster's other "
                   "nodes, its Redis): reported as others_cpu_s");
    app.add_option("--threads", opt.threads, "threads running the generator")
        ->check(CLI::Range(1, 64));
    app.add_option("--parallel", opt.parallel, "connection handshakes in flight")
        ->check(CLI::Range(1, 100000));
    app.add_option("--seed", opt.seed, "random seed of the games");
    app.add_option("--json", json_out, "also append the JSON line to this file");
    std::string moves_csv;
    app.add_option("--moves-csv", moves_csv,
                   "write every measured move here: its scheduled instant (CLOCK_MONOTONIC "
                   "seconds, as perf record -k CLOCK_MONOTONIC) and ms to the opponent");
    CLI11_PARSE(app, argc, argv);
    opt.keep_moves = !moves_csv.empty();
    opt.transport = transport == "tcp" ? Transport::Tcp : Transport::Ws;
    opt.proto = proto == "relay" ? Proto::Relay : Proto::Trunkfield;
    if (opt.proto == Proto::Relay && opt.transport != Transport::Ws) {
        std::fprintf(stderr, "tf-loadgen: the relay speaks WebSocket only\n");
        return 2;
    }
    if (opt.games > 0 && opt.rate > 0 && opt.rate / opt.games > 1000) {
        std::fprintf(stderr, "tf-loadgen: over 1000 moves/s per game; use more games\n");
        return 2;
    }
    opt.run_id = std::to_string(getpid()) + "x" + std::to_string(std::random_device{}() % 100000);
    raise_fd_limit();

    net::io_context ioc(opt.threads);
    auto guard = net::make_work_guard(ioc);
    net::ip::tcp::endpoint ep;
    try {
        net::ip::tcp::resolver res(ioc);
        ep = *res.resolve(opt.host, std::to_string(opt.port)).begin();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tf-loadgen: cannot resolve %s: %s\n", opt.host.c_str(), e.what());
        return 2;
    }
    std::vector<std::thread> threads;
    for (int i = 0; i < opt.threads; ++i) threads.emplace_back([&] { ioc.run(); });

    Connector connector(ep, opt.host + ":" + std::to_string(opt.port), opt.parallel);
    if (opt.port2) connector.second(net::ip::tcp::endpoint(ep.address(), opt.port2));
    if (opt.port2 && opt.port3) connector.third(net::ip::tcp::endpoint(ep.address(), opt.port3));
    std::vector<std::unique_ptr<Slot>> slots;
    for (int i = 0; i < opt.games; ++i)
        slots.push_back(std::make_unique<Slot>(i, ioc, opt, connector));
    for (auto& s : slots) s->connect();
    std::map<std::string, std::int64_t> setup_errors;
    if (!wait_for(
            [&] {
                return std::all_of(slots.begin(), slots.end(), [](auto& s) { return s->ready(); });
            },
            300))
        ++setup_errors["connect_timeout"];

    nlohmann::json result;
    auto server = [&] { return opt.server_pid ? read_proc(opt.server_pid) : std::nullopt; };
    IdleSet idle(ioc, opt, connector);
    if (opt.idle > 0) {
        auto before = server();
        idle.connect();
        if (!wait_for([&] { return idle.settled() == opt.idle; }, 300))
            ++setup_errors["idle_connect_timeout"];
        std::this_thread::sleep_for(std::chrono::seconds(1));  // let the server settle
        auto after = server();
        nlohmann::json j = {{"requested", opt.idle}, {"open", idle.ready()}};
        j["rss_before_kb"] = before ? nlohmann::json(before->rss_kb) : nlohmann::json(nullptr);
        j["rss_after_kb"] = after ? nlohmann::json(after->rss_kb) : nlohmann::json(nullptr);
        j["bytes_per_conn"] =
            before && after && idle.ready() > 0
                ? nlohmann::json(double(after->rss_kb - before->rss_kb) * 1024.0 / idle.ready())
                : nlohmann::json(nullptr);
        result["idle_conns"] = j;
    }

    auto t0 = Clock::now() + std::chrono::milliseconds(20);
    Window w;
    w.start =
        t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.warmup));
    w.end = w.start + std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double>(opt.duration));
    for (std::size_t i = 0; i < slots.size(); ++i) {
        auto offset = opt.rate > 0 ? std::chrono::duration<double>(double(i) / opt.rate)
                                   : std::chrono::duration<double>(0);
        slots[i]->begin(t0 + std::chrono::duration_cast<Clock::duration>(offset), w);
    }
    std::this_thread::sleep_until(w.start);
    auto others = [&] {
        std::vector<double> cpu;
        for (int pid : other_pids) {
            auto p = read_proc(pid);
            cpu.push_back(p ? p->cpu_s : 0.0);
        }
        return cpu;
    };
    auto s0 = server();
    const auto o0 = others();
    double self0 = self_cpu_seconds();
    std::this_thread::sleep_until(w.end);
    auto s1 = server();
    const auto o1 = others();
    double self1 = self_cpu_seconds();
    bool drained = wait_for(
        [&] {
            for (auto& s : slots) s->poll_drained();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            return std::all_of(slots.begin(), slots.end(), [](auto& s) { return s->drained(); });
        },
        opt.drain);
    ioc.stop();
    for (auto& t : threads) t.join();

    Tally all;
    for (auto& s : slots) all.merge(s->finish());
    if (!moves_csv.empty()) {
        std::sort(all.moves.begin(), all.moves.end());
        std::ofstream out(moves_csv);
        out << "due_s,opponent_ms\n" << std::fixed;
        for (auto& [due, us] : all.moves)
            out << std::setprecision(6)
                << std::chrono::duration<double>(due.time_since_epoch()).count() << ','
                << std::setprecision(3) << double(us) / 1000 << '\n';
        if (!out) std::cerr << "tf-loadgen: cannot write " << moves_csv << "\n";
    }
    for (auto& [k, v] : idle.errors()) all.errors[k] += v;
    for (auto& [k, v] : setup_errors) all.errors[k] += v;
    std::int64_t errors = 0;
    for (auto& [k, v] : all.errors) errors += v;

    result["tool"] = "tf-loadgen";
    result["options"] = {{"proto", proto},
                         {"transport", transport},
                         {"games", opt.games},
                         {"spectators", opt.spectators},
                         {"idle", opt.idle},
                         {"rate", opt.rate},
                         {"duration_s", opt.duration},
                         {"warmup_s", opt.warmup},
                         {"threads", opt.threads},
                         {"seed", opt.seed}};
    result["turns_due"] = all.scheduled;
    result["turns_sent"] = all.sent;
    result["turns_delivered"] = all.delivered;
    result["turns_per_s"] = double(all.delivered) / opt.duration;
    result["games_started"] = all.games_started;
    result["latency_ms"] = {{"opponent", all.opp.summary()},
                            {"ack", all.ack.summary()},
                            {"spectator", all.spec.summary()},
                            {"send_lag", all.lag.summary()}};
    result["spectator_by_node_ms"] = {all.spec_by[0].summary(), all.spec_by[1].summary(),
                                      all.spec_by[2].summary()};
    result["lost"] = all.lost;
    result["undelivered"] = all.undelivered;
    result["out_of_order"] = all.out_of_order;
    result["errors"] = errors;
    result["error_kinds"] = all.errors;
    result["drained"] = drained;
    result["ok"] = all.lost == 0 && all.undelivered == 0 && all.out_of_order == 0 && errors == 0;
    if (!other_pids.empty()) {
        double total = 0;
        nlohmann::json each = nlohmann::json::object();
        for (std::size_t i = 0; i < other_pids.size(); ++i) {
            total += o1[i] - o0[i];
            each[std::to_string(other_pids[i])] = o1[i] - o0[i];
        }
        result["others_cpu_s"] = total;
        result["others"] = each;
    }
    if (s0 && s1) {
        result["server"] = {{"pid", opt.server_pid},
                            {"cpu_s", s1->cpu_s - s0->cpu_s},
                            {"cpu_pct", 100 * (s1->cpu_s - s0->cpu_s) / opt.duration},
                            {"rss_kb", s1->rss_kb},
                            {"hwm_kb", s1->hwm_kb}};
    }
    result["loadgen_cpu_pct"] = 100 * (self1 - self0) / opt.duration;

    std::string line = result.dump();
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (!json_out.empty())
        if (FILE* f = std::fopen(json_out.c_str(), "a")) {
            std::fprintf(f, "%s\n", line.c_str());
            std::fclose(f);
        }
    print_table(result);
    std::fflush(stderr);
    // Thousands of sockets and their handlers: let the kernel close them.
    _exit(result["ok"].get<bool>() ? 0 : 1);
}
