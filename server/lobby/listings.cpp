#include "server/lobby/listings.h"

namespace tf::server {

void Listings::configure(std::size_t list_limit, std::chrono::milliseconds live_interval,
                         std::chrono::milliseconds lobby_interval,
                         boost::asio::any_io_executor ex) {
    std::lock_guard lock(m_);
    list_limit_ = list_limit;
    live_interval_ = live_interval;
    lobby_interval_ = ex ? lobby_interval : std::chrono::milliseconds(0);
    if (ex) lobby_timer_.emplace(ex);
}

Msg Listings::open_locked() const {
    proto::Lobby list;
    for (auto& [seq, code] : open_order_) {
        if (list.games.size() >= list_limit_) break;
        list.games.push_back(open_.at(code).entry);
    }
    return std::make_shared<const std::string>(proto::to_text(list));
}

void Listings::open_changed_locked(std::vector<std::shared_ptr<Participant>>& to, Msg& msg) {
    if (open_subs_.empty()) return;  // subscribers get the list on arrival
    const auto now = std::chrono::steady_clock::now();
    if (lobby_interval_.count() > 0 && now - open_sent_ < lobby_interval_) {
        open_dirty_ = true;
        if (!lobby_timer_armed_) {
            lobby_timer_armed_ = true;
            lobby_timer_->expires_at(open_sent_ + lobby_interval_);
            lobby_timer_->async_wait([this](boost::system::error_code ec) {
                if (!ec) flush_open();
            });
        }
        return;
    }
    open_sent_ = now;
    open_dirty_ = false;
    msg = open_locked();
    collect(open_subs_, to);
}

void Listings::flush_open() {
    std::vector<std::shared_ptr<Participant>> to;
    Msg msg;
    {
        std::lock_guard lock(m_);
        lobby_timer_armed_ = false;
        if (!open_dirty_) return;
        open_sent_ = {};  // due: sent now
        open_changed_locked(to, msg);
    }
    for (auto& p : to) p->deliver(msg);
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
    return it->second.entry;
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
        auto it = open_.find(code);
        if (!entry) {
            if (it == open_.end()) return changed(code, notify);
            open_order_.erase(it->second.seq);
            open_.erase(it);
        } else if (it != open_.end()) {
            if (it->second.entry == *entry) return changed(code, notify);
            it->second.entry = std::move(*entry);
        } else {
            const std::uint64_t seq = next_seq_++;
            open_.emplace(code, Listed{std::move(*entry), seq});
            open_order_.emplace(seq, code);
        }
        open_changed_locked(to, msg);
    }
    if (msg)
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
        auto it = open_.find(code);
        if (it == open_.end()) return changed(code, notify);
        open_order_.erase(it->second.seq);
        open_.erase(it);
        open_changed_locked(to, msg);
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
