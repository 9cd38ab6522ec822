// The room's views of itself (room_view.h).
#include "server/room/room_view.h"

#include <cassert>

namespace tf::server {

std::optional<proto::Seat> RoomView::seat(Side s, TimePoint now) const {
    const auto& player = rec.seats[idx(s)];
    if (!player) return std::nullopt;
    proto::Seat v{ref(*player), std::nullopt, ratings.seat[idx(s)]};
    if (const auto& away = due.away_since[idx(s)])
        v.away = proto::Away{epoch_ms(*away + limits.grace, now),
                             epoch_ms(*due.award_at(s, limits), now)};
    return v;
}

std::optional<proto::ClockReading> RoomView::clocks(TimePoint now) const {
    if (!clock) return std::nullopt;
    return clock->reading(now);
}

proto::OpenGame RoomView::lobby_entry() const {
    const Side creator = params.creator_side;
    return {code,    params.variant, params.time_control,       ref(*rec.seats[idx(creator)]),
            creator, params.rated,   ratings.seat[idx(creator)]};
}

proto::LiveGame RoomView::live_entry() const {
    proto::LiveGame e;
    e.code = code;
    e.variant = params.variant;
    e.time_control = params.time_control;
    for (Side s : {Side::Silver, Side::Bronze}) {
        if (rec.seats[idx(s)]) e.players[idx(s)] = ref(*rec.seats[idx(s)]);
        e.score[idx(s)] = rec.game->score(s);
        e.away[idx(s)] = due.away_since[idx(s)].has_value();
        if (params.rated) e.ratings[idx(s)] = ratings.seat[idx(s)];
    }
    e.turns = rec.game->turns_played();
    e.to_move = rec.game->to_move();
    e.spectators = spectators;
    e.status = rec.status;
    e.rated = params.rated;
    return e;
}

proto::SnapshotMsg RoomView::snapshot(bool for_spectator, TimePoint now) const {
    proto::SnapshotMsg m;
    m.game = code;
    m.version = rec.version;
    m.status = rec.status;
    assert(rec.game && "a summary's snapshot: expand() first");
    m.state = *rec.game;
    m.record = {params.variant, params.time_control, {rec.setups[0], rec.setups[1]}, rec.turns};
    for (Side s : {Side::Silver, Side::Bronze}) m.players[idx(s)] = seat(s, now);
    m.clocks = clocks(now);
    m.spectators = spectators;
    m.draw_offer = rec.offers.draw;
    m.takeback_offer = rec.offers.takeback;
    m.stalling = rec.stalling;
    if (rec.status == proto::GameStatus::Playing)
        for (int i : {0, 1}) m.vacation[i] = rec.vacation[i];
    for (int i : {0, 1}) m.berserk[i] = rec.berserk[i];
    m.preferences[0] = rec.prefs[0];
    m.preferences[1] = rec.prefs[1];
    m.is_public = params.is_public;
    if (!params.invitee_id.empty() && rec.status == proto::GameStatus::Open)
        m.invitee = proto::PlayerRef{params.invitee_id, params.invitee_name};
    m.rated = params.rated;
    m.ratings = ratings.changes;
    m.chat = chat.shown(for_spectator);
    return m;
}

}  // namespace tf::server
