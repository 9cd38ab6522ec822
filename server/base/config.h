// Server settings, filled from the command line (main.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tf::server {

struct Config {
    std::string bind = "127.0.0.1";
    std::uint16_t http_port = 8080;
    std::uint16_t tcp_port = 8081;
    std::string web_root;  // the web client's files, served at "/" (empty: none)
    std::string data_dir = "trunkfield-data";  // the store: DIR/trunkfield.db (created)
    std::string store = "sqlite";         // sqlite, postgres, or memory (nothing kept: benchmarks)
    std::string database_url;             // --store postgres: the libpq connection string
    bool accept_unsafe_database = false;  // start on a PostgreSQL with fsync/sync commit off
    bool fail_fast = false;  // exit at start when PostgreSQL cannot be reached (else wait)
    // Several nodes (server/cluster/cluster.h): the Redis bus ("" = a single node), this node's id
    // and the lease it holds on its games (renewed every third of it).
    std::string bus;
    std::string node_id;
    int lease_ms = 6000;
    std::string sync = "full";      // full, normal or off (docs/ARCHITECTURE.md)
    std::string fault_file;         // tests only: the store injects the faults this file names
    int workers = 2;                // threads for store reads (history API) and computer opponents
    double drain_seconds = 5;       // SIGTERM: longest wait for in-flight writes
    double handshake_seconds = 10;  // a new connection's first message (TCP) or request (HTTP)
    double slow_seconds = 30;       // longest time a TCP message may stay incomplete
    int threads = 2;
    double grace_seconds = 60;      // a disconnected player's grace period, then claim
    double award_seconds = -1;      // after the grace: win awarded unclaimed; <0: = grace
    bool mine_puzzles = false;      // find puzzles in finished public games (a low-priority thread)
    int mine_puzzles_every = 60;    // seconds between looks for games to mine when none was found
    bool house_bots = true;         // the built-in levels as bot accounts Level1..5 (made at start)
    int tournament_pass_ms = 1000;  // how often a node directs its tournaments
    std::string tournament_schedule;       // the operator's schedule's file ("": none)
    std::string tournament_schedule_text;  // its text, read once the flags are parsed
    double bot_pace = 1;       // x the bot's human-like moment before its move; 0: at once
    double stall_seconds = 0;  // the stalling limit for every game; 0: from the time control
    double start_timeout_seconds = 120;  // both seats filled -> silver's first turn, or abort
    double retention_seconds = 600;      // finished games stay in memory this long
    int chat_lines = 5;                  // chat lines per player per room ...
    double chat_window_seconds = 10;     // ... within this window
    double rate_per_second = 20;         // message credits refilled per second
    double rate_burst = 40;              // credit bucket size
    std::size_t history = 128;           // events kept per game for reconnection
    std::size_t queue_limit = 256;       // outgoing messages per connection before disconnect
    int max_games = 10;  // unfinished games a player may hold a seat in (create_game)
    int max_open_games_per_player = 3;  // open games (waiting for an opponent) per creator
    int max_open_games_per_ip = 8;      // ... per client address (IPv6: /64), fresh guests included
    double open_away_seconds = 20;      // an open game's creator away this long: off the lobby
    double open_cancel_seconds = 300;   // ... away this long: the game is cancelled
    double correspondence_day_seconds = 86400;  // a "day" of correspondence clocks (tests: less)
    double vacation_days = 30;          // an account's vacation a calendar year, in those days
    double vacation_poll_seconds = 10;  // how often a node reads who is on vacation
    // E-mail (OPERATING.md "E-mail"): the relay ("" = no mail), the sender, the links' base.
    std::string smtp_url;
    std::string mail_from;                    // "" = trunkfield@ the public address's host
    std::string public_url;                   // "" = http://BIND:HTTP_PORT
    double mail_turn_gap_seconds = 3 * 3600;  // a game's "your move" mailed at most this often
    double mail_digest_seconds = 86400;       // an account with the digest: one mail per this
    double mail_poll_seconds = 2;             // how often a node looks at the queue
    int lobby_interval_ms = 500;   // lobby list: changes coalesced to one message per interval
    std::size_t list_limit = 100;  // games in one lobby or live list message
    int live_interval_ms = 1000;   // live-games list: turn updates coalesced to one per interval
    // Exposure limits (issue 8; README "Limits and exposure").
    int max_connections_per_ip = 256;  // per client address, both ports; 0 = no limit
    int max_connections = 0;           // in all, both ports; 0 = from RLIMIT_NOFILE (main.cpp)
    // Proxies whose X-Forwarded-For and PROXY protocol headers name the client (CIDR blocks).
    std::vector<std::string> trusted_proxies;
    int password_threads = 0;           // 0: one per core
    int password_queue = 0;             // password checks waiting or running; 0: 8 per thread
    int login_checks_per_address = 60;  // password checks per client address per 10 minutes
    std::string metrics_token;  // GET /metrics with this bearer token; "" = loopback clients only
    std::vector<std::string> allowed_origins;  // WebSocket upgrade Origin allow-list; empty = any
    double idle_seconds = 30;      // silent WebSocket -> ping; no answer within as long -> closed
    double lag_probe_seconds = 3;  // WebSocket round-trip probes for lag compensation; 0: none
};

}  // namespace tf::server
