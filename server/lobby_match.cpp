// Quick match and the connections of each player (lobby.h). Pairing happens under the lobby
// mutex, so two requests can never take the same waiting player; the caller builds the room
// and tells both players after the lock is released.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "server/lobby.h"

namespace tf::server {

void Lobby::connected(const std::string& player_id, const std::shared_ptr<Member>& who) {
    std::lock_guard lock(m_);
    conns_[player_id][who.get()] = who;
}

// The last connection of a player withdraws its quick-match request; when another one is
// left, a request made on the closing connection moves to it.
void Lobby::disconnected(const std::string& player_id, const Member* who) {
    std::lock_guard lock(m_);
    auto it = conns_.find(player_id);
    if (it == conns_.end()) return;
    it->second.erase(who);
    std::shared_ptr<Member> other;
    for (auto c = it->second.begin(); c != it->second.end() && !other;) {
        other = c->second.lock();
        c = other ? c : it->second.erase(c);
    }
    if (!other) conns_.erase(it);
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

std::optional<Seek> Lobby::quick_match(const Player& p, const std::string& key,
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

bool Lobby::withdraw(const std::string& player_id) {
    std::lock_guard lock(m_);
    return std::erase_if(seeks_, [&](const Seek& s) { return s.player.id == player_id; }) > 0;
}

void Lobby::notify_all(const Msg& m) {
    std::vector<std::shared_ptr<Member>> to;
    {
        std::lock_guard lock(m_);
        for (auto& [id, conns] : conns_)
            for (auto& [p, w] : conns)
                if (auto sp = w.lock()) to.push_back(std::move(sp));
    }
    for (auto& p : to) p->deliver(m);
}

Lobby::Counts Lobby::counts() {
    std::lock_guard lock(m_);
    return {conns_.size(), open_.size(), live_.size(), rooms_.size(), seeks_.size()};
}

}  // namespace tf::server
