#include "server/lobby.h"

#include "proto/messages.h"
#include "server/identity.h"
#include "server/room.h"

namespace tf::server {

std::shared_ptr<Room> Lobby::add(
    const std::function<std::shared_ptr<Room>(const std::string&)>& make) {
    static const char* alphabet = "23456789abcdefghjkmnpqrstuvwxyz";  // no 0/o, 1/l/i
    // 31^6 codes: a draw is taken by chance almost never, so many refusals in a row mean the
    // store cannot answer (code_taken says "taken" when unsure).
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::string hex = random_hex(6), code(6, ' ');
        for (std::size_t i = 0; i < 6; ++i)
            code[i] = alphabet[(std::stoi(hex.substr(2 * i, 2), nullptr, 16)) % 31];
        if (code_taken && code_taken(code)) continue;
        std::lock_guard lock(m_);
        if (rooms_.count(code)) continue;
        auto room = make(code);
        rooms_[code] = room;
        return room;
    }
    return nullptr;
}

void Lobby::insert(const std::string& code, std::shared_ptr<Room> room) {
    std::lock_guard lock(m_);
    rooms_[code] = std::move(room);
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
        live_.erase(code);
        suspended_.erase(code);
        if (open_.erase(code)) publish_locked(to, msg);
    }
    for (auto& p : to) p->deliver(msg);
}

Msg Lobby::list_locked() const {
    proto::Lobby list;
    for (auto& [code, entry] : open_) {
        if (list.games.size() >= list_limit) break;
        list.games.push_back(entry);
    }
    return std::make_shared<const std::string>(proto::to_text(list));
}

Msg Lobby::live_locked() const {
    proto::Live list;
    for (auto& [code, entry] : live_) {
        if (list.games.size() >= list_limit) break;
        list.games.push_back(entry);
    }
    return std::make_shared<const std::string>(proto::to_text(list));
}

// Copies the subscribers still alive into `to`, forgetting the dead ones.
void Lobby::collect(Subs& subs, std::vector<std::shared_ptr<Participant>>& to) {
    for (auto it = subs.begin(); it != subs.end();) {
        if (auto p = it->second.lock()) {
            to.push_back(std::move(p));
            ++it;
        } else {
            it = subs.erase(it);
        }
    }
}

// Collects live subscribers and the serialized list; the caller delivers after unlocking.
void Lobby::publish_locked(std::vector<std::shared_ptr<Participant>>& to, Msg& msg) {
    msg = list_locked();
    collect(subs_, to);
}

void Lobby::set_open(const std::string& code, std::optional<proto::OpenGame> entry) {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    {
        std::lock_guard lock(m_);
        if (!entry) {
            if (!open_.erase(code)) return;
        } else {
            open_.insert_or_assign(code, std::move(*entry));
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
    live_subs_.erase(p);
    live_watched_ = !live_subs_.empty();
}

std::optional<Lobby::TimePoint> Lobby::set_live(const std::string& code,
                                                std::optional<proto::LiveGame> entry, bool urgent) {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    {
        std::lock_guard lock(m_);
        if (!entry) {
            if (!live_.erase(code)) return std::nullopt;
        } else {
            live_.insert_or_assign(code, std::move(*entry));
        }
        if (live_subs_.empty()) return std::nullopt;  // subscribers get the list on arrival
        auto now = std::chrono::steady_clock::now();
        if (!urgent && now - live_sent_ < live_interval_) {  // sent with a later change
            live_dirty_ = true;
            return live_sent_ + live_interval_;
        }
        publish_live_locked(now, to, msg);
    }
    for (auto& p : to) p->deliver(msg);
    return std::nullopt;
}

void Lobby::flush_live() {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    {
        std::lock_guard lock(m_);
        auto now = std::chrono::steady_clock::now();
        if (!live_dirty_ || live_subs_.empty() || now - live_sent_ < live_interval_) return;
        publish_live_locked(now, to, msg);
    }
    for (auto& p : to) p->deliver(msg);
}

void Lobby::publish_live_locked(std::chrono::steady_clock::time_point now,
                                std::vector<std::shared_ptr<Participant>>& to, Msg& msg) {
    live_sent_ = now;
    live_dirty_ = false;
    msg = live_locked();
    collect(live_subs_, to);
    live_watched_ = !live_subs_.empty();
}

void Lobby::subscribe_live(const std::shared_ptr<Participant>& p) {
    Msg msg;
    std::vector<std::shared_ptr<Room>> refresh;
    {
        std::lock_guard lock(m_);
        if (live_subs_.empty())  // the rooms may have skipped turns while nobody subscribed
            for (auto& [code, entry] : live_)
                if (auto it = rooms_.find(code); it != rooms_.end()) refresh.push_back(it->second);
        live_subs_[p.get()] = p;
        live_watched_ = true;
        msg = live_locked();
    }
    p->deliver(msg);
    for (auto& r : refresh) r->refresh_live();
}

void Lobby::set_live_interval(std::chrono::milliseconds ms) {
    std::lock_guard lock(m_);
    live_interval_ = ms;
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

void Lobby::set_suspended(const std::string& code, bool suspended) {
    std::lock_guard lock(m_);
    if (suspended)
        suspended_.insert(code);
    else
        suspended_.erase(code);
}

bool Lobby::is_suspended(const std::string& code) {
    std::lock_guard lock(m_);
    return suspended_.count(code) > 0;
}

std::vector<std::string> Lobby::games_of(const std::string& player_id) {
    std::lock_guard lock(m_);
    auto it = seats_.find(player_id);
    if (it == seats_.end()) return {};
    return {it->second.begin(), it->second.end()};
}

}  // namespace tf::server
