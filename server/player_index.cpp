#include "server/player_index.h"

namespace tf::server {

void PlayerIndex::seat(const std::string& player_id, const std::string& code) {
    std::lock_guard lock(m_);
    seats_[player_id].insert(code);
}

void PlayerIndex::unseat(const std::string& player_id, const std::string& code) {
    std::lock_guard lock(m_);
    auto it = seats_.find(player_id);
    if (it == seats_.end()) return;
    it->second.erase(code);
    if (it->second.empty()) seats_.erase(it);
}

std::vector<std::string> PlayerIndex::games_of(const std::string& player_id) {
    std::lock_guard lock(m_);
    auto it = seats_.find(player_id);
    if (it == seats_.end()) return {};
    return {it->second.begin(), it->second.end()};
}

void PlayerIndex::connected(const std::string& player_id, const std::shared_ptr<Member>& who) {
    std::lock_guard lock(m_);
    conns_[player_id][who.get()] = who;
}

std::shared_ptr<Member> PlayerIndex::disconnected(const std::string& player_id, const Member* who) {
    std::lock_guard lock(m_);
    auto it = conns_.find(player_id);
    if (it == conns_.end()) return nullptr;
    it->second.erase(who);
    std::shared_ptr<Member> other;
    for (auto c = it->second.begin(); c != it->second.end() && !other;) {
        other = c->second.lock();
        c = other ? c : it->second.erase(c);
    }
    if (!other) conns_.erase(it);
    return other;
}

void PlayerIndex::notify_all(const Msg& m) {
    std::vector<std::shared_ptr<Member>> to;
    {
        std::lock_guard lock(m_);
        for (auto& [id, conns] : conns_)
            for (auto& [p, w] : conns)
                if (auto sp = w.lock()) to.push_back(std::move(sp));
    }
    for (auto& p : to) p->deliver(m);
}

std::vector<std::shared_ptr<Member>> PlayerIndex::connections(const std::string& player_id) {
    std::vector<std::shared_ptr<Member>> out;
    std::lock_guard lock(m_);
    if (auto it = conns_.find(player_id); it != conns_.end())
        for (auto& [p, w] : it->second)
            if (auto sp = w.lock()) out.push_back(std::move(sp));
    return out;
}

std::size_t PlayerIndex::players() {
    std::lock_guard lock(m_);
    return conns_.size();
}

}  // namespace tf::server
