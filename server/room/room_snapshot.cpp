// The room's views of itself: snapshot for (re)joining clients, lobby listing, seats, clocks.
#include <cassert>

#include "server/room/room.h"

namespace tf::server {

// The seat's player, and while it has no connection, the instants (server epoch ms) from which
// the opponent may claim the win and when it is awarded.
std::optional<proto::Seat> Room::seat_view(Side s, TimePoint now) const {
    const auto& seat = seats_[idx(s)];
    if (!seat) return std::nullopt;
    const auto& away = due_.away_since[idx(s)];
    proto::Seat v{ref(*seat), std::nullopt, ratings_.seat[idx(s)]};
    if (away)
        v.away = proto::Away{epoch_ms(*away + limits_.grace, now),
                             epoch_ms(*away + limits_.grace + limits_.award, now)};
    return v;
}

std::optional<proto::ClockReading> Room::clocks(TimePoint now) const {
    if (!clock_) return std::nullopt;
    return clock_->reading(now);
}

// The rules library's result; an aborted game has no winner and no reason from the rules.
proto::Result Room::result() const {
    if (summary_.active) return summary_.result;
    return status_ == Status::Aborted ? proto::aborted_result(*game_) : proto::result_of(*game_);
}

proto::OpenGame Room::lobby_entry() const {
    return {code_,
            params_.variant,
            params_.time_control,
            ref(*seats_[idx(params_.creator_side)]),
            params_.creator_side,
            params_.rated,
            ratings_.seat[idx(params_.creator_side)]};
}

proto::SnapshotMsg Room::snapshot(bool for_spectator) const {
    auto now = SteadyClock::now();
    proto::SnapshotMsg m;
    m.game = code_;
    m.version = version_;
    m.status = status_;
    assert(game_ && "a summary's snapshot: expand() first");
    m.state = *game_;
    m.record = {params_.variant, params_.time_control, {setups_[0], setups_[1]}, turns_};
    for (Side s : {Side::Silver, Side::Bronze}) m.players[idx(s)] = seat_view(s, now);
    m.clocks = clocks(now);
    m.spectators = spectators();
    m.draw_offer = offers_.draw;
    m.takeback_offer = offers_.takeback;
    m.stalling = due_.stalling;
    m.preferences[0] = prefs_[0];
    m.preferences[1] = prefs_[1];
    m.is_public = params_.is_public;
    m.rated = params_.rated;
    m.ratings = ratings_.changes;
    m.chat = chat_.shown(for_spectator);
    return m;
}

}  // namespace tf::server
