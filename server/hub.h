// The services every connection shares: settings, the store, identities, the lobby, the
// io_context (rooms get their strands from it) and a worker pool for blocking work (store
// reads, computer opponents). Owned by main(); outlives every session and room.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <functional>
#include <memory>

#include "server/config.h"
#include "server/conn_limit.h"
#include "server/identity.h"
#include "server/lobby.h"
#include "server/store.h"

namespace tf::server {

struct Hub {
    Hub(boost::asio::io_context& io, Config c, std::unique_ptr<Store> s)
        : ioc(io),
          cfg(std::move(c)),
          store(std::move(s)),
          workers(std::size_t(cfg.workers)),
          conn_limit(conn_limiter(cfg.max_connections_per_ip)) {
        identity.attach(store.get());
        lobby.code_taken = [st = store.get()](const std::string& code) {
            try {
                return st->code_taken(code);
            } catch (const std::exception&) {
                return true;  // unsure: draw another code
            }
        };
    }
    ~Hub() { workers.join(); }
    // Runs blocking work (a bot's search) on the worker pool.
    std::function<void(std::function<void()>)> offload() {
        return [this](std::function<void()> f) { boost::asio::post(workers, std::move(f)); };
    }
    boost::asio::io_context& ioc;
    Config cfg;
    std::unique_ptr<Store> store;  // declared before the lobby: outlives every room
    boost::asio::thread_pool workers;
    Identity identity;
    Lobby lobby;
    ConnLimiter& conn_limit;         // --max-connections-per-ip, over both listeners (process-wide)
    std::atomic<bool> ready{false};  // /readyz: store open, accepting, not shutting down
};

}  // namespace tf::server
