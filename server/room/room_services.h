// What a room needs of the process it lives in, handed to it by the factory (directory.h): the
// listings it publishes its entry to, the player index it tells about seats, the directory it
// leaves, the store, the settings, and where a computer opponent thinks. Rooms call these; none
// of them calls a room.
#pragma once

#include <functional>
#include <optional>

#include "server/accounts/ratings.h"
#include "server/base/config.h"
#include "server/lobby/listings.h"
#include "server/lobby/player_index.h"
#include "server/store/store.h"

namespace tf::server {

class RoomDirectory;

struct RoomServices {
    Listings& listings;
    PlayerIndex& players;
    RoomDirectory& directory;
    Store& store;
    const Config& cfg;
    // Runs blocking work (a bot's search) off the room's strand; without it, on the strand.
    std::function<void(std::function<void()>)> offload;
    // Ratings as last seen, for seats and listings; a rated game's end updates them.
    RatingBook& ratings;
    // Cluster mode: this node's id, which owns the rooms it makes (epoch 1) and the ones it
    // claims (server/cluster/cluster.h); empty for a single node.
    std::string node = {};
    // Keeps a notification of `kind` with its fields (JSON object text) for a player and
    // delivers it (server/social/social_service.h); empty: none are kept (--store memory).
    std::function<void(const std::string& player_id, const std::string& kind,
                       const std::string& fields)>
        notify = {};
    // A game between two players began (both seats taken): the followers of each are told.
    std::function<void(const Player& player, const std::string& code)> started = {};
    // Whether either of two accounts blocked the other; `then` runs on `ex` (false when the
    // server keeps no relations, or cannot read them).
    std::function<void(const std::string& a, const std::string& b, Store::Executor ex,
                       std::function<void(bool)> then)>
        blocked = {};
    // Whether an account is on vacation (server/social/vacations.h); nullopt while not known yet
    // (the rooms keep what their journal says); empty: nobody ever is.
    std::function<std::optional<bool>(const std::string& player_id)> on_vacation = {};
};

}  // namespace tf::server
