// What a room tells players through their notifications (PROTOCOL.md "Notifications"): the
// body of each kind, from the game's params, seats and state. The room sends them
// (RoomServices::notify) once what they tell is stored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "proto/messages.h"
#include "server/base/participant.h"
#include "server/room/game_record.h"

namespace tf::server::notices {

// {"id", "name"} of a seat's player, or null for a free seat.
nlohmann::json player(const std::optional<Player>& p);
// To the challenged account: who challenges it (`from`, the creator) to what.
std::string challenge(const std::string& code, const RoomParams& params, const Player& from);
// To the challenger: what became of its challenge (challenge_accepted, challenge_declined),
// with the fields of `extra` (a decline's reason).
std::string challenge_answer(const std::string& code, const RoomParams& params,
                             nlohmann::json extra);
// To the player to move in a correspondence game: the opponent and when the move is due (epoch
// ms; 0: no limit runs).
std::string your_turn(const std::string& code, const std::optional<Player>& opponent,
                      std::int64_t move_by);
// To a player not connected when the game ended: the result and the opponent.
std::string game_over(const std::string& code, const proto::Result& result,
                      const std::optional<Player>& opponent);

}  // namespace tf::server::notices
