#include "server/recovery.h"

#include <spdlog/spdlog.h>

#include <boost/asio/strand.hpp>

#include "server/hub.h"
#include "server/room.h"

namespace tf::server {

bool recover_games(Hub& hub) {
    std::vector<StoredGame> games;
    try {
        games = hub.store->unfinished();
    } catch (const std::exception& e) {
        spdlog::critical("recovery: cannot read the store: {}", e.what());
        return false;
    }
    int restored = 0, quarantined = 0;
    for (const auto& g : games) {
        std::string error;
        std::shared_ptr<Room> room;
        try {
            room = Room::restore(boost::asio::make_strand(hub.ioc), g, hub.store->journal(g.code),
                                 hub.lobby, hub.cfg, *hub.store, error);
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (!room) {
            spdlog::critical("recovery: game {} does not replay and is quarantined: {}", g.code,
                             error);
            try {
                hub.store->quarantine(g.code, error);
            } catch (const std::exception& e) {
                spdlog::critical("recovery: cannot quarantine game {}: {}", g.code, e.what());
                return false;
            }
            ++quarantined;
            continue;
        }
        room->set_offload(hub.offload());
        hub.lobby.insert(g.code, room);
        room->resume();
        ++restored;
    }
    if (!games.empty())
        spdlog::info("recovery: {} unfinished games restored, {} quarantined", restored,
                     quarantined);
    return true;
}

}  // namespace tf::server
