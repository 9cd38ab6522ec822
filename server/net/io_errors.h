// How the transports report an I/O error. An operation this server cancelled (its own close or
// timer) says nothing; a peer that went away (end of file, reset, broken pipe, timed out) is how
// connections end: a debug line; anything else (a descriptor limit, a network down) is a
// warning. `conn` names the connection in the log ("ws#12", "http").
#pragma once

#include <boost/system/error_code.hpp>
#include <string_view>

namespace tf::server {

void io_error(std::string_view conn, const boost::system::error_code& ec, std::string_view what);

}  // namespace tf::server
