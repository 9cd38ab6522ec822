#include "server/room/room_watchers.h"

#include <cassert>

#include "server/base/metrics.h"

namespace tf::server {

Watchers::~Watchers() {
    metrics().spectators -= reported_;
}

void Watchers::add(const Player& p, const Who& who) {
    auto sp = who.lock();
    if (!sp) return;
    auto [it, added] = subs_.try_emplace(sp.get(), Sub{who, p.id});
    if (!added) {
        if (spectator(it->second)) --spectators_;
        it->second = Sub{who, p.id};
    }
    if (spectator(it->second)) ++spectators_;
}

void Watchers::remove(const Participant* who) {
    if (auto it = subs_.find(who); it != subs_.end()) erase(it);
}

Watchers::Subs::iterator Watchers::erase(Subs::iterator it) {
    if (spectator(it->second)) --spectators_;
    return subs_.erase(it);
}

void Watchers::clear() {
    subs_.clear();
    spectators_ = 0;
}

void Watchers::recount() {
    spectators_ = scan();
}

int Watchers::scan() const {
    int n = 0;
    for (auto& [p, sub] : subs_)
        if (spectator(sub)) ++n;
    return n;
}

int Watchers::spectators() const {
    assert(spectators_ == scan());
    return spectators_;
}

bool Watchers::connected(const std::string& player_id) const {
    for (auto& [p, sub] : subs_)
        if (sub.player_id == player_id && !sub.who.expired()) return true;
    return false;
}

std::optional<int> Watchers::changed(Clock::time_point now) {
    int n = spectators();
    if (n != reported_) {
        metrics().spectators += n - reported_;
        reported_ = n;
    }
    if (n == told_ || due_) return std::nullopt;  // nothing new, or already due
    if (told_at_ && now < *told_at_ + interval_) {
        due_ = *told_at_ + interval_;
        return std::nullopt;
    }
    return tell(now);
}

std::optional<int> Watchers::due_now(Clock::time_point now) {
    if (!due_ || now < *due_) return std::nullopt;
    return tell(now);
}

std::optional<int> Watchers::tell(Clock::time_point now) {
    due_.reset();
    int n = spectators();
    if (n == told_) return std::nullopt;  // back to what the players know
    told_ = n;
    told_at_ = now;
    return n;
}

}  // namespace tf::server
