#include "server/lobby.h"

#include "proto/messages.h"
#include "server/identity.h"

namespace tf::server {

std::shared_ptr<Room> Lobby::add(
    const std::function<std::shared_ptr<Room>(const std::string&)>& make) {
    static const char* alphabet = "23456789abcdefghjkmnpqrstuvwxyz";  // no 0/o, 1/l/i
    for (;;) {
        std::string hex = random_hex(6), code(6, ' ');
        for (std::size_t i = 0; i < 6; ++i)
            code[i] = alphabet[(std::stoi(hex.substr(2 * i, 2), nullptr, 16)) % 31];
        std::lock_guard lock(m_);
        if (rooms_.count(code)) continue;
        auto room = make(code);
        rooms_[code] = room;
        return room;
    }
}

std::shared_ptr<Room> Lobby::find(const std::string& code) {
    std::lock_guard lock(m_);
    auto it = rooms_.find(code);
    return it == rooms_.end() ? nullptr : it->second;
}

void Lobby::remove(const std::string& code) {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    {
        std::lock_guard lock(m_);
        rooms_.erase(code);
        if (open_.erase(code)) publish_locked(to, msg);
    }
    for (auto& p : to) p->deliver(msg);
}

Msg Lobby::list_locked() const {
    nlohmann::json games = nlohmann::json::array();
    for (auto& [code, entry] : open_) games.push_back(entry);
    return std::make_shared<const std::string>(proto::to_json(proto::Lobby{games}).dump());
}

// Collects live subscribers and the serialized list; the caller delivers after unlocking.
void Lobby::publish_locked(std::vector<std::shared_ptr<Participant>>& to, Msg& msg) {
    msg = list_locked();
    for (auto it = subs_.begin(); it != subs_.end();) {
        if (auto p = it->second.lock()) {
            to.push_back(std::move(p));
            ++it;
        } else {
            it = subs_.erase(it);
        }
    }
}

void Lobby::set_open(const std::string& code, nlohmann::json entry) {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    {
        std::lock_guard lock(m_);
        if (entry.is_null()) {
            if (!open_.erase(code)) return;
        } else {
            open_[code] = std::move(entry);
        }
        publish_locked(to, msg);
    }
    for (auto& p : to) p->deliver(msg);
}

void Lobby::subscribe(const std::shared_ptr<Participant>& p) {
    Msg msg;
    {
        std::lock_guard lock(m_);
        subs_[p.get()] = p;
        msg = list_locked();
    }
    p->deliver(msg);
}

void Lobby::unsubscribe(const Participant* p) {
    std::lock_guard lock(m_);
    subs_.erase(p);
}

void Lobby::seat(const std::string& player_id, const std::string& code) {
    std::lock_guard lock(m_);
    seats_[player_id].insert(code);
}

void Lobby::unseat(const std::string& player_id, const std::string& code) {
    std::lock_guard lock(m_);
    auto it = seats_.find(player_id);
    if (it == seats_.end()) return;
    it->second.erase(code);
    if (it->second.empty()) seats_.erase(it);
}

std::vector<std::string> Lobby::games_of(const std::string& player_id) {
    std::lock_guard lock(m_);
    auto it = seats_.find(player_id);
    if (it == seats_.end()) return {};
    return {it->second.begin(), it->second.end()};
}

}  // namespace tf::server
