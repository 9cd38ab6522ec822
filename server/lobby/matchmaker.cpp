#include "server/lobby/matchmaker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

namespace tf::server {

int Matchmaker::range(std::chrono::steady_clock::duration waited) {
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(waited).count();
    return int(kRangeBase +
               kRangePerSecond *
                   std::max<std::int64_t>(0, std::min<std::int64_t>(s, kRangeWidenSeconds)));
}

bool Matchmaker::compatible(const Seek& a, const Seek& b,
                            std::chrono::steady_clock::time_point now) const {
    if (a.key != b.key || a.player.id == b.player.id) return false;
    if (std::binary_search(a.avoid.begin(), a.avoid.end(), b.player.id) ||
        std::binary_search(b.avoid.begin(), b.avoid.end(), a.player.id))
        return false;
    if (!a.rating || !b.rating) return !a.rating && !b.rating;
    const int gap = std::abs(*a.rating - *b.rating);
    return gap <= std::max(range(now - a.since), range(now - b.since));
}

std::optional<Seek> Matchmaker::pair(const Player& p, const std::string& key,
                                     const std::shared_ptr<Member>& who, std::optional<int> rating,
                                     std::chrono::steady_clock::time_point now,
                                     std::vector<std::string> avoid) {
    std::lock_guard lock(m_);
    std::erase_if(seeks_, [&](const Seek& s) { return s.player.id == p.id || s.who.expired(); });
    Seek mine{p, key, who, rating, now, std::move(avoid)};
    auto it = std::find_if(seeks_.begin(), seeks_.end(),
                           [&](const Seek& s) { return compatible(mine, s, now); });
    if (it == seeks_.end()) {
        seeks_.push_back(std::move(mine));
        return std::nullopt;
    }
    Seek found = std::move(*it);
    seeks_.erase(it);
    return found;
}

std::optional<Seek> Matchmaker::retry(const std::string& player_id,
                                      std::chrono::steady_clock::time_point now) {
    std::lock_guard lock(m_);
    std::erase_if(seeks_, [&](const Seek& s) { return s.who.expired(); });
    auto mine = std::find_if(seeks_.begin(), seeks_.end(),
                             [&](const Seek& s) { return s.player.id == player_id; });
    if (mine == seeks_.end()) return std::nullopt;
    auto it = std::find_if(seeks_.begin(), seeks_.end(),
                           [&](const Seek& s) { return compatible(*mine, s, now); });
    if (it == seeks_.end()) return std::nullopt;
    Seek found = std::move(*it);
    // Both go: erase the later position first so the other iterator stays valid.
    if (it > mine) {
        seeks_.erase(it);
        seeks_.erase(mine);
    } else {
        seeks_.erase(mine);
        seeks_.erase(it);
    }
    return found;
}

bool Matchmaker::waiting_for(const std::string& player_id) {
    std::lock_guard lock(m_);
    return std::any_of(seeks_.begin(), seeks_.end(),
                       [&](const Seek& s) { return s.player.id == player_id; });
}

bool Matchmaker::withdraw(const std::string& player_id) {
    std::lock_guard lock(m_);
    return std::erase_if(seeks_, [&](const Seek& s) { return s.player.id == player_id; }) > 0;
}

void Matchmaker::closed(const std::string& player_id, const Member* who,
                        const std::shared_ptr<Member>& other) {
    std::lock_guard lock(m_);
    auto seek = std::find_if(seeks_.begin(), seeks_.end(),
                             [&](const Seek& s) { return s.player.id == player_id; });
    if (seek == seeks_.end()) return;
    auto asker = seek->who.lock();
    if (asker && asker.get() != who) return;
    if (other) {
        seek->who = other;
        return;
    }
    seeks_.erase(seek);
    spdlog::info("quick match: request of {} withdrawn (disconnected)", player_id);
}

std::size_t Matchmaker::waiting() {
    std::lock_guard lock(m_);
    return seeks_.size();
}

}  // namespace tf::server
