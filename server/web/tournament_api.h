// The tournaments' HTTP API (proto/PROTOCOL.md "Tournaments"; docs/TOURNAMENTS.md):
//   GET  /api/tournaments               the listed ones (created, running, finished this week)
//   GET  /api/tournament/ID             one, with its standings, games and byes
//   GET  /api/tournament/ID/report      its report as plain text (a download)
//   GET  /api/tournament/ID/stream      NDJSON: the tournament as GET /api/tournament/ID has it,
//                                       a line each time it changes, until it is over
//   POST /api/tournament                make one (an account; a token's "challenge" scope)
//   POST /api/tournament/ID/join        enter it (or come back); {"password"} when it has one
//   POST /api/tournament/ID/withdraw    leave it: no more pairings
// The GETs are anyone's (a private tournament is read by its id); the POSTs come through the
// HTTP API for programs (a session or access token, its account's rate limit). Each request
// is a job on the tournaments' thread (server/director/tournaments.h).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <string>
#include <string_view>

#include "server/base/participant.h"
#include "server/net/conn_limit.h"
#include "server/store/store.h"
#include "server/web/history_api.h"

namespace tf::server {

struct Hub;

bool is_tournament_target(std::string_view target);
// `viewer`: the player of the request's token, if any (its private tournaments are listed).
void tournament_read(Hub& hub, std::string_view target, const std::string& viewer,
                     Store::Executor ex, std::function<void(ApiResponse)> done);
void tournament_post(Hub& hub, const Player& p, std::string_view target, const std::string& body,
                     Store::Executor ex, std::function<void(ApiResponse)> done);

// GET /api/tournament/ID/stream, for broadcasters: anyone's, as the page is. The socket is
// handed over (server/web/ndjson_stream.h); `head` as start_play_stream's. The tournament is
// read once a second (one read a second for all the streams of a tournament), and written when
// it changed; the stream ends when the tournament is over and its last game ended. An unknown
// id is answered 404.
bool is_tournament_stream(std::string_view target);
void start_tournament_stream(boost::asio::ip::tcp::socket socket, ConnLimiter::Slot slot, Hub& hub,
                             std::string_view target, std::string head);

}  // namespace tf::server
