// The services every connection shares, owned by main() and outliving every session and room:
// settings, the store, identities, the lobby in its parts (the room directory, the listings,
// the player index, the matchmaker; docs/ARCHITECTURE.md "The server's parts"), the ratings
// last seen and the login limits, the io_context (rooms get their strands from it), a worker
// pool for the computer opponents, a thread for password hashes and one for puzzles.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <functional>
#include <memory>

#include "server/accounts/identity.h"
#include "server/accounts/login_limit.h"
#include "server/accounts/password_pool.h"
#include "server/accounts/ratings.h"
#include "server/base/config.h"
#include "server/director/tournaments.h"
#include "server/lobby/listings.h"
#include "server/lobby/matchmaker.h"
#include "server/lobby/player_index.h"
#include "server/net/client_address.h"
#include "server/net/conn_limit.h"
#include "server/puzzles/puzzle_service.h"
#include "server/room/directory.h"
#include "server/room/room_services.h"
#include "server/session/peers.h"
#include "server/social/social_service.h"
#include "server/store/store.h"

namespace tf::server {

struct Hub {
    Hub(boost::asio::io_context& io, Config c, std::unique_ptr<Store> s)
        : ioc(io),
          cfg(std::move(c)),
          store(std::move(s)),
          workers(std::size_t(cfg.workers)),
          passwords(cfg.password_threads, cfg.password_queue),
          logins(cfg.login_checks_per_address),
          directory(factory, services),  // stores references only: constructed in this order
          services{listings, players,   directory, *store,
                   cfg,      offload(), ratings,   cfg.bus.empty() ? std::string() : cfg.node_id},
          factory(ioc, services),
          conn_limit(conn_limiter(cfg.max_connections_per_ip, cfg.max_connections)) {
        std::string error;  // main() refused a bad list before
        if (auto t = TrustedProxies::parse(cfg.trusted_proxies, error)) trusted = std::move(*t);
        identity.attach(store.get());
        listings.configure(cfg.list_limit, std::chrono::milliseconds(cfg.live_interval_ms),
                           std::chrono::milliseconds(cfg.lobby_interval_ms), ioc.get_executor());
    }
    ~Hub() {
        if (tournaments) tournaments->stop();
        tournaments.reset();  // its games are made through the directory and told through social
        social.reset();       // its thread delivers to the player index: joined while that lives
        passwords.join();
        workers.join();
    }
    // Runs blocking work (a bot's search) on the worker pool.
    std::function<void(std::function<void()>)> offload() {
        return [this](std::function<void()> f) { boost::asio::post(workers, std::move(f)); };
    }
    boost::asio::io_context& ioc;
    Config cfg;
    std::unique_ptr<Store> store;  // declared before the rooms' owners: outlives every room
    // The puzzles (proto/PROTOCOL.md "Puzzle API"), set by main() for a store that keeps them;
    // destroyed before the store (the miner reads games from it).
    std::unique_ptr<PuzzleService> puzzles;
    // The players' notifications (proto/PROTOCOL.md "Notifications"), set by main() for a store
    // that keeps accounts; null for --store memory.
    std::unique_ptr<SocialService> social;
    // Tournaments (docs/TOURNAMENTS.md), started by main() once the games are back, for a store
    // that keeps accounts; null for --store memory.
    std::shared_ptr<TournamentService> tournaments;
    boost::asio::thread_pool workers;
    // Password hashing (Argon2id: 64 MiB and ~40 ms each) off the network threads, one thread
    // per core behind a bounded queue (server/accounts/password_pool.h).
    PasswordPool passwords;
    Identity identity;
    RatingBook ratings;
    LoginLimiter logins;
    Listings listings;
    PlayerIndex players;
    Matchmaker matchmaker;
    LocalDirectory directory;
    RoomServices services;
    RoomFactory factory;
    ConnLimiter& conn_limit;  // --max-connections(-per-ip), over both listeners (process-wide)
    TrustedProxies trusted;   // --trusted-proxies
    std::atomic<bool> ready{false};  // /readyz: store open, accepting, not shutting down
    // The other nodes: none (alone), or the cluster's (--bus) that main() sets before serving
    // and resets after the last connection; sessions ask it, never which it is.
    SingleNode alone{*this};
    Peers* peers = &alone;
};

}  // namespace tf::server
