// The room's views of itself: snapshot for (re)joining clients, lobby listing, seats, clocks.
#include <cassert>

#include "server/room/room.h"

namespace tf::server {

// The seat's player, and while it has no connection, the instants (server epoch ms) from which
// the opponent may claim the win and when it is awarded.
std::optional<proto::Seat> Room::seat_view(Side s, TimePoint now) const {
    const auto& seat = rec_.seats[idx(s)];
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

proto::OpenGame Room::lobby_entry() const {
    return {code_,
            params_.variant,
            params_.time_control,
            ref(*rec_.seats[idx(params_.creator_side)]),
            params_.creator_side,
            params_.rated,
            ratings_.seat[idx(params_.creator_side)]};
}

proto::SnapshotMsg Room::snapshot(bool for_spectator) const {
    auto now = SteadyClock::now();
    proto::SnapshotMsg m;
    m.game = code_;
    m.version = rec_.version;
    m.status = rec_.status;
    assert(rec_.game && "a summary's snapshot: expand() first");
    m.state = *rec_.game;
    m.record = {
        params_.variant, params_.time_control, {rec_.setups[0], rec_.setups[1]}, rec_.turns};
    for (Side s : {Side::Silver, Side::Bronze}) m.players[idx(s)] = seat_view(s, now);
    m.clocks = clocks(now);
    m.spectators = spectators();
    m.draw_offer = rec_.offers.draw;
    m.takeback_offer = rec_.offers.takeback;
    m.stalling = rec_.stalling;
    m.preferences[0] = rec_.prefs[0];
    m.preferences[1] = rec_.prefs[1];
    m.is_public = params_.is_public;
    m.rated = params_.rated;
    m.ratings = ratings_.changes;
    m.chat = chat_.shown(for_spectator);
    return m;
}

}  // namespace tf::server
