// Server settings, filled from the command line (main.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tf::server {

struct Config {
    std::string bind = "127.0.0.1";
    std::uint16_t http_port = 8080;
    std::uint16_t tcp_port = 8081;
    std::string data_dir;  // reserved for persistence (not used yet)
    int threads = 2;
    int grace_seconds = 60;         // reserved for disconnect handling (not used yet)
    double rate_per_second = 20;    // message credits refilled per second
    double rate_burst = 40;         // credit bucket size
    std::size_t history = 128;      // events kept per game for reconnection
    std::size_t queue_limit = 256;  // outgoing messages per connection before disconnect
};

}  // namespace tf::server
