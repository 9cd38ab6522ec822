// Quick match across nodes (PROTOCOL.md "Quick match"), beside Matchmaker: requests wait in
// PostgreSQL's table `seeks` and are paired under an advisory lock per pool, so that a player
// on one node meets one on another; the pairing answers on the requester's connection. A
// request whose connection is on another node is reached through its stand-in here.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "proto/messages.h"
#include "server/base/participant.h"
#include "server/cluster/cluster_core.h"
#include "server/lobby/matchmaker.h"

namespace tf::server {
class Session;
}

namespace tf::server::cluster_detail {

class SharedPool {
  public:
    // The stand-in of another node's connection (origin process, connection), made if need be.
    using Remote = std::function<std::shared_ptr<Member>(const std::string& origin,
                                                         std::uint64_t conn, const Player& p)>;
    SharedPool(Core& core, Remote remote) : core_(core), remote_(std::move(remote)) {}
    // Pairs `s`'s player with the oldest compatible request of another player, or files its
    // request (`retry`: the waiting request again, with its wider range); the answer goes to
    // GameMaker::match_found or match_waiting, from the database thread.
    void seek(const std::shared_ptr<Session>& s, const Player& p, const proto::QuickMatch& m,
              const std::string& pool, std::optional<int> rating, bool retry);
    void withdraw(const std::string& player_id);
    // The connection closed: its request is withdrawn.
    void closed(std::uint64_t conn, const std::string& player_id);
    // A connection of this node with a request waiting (null when none, or closed).
    std::shared_ptr<Session> seeker(std::uint64_t conn);

  private:
    struct Found {
        std::string player_id, name, node;
        bool account = false;
        std::uint64_t conn = 0;
        std::optional<int> rating;
    };
    Core& core_;
    Remote remote_;
    std::mutex m_;
    std::map<std::uint64_t, std::weak_ptr<Session>> seekers_;
};

}  // namespace tf::server::cluster_detail
