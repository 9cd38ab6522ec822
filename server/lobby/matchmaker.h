// Quick match (PROTOCOL.md "Quick match"): waiting requests, at most one per player, in pools
// keyed by time control and variant. Pairing is one atomic step (find the oldest request of
// another player in the pool and take it out), so a player is never paired twice nor with
// itself: the shape it must keep when the pool becomes shared between nodes. Thread-safe.
//
// Rated pools pair by rating: a request accepts opponents within its range, 100 points at
// first, widening by 25 a second while it waits (lichess widens its pools the same way); two
// requests pair when their ratings are within the wider of their two ranges. The waiting side
// asks again (retry) as its range grows.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/lobby/player_index.h"

namespace tf::server {

// A waiting quick-match request. `key` identifies the pool (time control and variant).
struct Seek {
    Player player;
    std::string key;
    std::weak_ptr<Member> who;  // the connection told about the match
    std::optional<int> rating;  // a rated request: the player's rating in the pool's category
    std::chrono::steady_clock::time_point since{};
    // Accounts this one must not meet (blocked either way; PROTOCOL.md "Follow and block"),
    // sorted.
    std::vector<std::string> avoid = {};
};

class Matchmaker {
  public:
    // Pairs `p` with the oldest waiting request of another player in the same pool and returns
    // it (removed), or files (or replaces) p's own request and returns nullopt.
    // Players who `avoid` one another (either's list) are never paired.
    std::optional<Seek> pair(
        const Player& p, const std::string& key, const std::shared_ptr<Member>& who,
        std::optional<int> rating = std::nullopt,
        std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now(),
        std::vector<std::string> avoid = {});
    // A waiting rated request of `player_id` tried again with the range it has now: the
    // opponent found (both requests removed), or nullopt (still waiting, or no request).
    std::optional<Seek> retry(
        const std::string& player_id,
        std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
    // The rating range of a rated request after `waited`: kRangeBase points, widening by
    // kRangePerSecond each second for kRangeWidenSeconds (also in the cluster's SQL, built
    // from these).
    static constexpr int kRangeBase = 100, kRangePerSecond = 25, kRangeWidenSeconds = 3600;
    static int range(std::chrono::steady_clock::duration waited);
    bool waiting_for(const std::string& player_id);
    // Withdraws p's request; false when there was none.
    bool withdraw(const std::string& player_id);
    // The connection `who` of the player closed: a request it made moves to `other` (another
    // connection of the player), or is withdrawn when there is none.
    void closed(const std::string& player_id, const Member* who,
                const std::shared_ptr<Member>& other);
    std::size_t waiting();

  private:
    bool compatible(const Seek& a, const Seek& b, std::chrono::steady_clock::time_point now) const;
    std::mutex m_;
    std::vector<Seek> seeks_;  // oldest first, at most one per player
};

}  // namespace tf::server
