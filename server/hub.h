// The services every connection shares: settings, identities, the lobby, the io_context
// (rooms get their strands from it). Owned by main(); outlives every session and room.
#pragma once

#include <boost/asio/io_context.hpp>

#include "server/config.h"
#include "server/identity.h"
#include "server/lobby.h"

namespace tf::server {

struct Hub {
    Hub(boost::asio::io_context& io, Config c) : ioc(io), cfg(std::move(c)) {}
    boost::asio::io_context& ioc;
    Config cfg;
    Identity identity;
    Lobby lobby;
};

}  // namespace tf::server
