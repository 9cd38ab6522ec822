#include "server/room/room_parts.h"

namespace tf::server {

namespace {

SteadyClock::duration seconds(double s) {
    return std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

RoomLimits RoomLimits::from(const Config& cfg) {
    RoomLimits l;
    l.grace = seconds(cfg.grace_seconds);
    // --award-seconds unset (negative): one more grace period.
    l.award = seconds(cfg.award_seconds < 0 ? cfg.grace_seconds : cfg.award_seconds);
    l.start_timeout = seconds(cfg.start_timeout_seconds);
    l.retention = seconds(cfg.retention_seconds);
    l.open_away = seconds(cfg.open_away_seconds);
    l.open_cancel = seconds(cfg.open_cancel_seconds);
    l.chat_window = seconds(cfg.chat_window_seconds);
    l.chat_lines = cfg.chat_lines;
    l.history = cfg.history;
    return l;
}

bool RoomChat::allow(const std::string& player_id, TimePoint now) {
    auto& times = times_[player_id];
    while (!times.empty() && times.front() <= now - window_) times.pop_front();
    if (int(times.size()) >= lines_) return false;
    times.push_back(now);
    return true;
}

void RoomChat::remember(const proto::ChatEv& line) {
    log_.push_back(line);
    while (log_.size() > kLog) log_.pop_front();
}

std::vector<proto::ChatEv> RoomChat::shown(bool for_spectator) const {
    std::vector<proto::ChatEv> out;
    for (const auto& c : log_)
        if (for_spectator || c.room == proto::ChatRoom::Players) out.push_back(c);
    return out;
}

void RoomOffers::turn_made(Side side) {
    draw_offered[idx(side)] = false;
    takeback_asked[idx(side)] = false;
    if (draw == side) draw.reset();  // the offer lapses with this turn
    takeback.reset();                // a takeback request lapses with any turn
}

}  // namespace tf::server
