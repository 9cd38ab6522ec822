// Quick match (PROTOCOL.md "Quick match"): waiting requests, at most one per player, in pools
// keyed by time control and variant. Pairing is one atomic step (find the oldest request of
// another player in the pool and take it out), so a player is never paired twice nor with
// itself: the shape it must keep when the pool becomes shared between nodes. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/player_index.h"

namespace tf::server {

// A waiting quick-match request. `key` identifies the pool (time control and variant).
struct Seek {
    Player player;
    std::string key;
    std::weak_ptr<Member> who;  // the connection told about the match
};

class Matchmaker {
  public:
    // Pairs `p` with the oldest waiting request of another player in the same pool and returns
    // it (removed), or files (or replaces) p's own request and returns nullopt.
    std::optional<Seek> pair(const Player& p, const std::string& key,
                             const std::shared_ptr<Member>& who);
    // Withdraws p's request; false when there was none.
    bool withdraw(const std::string& player_id);
    // The connection `who` of the player closed: a request it made moves to `other` (another
    // connection of the player), or is withdrawn when there is none.
    void closed(const std::string& player_id, const Member* who,
                const std::shared_ptr<Member>& other);
    std::size_t waiting();

  private:
    std::mutex m_;
    std::vector<Seek> seeks_;  // oldest first, at most one per player
};

}  // namespace tf::server
