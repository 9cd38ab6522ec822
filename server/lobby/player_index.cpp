#include "server/lobby/player_index.h"

namespace tf::server {

void PlayerIndex::seat(const std::string& player_id, const std::string& code, bool correspondence) {
    std::lock_guard lock(m_);
    seats_[player_id].insert(code);
    if (correspondence) correspondence_[code].insert(player_id);
}

std::size_t PlayerIndex::count(const std::string& player_id, bool correspondence) {
    std::lock_guard lock(m_);
    auto it = seats_.find(player_id);
    if (it == seats_.end()) return 0;
    std::size_t n = 0;
    for (const auto& code : it->second) n += correspondence_.contains(code) == correspondence;
    return n;
}

void PlayerIndex::unseat(const std::string& player_id, const std::string& code) {
    std::lock_guard lock(m_);
    auto it = seats_.find(player_id);
    if (it == seats_.end()) return;
    it->second.erase(code);
    if (it->second.empty()) seats_.erase(it);
    auto c = correspondence_.find(code);
    if (c == correspondence_.end()) return;
    c->second.erase(player_id);
    if (c->second.empty()) correspondence_.erase(c);
}

std::vector<std::string> PlayerIndex::games_of(const std::string& player_id) {
    std::lock_guard lock(m_);
    auto it = seats_.find(player_id);
    if (it == seats_.end()) return {};
    return {it->second.begin(), it->second.end()};
}

std::uint64_t PlayerIndex::add_open_locked(const std::string& player, const std::string& address) {
    const std::uint64_t t = next_ticket_++;
    open_[t] = {player, address};
    ++open_by_player_[player];
    if (!address.empty()) ++open_by_address_[address];
    return t;
}

std::uint64_t PlayerIndex::reserve_open(const std::string& player, const std::string& address,
                                        int max_player, int max_address, OpenCounts elsewhere,
                                        bool* by_address) {
    std::lock_guard lock(m_);
    auto count = [](const std::map<std::string, int>& m, const std::string& k) {
        auto it = m.find(k);
        return it == m.end() ? 0 : it->second;
    };
    if (by_address) *by_address = false;
    if (count(open_by_player_, player) + elsewhere.player >= max_player) return 0;
    if (!address.empty() && count(open_by_address_, address) + elsewhere.address >= max_address) {
        if (by_address) *by_address = true;
        return 0;
    }
    return add_open_locked(player, address);
}

std::uint64_t PlayerIndex::adopt_open(const std::string& player, const std::string& address) {
    std::lock_guard lock(m_);
    return add_open_locked(player, address);
}

void PlayerIndex::release_open(std::uint64_t ticket) {
    std::lock_guard lock(m_);
    auto it = open_.find(ticket);
    if (it == open_.end()) return;
    auto drop = [](std::map<std::string, int>& m, const std::string& k) {
        auto c = m.find(k);
        if (c != m.end() && --c->second <= 0) m.erase(c);
    };
    drop(open_by_player_, it->second.player);
    if (!it->second.address.empty()) drop(open_by_address_, it->second.address);
    open_.erase(it);
}

OpenCounts PlayerIndex::open_counts(const std::string& player, const std::string& address) {
    std::lock_guard lock(m_);
    auto p = open_by_player_.find(player);
    auto a = open_by_address_.find(address);
    return {p == open_by_player_.end() ? 0 : p->second,
            a == open_by_address_.end() ? 0 : a->second};
}

void PlayerIndex::on_presence(std::function<void(const std::string&, bool)> f) {
    std::lock_guard order(presence_m_);
    std::lock_guard lock(m_);
    presence_ = std::move(f);
}

void PlayerIndex::connected(const std::string& player_id, const std::shared_ptr<Member>& who) {
    std::unique_lock order(presence_m_);
    std::function<void(const std::string&, bool)> tell;
    {
        std::lock_guard lock(m_);
        auto& conns = conns_[player_id];
        if (conns.empty()) tell = presence_;
        conns[who.get()] = who;
    }
    if (tell) tell(player_id, true);
}

std::shared_ptr<Member> PlayerIndex::disconnected(const std::string& player_id, const Member* who) {
    std::unique_lock order(presence_m_);
    std::function<void(const std::string&, bool)> tell;
    std::shared_ptr<Member> other;
    {
        std::lock_guard lock(m_);
        auto it = conns_.find(player_id);
        if (it == conns_.end()) return nullptr;
        it->second.erase(who);
        for (auto c = it->second.begin(); c != it->second.end() && !other;) {
            other = c->second.lock();
            c = other ? c : it->second.erase(c);
        }
        if (!other) {
            conns_.erase(it);
            tell = presence_;
        }
    }
    if (tell) tell(player_id, false);
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
