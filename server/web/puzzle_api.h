// The puzzle API on the HTTP port (proto/PROTOCOL.md "Puzzle API"): the next puzzle for a
// reader, the puzzle of the day, one puzzle, a reader's attempts, and answers judged against a
// puzzle's line, the first finished attempt of an account rated with Glicko-2. Every request
// runs on the puzzle thread (server/puzzles/puzzle_service.h): nothing here blocks the
// connection's thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "server/web/history_api.h"

namespace tf::server {

class PuzzleService;

// Who asks: a player by a valid token (a guest's too), or nobody ("").
struct PuzzleReader {
    std::string player_id;
    bool account = false;
};

// True for /api/puzzles and what is under it.
bool is_puzzle_target(std::string_view target);
// Answers a GET (`post` false) or a POST of `target` with `body`: `done` runs on `ex` with the
// response (never throws). `svc` null: this server keeps no puzzles (503).
void puzzle_api(PuzzleService* svc, bool post, std::string_view target, std::string body,
                PuzzleReader reader, Store::Executor ex, std::function<void(ApiResponse)> done);

}  // namespace tf::server
