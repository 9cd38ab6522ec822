// trunkfield-server: the authoritative game server (docs/ARCHITECTURE.md, proto/PROTOCOL.md).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <thread>
#include <vector>

#include "server/hub.h"
#include "server/listener.h"
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
    app.add_option("--log-level", level, "trace, debug, info, warn, error, critical or off");
    app.add_option("--threads", cfg.threads, "threads running the io_context")
        ->check(CLI::Range(1, 256));
    app.add_option("--grace-seconds", cfg.grace_seconds,
                   "grace period for a disconnected player (reserved)");
    app.add_option("--rate", cfg.rate_per_second, "message credits per second per connection")
        ->check(CLI::PositiveNumber);
    app.add_option("--burst", cfg.rate_burst, "message credit bucket size")
        ->check(CLI::PositiveNumber);
    app.add_option("--history", cfg.history, "events kept per game for reconnection")
        ->check(CLI::Range(1, 1 << 20));
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
