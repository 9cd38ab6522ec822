// Ratings on the server's side (PROTOCOL.md "Ratings"; the math in server/accounts/glicko2.h): what
// every store does inside the transaction that ends a rated game, how a stored rating is shown, and
// the process's book of the ratings it last saw per player (what seats, lobby and live entries
// show; the store's rows are the truth the next rated game is computed from).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/ratings.h"
#include "server/base/time.h"
#include "server/store/store.h"

namespace tf::server {

// Both players' ratings after `g`, from `before` (a player new to the category: a default
// StoredRating with its category set). Also sets games and last_ms.
RateGame::Outcome rate_game(const RateGame& g, const StoredRating before[2]);

// A puzzle attempt (proto/PROTOCOL.md "Puzzle API") as one rated game between the reader and
// the puzzle, the reader scoring 1 when solved: {the reader's rating after, the puzzle's}.
std::pair<StoredRating, StoredRating> rate_puzzle(const StoredRating& player,
                                                  const StoredRating& puzzle, bool solved,
                                                  std::int64_t at_ms);

// A stored rating as players see it at `now_ms`: its deviation grown with the time since its
// last game, rounded.
proto::RatingView rating_view(const StoredRating& r, std::int64_t now_ms);

// The leaderboard's rule: a rating that is no longer provisional, and a rated game within the
// last 30 days.
inline constexpr std::int64_t kLeaderboardActiveMs = 30LL * 24 * 3600 * 1000;

// Names nobody may register: the server's own words, and names that pass for a guest, a
// computer opponent or staff.
bool reserved_username(std::string_view username);

// The ratings this process last saw, per player and category. Thread-safe.
class RatingBook {
  public:
    void set(const std::string& player_id, const std::vector<StoredRating>& ratings);
    void set(const std::string& player_id, const StoredRating& r);
    std::optional<StoredRating> get(const std::string& player_id, const std::string& category);
    std::map<std::string, proto::RatingView> views(const std::string& player_id);
    // The view of a category's rating, a new player's when the book has none.
    proto::RatingView view(const std::string& player_id, const std::string& category);

  private:
    std::mutex m_;
    std::map<std::string, std::map<std::string, StoredRating>> by_player_;
};

}  // namespace tf::server
