#include "server/listings.h"

namespace tf::server {

void Listings::configure(std::size_t list_limit, std::chrono::milliseconds live_interval) {
    std::lock_guard lock(m_);
    list_limit_ = list_limit;
    live_interval_ = live_interval;
}

Msg Listings::open_locked() const {
    proto::Lobby list;
    for (auto& [code, entry] : open_) {
        if (list.games.size() >= list_limit_) break;
        list.games.push_back(entry);
    }
    return std::make_shared<const std::string>(proto::to_text(list));
}

Msg Listings::live_locked() const {
    proto::Live list;
    for (auto& [code, entry] : live_) {
        if (list.games.size() >= list_limit_) break;
        list.games.push_back(entry);
    }
    return std::make_shared<const std::string>(proto::to_text(list));
}

// Copies the subscribers still alive into `to`, forgetting the dead ones.
void Listings::collect(Subs& subs, std::vector<std::shared_ptr<Participant>>& to) {
    for (auto it = subs.begin(); it != subs.end();) {
        if (auto p = it->second.lock()) {
            to.push_back(std::move(p));
            ++it;
        } else {
            it = subs.erase(it);
        }
    }
}

std::optional<proto::OpenGame> Listings::open_entry(const std::string& code) {
    std::lock_guard lock(m_);
    auto it = open_.find(code);
    if (it == open_.end()) return std::nullopt;
    return it->second;
}

std::optional<proto::LiveGame> Listings::live_entry(const std::string& code) {
    std::lock_guard lock(m_);
    auto it = live_.find(code);
    if (it == live_.end()) return std::nullopt;
    return it->second;
}

void Listings::set_open(const std::string& code, std::optional<proto::OpenGame> entry,
                        bool notify) {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    {
        std::lock_guard lock(m_);
        if (!entry) {
            if (!open_.erase(code)) return changed(code, notify);
        } else {
            open_.insert_or_assign(code, std::move(*entry));
        }
        msg = open_locked();
        collect(open_subs_, to);
    }
    for (auto& p : to) p->deliver(msg);
    changed(code, notify);
}

std::optional<Listings::TimePoint> Listings::set_live(const std::string& code,
                                                      std::optional<proto::LiveGame> entry,
                                                      bool urgent, bool notify) {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    std::optional<TimePoint> due;
    {
        std::lock_guard lock(m_);
        if (!entry) {
            if (!live_.erase(code)) {
                changed(code, notify);
                return std::nullopt;
            }
        } else {
            live_.insert_or_assign(code, std::move(*entry));
        }
        due = live_changed_locked(urgent, to, msg);
    }
    for (auto& p : to) p->deliver(msg);
    changed(code, notify);
    return due;
}

std::optional<Listings::TimePoint> Listings::set_live_progress(const std::string& code, int turns,
                                                               Side to_move, const int score[2]) {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    std::optional<TimePoint> due;
    {
        std::lock_guard lock(m_);
        auto it = live_.find(code);
        if (it == live_.end()) return std::nullopt;
        it->second.turns = turns;
        it->second.to_move = to_move;
        it->second.score[0] = score[0];
        it->second.score[1] = score[1];
        due = live_changed_locked(false, to, msg);
    }
    for (auto& p : to) p->deliver(msg);
    changed(code, true);
    return due;
}

std::optional<Listings::TimePoint> Listings::live_changed_locked(
    bool urgent, std::vector<std::shared_ptr<Participant>>& to, Msg& msg) {
    if (live_subs_.empty()) return std::nullopt;  // subscribers get the list on arrival
    auto now = std::chrono::steady_clock::now();
    if (!urgent && now - live_sent_ < live_interval_) {  // sent with a later change
        live_dirty_ = true;
        return live_sent_ + live_interval_;
    }
    publish_live_locked(now, to, msg);
    return std::nullopt;
}

void Listings::flush_live() {
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

void Listings::publish_live_locked(TimePoint now, std::vector<std::shared_ptr<Participant>>& to,
                                   Msg& msg) {
    live_sent_ = now;
    live_dirty_ = false;
    msg = live_locked();
    collect(live_subs_, to);
}

void Listings::remove(const std::string& code, bool notify) {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    {
        std::lock_guard lock(m_);
        live_.erase(code);
        if (!open_.erase(code)) return changed(code, notify);
        msg = open_locked();
        collect(open_subs_, to);
    }
    for (auto& p : to) p->deliver(msg);
    changed(code, notify);
}

void Listings::subscribe_open(const std::shared_ptr<Participant>& p) {
    Msg msg;
    {
        std::lock_guard lock(m_);
        open_subs_[p.get()] = p;
        msg = open_locked();
    }
    p->deliver(msg);
}

void Listings::subscribe_live(const std::shared_ptr<Participant>& p) {
    Msg msg;
    {
        std::lock_guard lock(m_);
        live_subs_[p.get()] = p;
        msg = live_locked();
    }
    p->deliver(msg);
}

void Listings::unsubscribe(const Participant* p) {
    std::lock_guard lock(m_);
    open_subs_.erase(p);
    live_subs_.erase(p);
}

Listings::Counts Listings::counts() {
    std::lock_guard lock(m_);
    return {open_.size(), live_.size()};
}

}  // namespace tf::server
