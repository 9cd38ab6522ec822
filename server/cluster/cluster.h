// Several server nodes on one PostgreSQL and one Redis (docs/ARCHITECTURE.md "Several nodes"):
// any node serves any player, and a dead node's games go on on the others.
//
// PostgreSQL is the only truth. Each node holds a lease (table `nodes`, renewed every third of
// --lease-ms); each game has an owner node and an epoch (table `games`), and every write of a
// game carries both, so the store refuses it once another node took the game over (fencing,
// GameWrite::epoch). Survivors claim the unfinished games of a node whose lease expired
// (FOR UPDATE SKIP LOCKED, epoch + 1), replay their journals through the rules and serve them,
// as a restart would. Quick-match requests wait in table `seeks`, paired under a lock per pool.
//
// Redis is a fast path that may be lost (server/cluster/bus.h): a request about a game held by
// another node is forwarded to its owner as the client sent it, on the owner's channel; the owner
// runs it through a stand-in connection (BusSession) whose messages come back on the origin's
// channel. The origin remembers the last version it passed on per game, so when the game moves
// (a takeover, announced on the common channel) or Redis comes back after an outage, it asks
// the owner to replay from there: the client sees contiguous versions. The lobby's entries
// cross the common channel too, each node keeping the whole lists.
//
// Threads: the public methods are thread-safe; PostgreSQL work runs on a thread of its own
// (blocking libpq, never on a network thread), bus messages arrive on the bus's strand.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "proto/messages.h"
#include "server/base/participant.h"
#include "server/cluster/bus.h"
#include "server/lobby/matchmaker.h"
#include "server/session/peers.h"

namespace tf::server {

struct Hub;
class Session;

// Makes a node's bus from its channels and handlers (the in-process tests' bus in memory).
using BusMaker = std::function<std::unique_ptr<BusLink>(std::vector<std::string> channels,
                                                        BusLink::Handlers handlers)>;

class Cluster final : public Peers {
  public:
    // `make_bus`: empty for Redis at --bus.
    explicit Cluster(Hub& hub, BusMaker make_bus = {});
    ~Cluster();
    Cluster(const Cluster&) = delete;
    Cluster& operator=(const Cluster&) = delete;

    // At start, before serving (blocking): takes the lease, claims the unfinished games this
    // node id owned before and those nobody owns, starts the bus. False when PostgreSQL cannot
    // be used (the server must not start).
    bool start();
    // SIGTERM, once the rooms' writes are committed (blocking, at most a few seconds): gives
    // the games up (owner NULL, epoch + 1) and the lease, and tells the other nodes, which
    // claim them at once.
    void hand_over();
    // Stops the bus, the timers and the database thread; no callbacks after it returns.
    void stop();

    const std::string& node() const;
    // The bus is up and the lease is held (for /readyz); `why` says what is wrong.
    bool healthy(std::string* why = nullptr) const override;

    // A connection's request about `code`, a game no room of this node holds: sent to its
    // owner (looked up in PostgreSQL), in order with the connection's other requests about it;
    // `text` as the client sent it, `msg` parsed. Run there once, answered once, whatever
    // faults follow (a re-send after a fault is answered from the owner's memory).
    bool forward(const std::shared_ptr<Session>& from, const Player& p, const std::string& code,
                 std::string text, const proto::ClientMsg& msg) override;
    // The connection closed (every node serving it a game is told; its seek is withdrawn).
    void closed(Session& s, const std::string& player_id) override;
    // The store's seats (every node's: a seat is committed before it is acknowledged); this
    // node's own list joins them only when the store cannot be read.
    void seated_games(const std::string& player_id, Store::Executor ex,
                      std::function<void(std::vector<std::string>)> then) override;
    // The other nodes' open games, as the store knows them.
    void open_elsewhere(const std::string& player_id, const std::string& address,
                        Store::Executor ex, Store::Then<OpenGameCounts> then) override;

    // Quick match in the shared pool (PROTOCOL.md "Quick match"): pairs `s`'s player with the
    // oldest compatible request of another player, or files its request; the answer goes to
    // GameMaker::match_found or match_waiting on the connection's strand.
    void seek(const std::shared_ptr<Session>& s, const Player& p, const proto::QuickMatch& m,
              const std::string& pool, std::optional<int> rating) override;
    // A waiting rated request tried again with its wider range (every second).
    void retry_seek(const std::shared_ptr<Session>& s, const Player& p, const proto::QuickMatch& m,
                    const std::string& pool, std::optional<int> rating) override;
    void withdraw(const std::string& player_id) override;
    // Every connection of the player on the other nodes ends (its tokens were revoked).
    void end_player(const std::string& player_id, const std::string& reason, bool closed) override;
    void tell_player(const std::string& player_id, const std::string& text) override;
    void relations_changed(const std::string& player_id) override;
    void render_metrics(std::string& out) const override;

    struct Stats {
        std::uint64_t forwarded_out = 0, forwarded_in = 0, catchups = 0, takeovers = 0;
        std::uint64_t bus_published = 0, bus_received = 0, bus_dropped = 0, bus_reconnects = 0;
        std::uint64_t lease_failures = 0;
        // Answers not passed on: a second one to a request, or one from a node that lost the
        // game while the request went again to its new owner.
        std::uint64_t answers_dropped = 0;
        // What this node sent connections of other nodes: bus messages, and the deliveries
        // they carried (an event for several watchers on one node is one message).
        std::uint64_t out_messages = 0, out_deliveries = 0;
        std::size_t remote_connections = 0, routes = 0, nodes_alive = 0;
        bool bus_up = false;
    };
    Stats stats() const;

    class Impl;

  private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace tf::server
