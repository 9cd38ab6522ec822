// trunkfield-server: the authoritative game server (docs/ARCHITECTURE.md, proto/PROTOCOL.md).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <filesystem>
#include <thread>
#include <vector>

#include "server/hub.h"
#include "server/listener.h"
#include "server/static_files.h"
#include "server/transports.h"

namespace net = boost::asio;
using tf::server::Config;

int main(int argc, char** argv) {
    Config cfg;
    std::string level = "info";
    CLI::App app{"Trunkfield game server"};
    app.add_option("--http-port", cfg.http_port, "HTTP and WebSocket (/ws) port, 0 = any free");
    app.add_option("--tcp-port", cfg.tcp_port, "newline-delimited JSON port, 0 = any free");
    app.add_option("--bind", cfg.bind, "address to listen on");
    app.add_option("--data", cfg.data_dir, "data directory (reserved; nothing is stored yet)");
    cfg.web_root = tf::server::default_web_root();
    app.add_option("--web-root", cfg.web_root,
                   "folder of the web client served at / (default: <exe dir>/../web)");
    app.add_option("--log-level", level, "trace, debug, info, warn, error, critical or off");
    app.add_option("--threads", cfg.threads, "threads running the io_context")
        ->check(CLI::Range(1, 256));
    app.add_option("--grace-seconds", cfg.grace_seconds,
                   "grace period for a disconnected player before the opponent may claim the "
                   "win (awarded after twice this); fractions allowed")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--award-seconds", cfg.award_seconds,
                   "after the grace period, award the win unclaimed this much later "
                   "(default: one more grace period)");
    app.add_option("--start-timeout-seconds", cfg.start_timeout_seconds,
                   "abort a game whose setups and silver's first turn are not done this long "
                   "after both seats are filled; fractions allowed")
        ->check(CLI::PositiveNumber);
    app.add_option("--retention-seconds", cfg.retention_seconds,
                   "keep a finished game in memory this long; fractions allowed")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--chat-lines", cfg.chat_lines, "chat lines per player per game per window")
        ->check(CLI::Range(1, 1000));
    app.add_option("--chat-window-seconds", cfg.chat_window_seconds,
                   "chat rate window; fractions allowed")
        ->check(CLI::PositiveNumber);
    app.add_option("--rate", cfg.rate_per_second, "message credits per second per connection")
        ->check(CLI::PositiveNumber);
    app.add_option("--burst", cfg.rate_burst, "message credit bucket size")
        ->check(CLI::PositiveNumber);
    app.add_option("--history", cfg.history, "events kept per game for reconnection")
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--live-interval-ms", cfg.live_interval_ms,
                   "live-games list: at most one turn update per interval (0 = every turn)")
        ->check(CLI::Range(0, 3600000));
    CLI11_PARSE(app, argc, argv);

    auto lvl = spdlog::level::from_str(level);
    if (lvl == spdlog::level::off && level != "off") {
        spdlog::error("unknown log level {}", level);
        return 2;
    }
    spdlog::set_level(lvl);
    spdlog::flush_on(spdlog::level::trace);

    net::io_context ioc(cfg.threads);
    auto hub = std::make_unique<tf::server::Hub>(ioc, cfg);
    hub->lobby.set_live_interval(std::chrono::milliseconds(cfg.live_interval_ms));
    std::shared_ptr<tf::server::Listener> http, tcp;
    try {
        auto addr = net::ip::make_address(cfg.bind);
        http = std::make_shared<tf::server::Listener>(
            ioc, net::ip::tcp::endpoint(addr, cfg.http_port),
            [h = hub.get()](net::ip::tcp::socket s) {
                tf::server::start_http_session(std::move(s), *h);
            });
        tcp = std::make_shared<tf::server::Listener>(
            ioc, net::ip::tcp::endpoint(addr, cfg.tcp_port),
            [h = hub.get()](net::ip::tcp::socket s) {
                tf::server::start_tcp_session(std::move(s), *h);
            });
    } catch (const std::exception& e) {
        spdlog::critical("cannot listen: {}", e.what());
        return 1;
    }
    http->run();
    tcp->run();
    net::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](boost::system::error_code, int sig) {
        spdlog::info("signal {}: stopping", sig);
        ioc.stop();
    });
    if (!cfg.web_root.empty() &&
        !std::filesystem::is_regular_file(std::filesystem::path(cfg.web_root) / "index.html"))
        spdlog::warn("web root {} has no index.html: the web client is not served", cfg.web_root);
    spdlog::info("listening http={}:{} tcp={}:{}", cfg.bind, http->port(), cfg.bind, tcp->port());

    std::vector<std::thread> threads;
    for (int i = 1; i < cfg.threads; ++i) threads.emplace_back([&] { ioc.run(); });
    ioc.run();
    for (auto& t : threads) t.join();
    http.reset();
    tcp.reset();
    hub.reset();  // rooms and the lobby go before the io_context and its pending handlers
    return 0;
}
