// What a node shares with the other nodes of the platform, as the connections see it: one node
// alone (SingleNode, below) or several on PostgreSQL and Redis (server/cluster/cluster.h). A
// session asks its hub's Peers and never which of the two it runs in (docs/ARCHITECTURE.md "The
// server's parts").
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proto/messages.h"
#include "server/store/store.h"

namespace tf::server {

struct Hub;
struct Player;
class Session;

class Peers {
  public:
    virtual ~Peers() = default;

    // A connection's request about `code`: true when another node holds the game and the
    // request went there (its answers come back on the connection); false when it is this
    // node's to handle (its room is here, or no node holds it).
    virtual bool forward(const std::shared_ptr<Session>& from, const Player& p,
                         const std::string& code, std::string text,
                         const proto::ClientMsg& msg) = 0;
    // The connection closed.
    virtual void closed(Session& s, const std::string& player_id) = 0;

    // The unfinished games the player holds a seat in, for `welcome` (on `ex`).
    virtual void seated_games(const std::string& player_id, Store::Executor ex,
                              std::function<void(std::vector<std::string>)> then) = 0;
    // The games of the player and of the address waiting for an opponent on the other nodes
    // (the limits of PROTOCOL.md "Limits" count every node's).
    virtual void open_elsewhere(const std::string& player_id, const std::string& address,
                                Store::Executor ex, Store::Then<OpenGameCounts> then) = 0;

    // Quick match (PROTOCOL.md "Quick match"): pairs the player with a waiting request of
    // another player or files its request; the answer goes to GameMaker::match_found,
    // match_waiting, match_waiting_again or match_done, on the connection's strand.
    virtual void seek(const std::shared_ptr<Session>& s, const Player& p,
                      const proto::QuickMatch& m, const std::string& pool,
                      std::optional<int> rating) = 0;
    // A waiting rated request tried again with its wider range (every second).
    virtual void retry_seek(const std::shared_ptr<Session>& s, const Player& p,
                            const proto::QuickMatch& m, const std::string& pool,
                            std::optional<int> rating) = 0;
    virtual void withdraw(const std::string& player_id) = 0;

    // Every connection of the player elsewhere ends (its tokens were revoked; `closed`: with
    // its account, Member::end); this node's own connections are the caller's.
    virtual void end_player(const std::string& player_id, const std::string& reason,
                            bool closed) = 0;
    // `text` (a server message) goes to every connection of the player on the other nodes
    // (a notification; this node's own connections are the caller's). At most once: a node
    // cut off from the others misses it, and the player finds it in the stored list.
    virtual void tell_player(const std::string& player_id, const std::string& text) = 0;
    // The player's blocks changed: its connections on the other nodes read them again.
    virtual void relations_changed(const std::string& player_id) = 0;

    // Ready to serve (for /readyz); `why` says what is wrong.
    virtual bool healthy(std::string* why) const = 0;
    // Its Prometheus lines (server/base/metrics.cpp), none for a node alone.
    virtual void render_metrics(std::string& out) const = 0;
};

// One node alone: it holds every game there is, its matchmaker is the only pool.
class SingleNode final : public Peers {
  public:
    explicit SingleNode(Hub& hub) : hub_(hub) {}
    bool forward(const std::shared_ptr<Session>&, const Player&, const std::string&, std::string,
                 const proto::ClientMsg&) override {
        return false;
    }
    void closed(Session&, const std::string&) override {}
    void seated_games(const std::string& player_id, Store::Executor ex,
                      std::function<void(std::vector<std::string>)> then) override;
    void open_elsewhere(const std::string&, const std::string&, Store::Executor,
                        Store::Then<OpenGameCounts> then) override;
    void seek(const std::shared_ptr<Session>& s, const Player& p, const proto::QuickMatch& m,
              const std::string& pool, std::optional<int> rating) override;
    void retry_seek(const std::shared_ptr<Session>& s, const Player& p, const proto::QuickMatch& m,
                    const std::string& pool, std::optional<int> rating) override;
    void withdraw(const std::string& player_id) override;
    void end_player(const std::string&, const std::string&, bool) override {}
    void tell_player(const std::string&, const std::string&) override {}
    void relations_changed(const std::string&) override {}
    bool healthy(std::string*) const override { return true; }
    void render_metrics(std::string&) const override {}

  private:
    Hub& hub_;
};

}  // namespace tf::server
