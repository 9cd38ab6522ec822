// Entry points of the transports. Only their .cpp files include Beast.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include "server/session/hub.h"

namespace tf::server {

// HTTP on the first port: /healthz, and the WebSocket upgrade at /ws.
void start_http_session(boost::asio::ip::tcp::socket s, Hub& hub);
// Newline-delimited JSON on the second port.
void start_tcp_session(boost::asio::ip::tcp::socket s, Hub& hub);

}  // namespace tf::server
