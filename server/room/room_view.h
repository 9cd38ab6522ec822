// What a room shows of itself, read from its parts and nothing else: the snapshot a (re)joining
// client gets, its entries in the lobby's open and live lists, a seat as the players see it, the
// clocks. A view is made on the room's strand (Room::view()) and read at once; it holds
// references. Unit tests: tests/server/room_view_test.cpp.
#pragma once

#include <optional>
#include <string>

#include "proto/messages.h"
#include "server/base/participant.h"
#include "server/room/clock.h"
#include "server/room/game_record.h"
#include "server/room/room_parts.h"

namespace tf::server {

struct RoomView {
    const std::string& code;
    const RoomParams& params;
    const GameRecord& rec;
    const RoomLimits& limits;
    const RoomDeadlines& due;
    const SeatRatings& ratings;
    const RoomChat& chat;
    const std::optional<Clock>& clock;
    int spectators;

    static proto::PlayerRef ref(const Player& p) { return {p.id, p.name, p.bot}; }
    // The seat's player and rating, and while it has no connection, the instants (server epoch
    // ms) from which the opponent may claim the win and when it is awarded.
    std::optional<proto::Seat> seat(Side s, TimePoint now) const;
    std::optional<proto::ClockReading> clocks(TimePoint now) const;
    // The open game in the lobby: its creator's seat.
    proto::OpenGame lobby_entry() const;
    // The game in the lobby's live list (PROTOCOL.md "live"): players, turns, score, spectators.
    proto::LiveGame live_entry() const;
    // What a (re)joining client gets; a spectator's includes the spectators' chat room. Needs
    // the rules state (a summary is expanded first).
    proto::SnapshotMsg snapshot(bool for_spectator, TimePoint now) const;
};

}  // namespace tf::server
