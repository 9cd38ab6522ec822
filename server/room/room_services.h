// What a room needs of the process it lives in, handed to it by the factory (directory.h): the
// listings it publishes its entry to, the player index it tells about seats, the directory it
// leaves, the store, the settings, and where a computer opponent thinks. Rooms call these; none
// of them calls a room.
#pragma once

#include <functional>

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
};

}  // namespace tf::server
