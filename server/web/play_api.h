// The HTTP API for programs (proto/PROTOCOL.md "HTTP API for programs"): a bot or a script
// plays with its account's token and no socket protocol of its own.
// - POST /api/game/CODE/{setup,turn,resign,draw,chat}, POST /api/challenge/NAME and
//   POST /api/challenge/CODE/{accept,decline}: each request is one message of the socket
//   protocol, sent through a connection of its own (ApiSession, a Session without a socket)
//   and answered with what the game answered: the same rooms, checks and versions as a
//   WebSocket's, forwarded to the game's node like any connection's.
// - GET /api/stream/event and GET /api/game/stream/CODE: NDJSON streams (chunked HTTP/1.1) of
//   the account's notifications and of one game (its snapshot, then each event), with an empty
//   keep-alive line when nothing else was written for a while.
// Requests are paid for from one bucket per account (the socket's rate and burst), which the
// answers' RateLimit-* headers describe.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "server/base/participant.h"
#include "server/net/conn_limit.h"
#include "server/web/history_api.h"

namespace tf::server {

struct Hub;

// Who makes a request: a session token (said in a hello, as a socket's client says it), or the
// player an access token stood for (server/web/token_api.h).
struct ApiAuth {
    std::string token;
    std::optional<Player> player;
};
// The access-token scope a request needs: "read" for the streams, "play" for a game's acts,
// "challenge" for challenges.
const char* scope_of(std::string_view target);

// True for the action targets (POST) and for the streams (GET).
bool is_play_target(std::string_view target);
bool is_stream_target(std::string_view target);

// The bucket's state for the answer's headers, and whether the request may go on.
struct RateState {
    bool allowed = true;
    int limit = 0, remaining = 0, reset_seconds = 0;
};
// Takes one credit of `player_id`'s bucket.
RateState take_api_credit(const Hub& hub, const std::string& player_id);

// A POST of `target` with `body` by `auth` (already checked), from `address`: `done` runs on
// `ex` with the answer.
void play_api(Hub& hub, const ApiAuth& auth, std::string address, std::string_view target,
              const std::string& body, Store::Executor ex, std::function<void(ApiResponse)> done);

// A stream: the socket is handed over; `head` is the answer's status line and headers up to
// (without) the final CRLF, written before the first line. A game the stream cannot watch
// (no_such_game) is answered 404 instead.
void start_play_stream(boost::asio::ip::tcp::socket socket, ConnLimiter::Slot slot, Hub& hub,
                       const ApiAuth& auth, std::string address, std::string_view target,
                       std::string head);

}  // namespace tf::server
