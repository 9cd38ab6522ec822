// Internal to the transports: hands an upgraded HTTP connection to the WebSocket session.
// Included only by http_session.cpp and ws_session.cpp (it pulls in Beast).
#pragma once

#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <optional>
#include <string>

#include "server/session/hub.h"

namespace tf::server {

// Why an upgrade request cannot be accepted (a version other than 13, a missing or malformed
// Sec-WebSocket-Key), or nothing.
std::optional<std::string> ws_upgrade_refusal(
    const boost::beast::http::request<boost::beast::http::string_body>& req);

// Answers the (acceptable) upgrade with 101 and runs the WebSocket session on the socket;
// `address` is the client's (the peer, or whom a trusted proxy named).
void start_ws_session(boost::beast::tcp_stream stream,
                      boost::beast::http::request<boost::beast::http::string_body> req, Hub& hub,
                      ConnLimiter::Slot slot, std::string address);

}  // namespace tf::server
