#include "server/matchmaker.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace tf::server {

std::optional<Seek> Matchmaker::pair(const Player& p, const std::string& key,
                                     const std::shared_ptr<Member>& who) {
    std::lock_guard lock(m_);
    std::erase_if(seeks_, [&](const Seek& s) { return s.player.id == p.id || s.who.expired(); });
    auto it = std::find_if(seeks_.begin(), seeks_.end(),
                           [&](const Seek& s) { return s.key == key && s.player.id != p.id; });
    if (it == seeks_.end()) {
        seeks_.push_back(Seek{p, key, who});
        return std::nullopt;
    }
    Seek found = std::move(*it);
    seeks_.erase(it);
    return found;
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
