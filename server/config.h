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
    std::string web_root;  // the web client's files, served at "/" (empty: none)
    std::string data_dir;  // reserved for persistence (not used yet)
    int threads = 2;
    double grace_seconds = 60;           // a disconnected player's grace period, then claim
    double award_seconds = -1;           // after the grace: win awarded unclaimed; <0: = grace
    double start_timeout_seconds = 120;  // both seats filled -> silver's first turn, or abort
    double retention_seconds = 600;      // finished games stay in memory this long
    int chat_lines = 5;                  // chat lines per player per room ...
    double chat_window_seconds = 10;     // ... within this window
    double rate_per_second = 20;         // message credits refilled per second
    double rate_burst = 40;              // credit bucket size
    std::size_t history = 128;           // events kept per game for reconnection
    std::size_t queue_limit = 256;       // outgoing messages per connection before disconnect
    int live_interval_ms = 1000;  // live-games list: turn updates coalesced to one per interval
};

}  // namespace tf::server
