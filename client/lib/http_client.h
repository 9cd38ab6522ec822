// One blocking HTTP/1.1 request to trunkfield-server's HTTP port (the history and puzzle APIs,
// proto/PROTOCOL.md), for the terminal client; Beast stays inside http_client.cpp.
#pragma once

#include <string>

namespace tf::client {

struct HttpReply {
    unsigned status = 0;
    std::string body;
};

// `token` non-empty: sent as `Authorization: Bearer TOKEN`. Throws std::runtime_error when the
// server cannot be reached or the answer cannot be read.
HttpReply http_request(const std::string& host, unsigned short port, const std::string& method,
                       const std::string& target, const std::string& body = "",
                       const std::string& token = "");

}  // namespace tf::client
