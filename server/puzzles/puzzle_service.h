// The server's puzzles (issue 37; proto/PROTOCOL.md "Puzzle API"): a thread of their own that
// owns the puzzles' database connection (server/store/puzzle_db.h, opened again after a fault)
// and runs the requests, judging answers with the engine (common/puzzles.h) — never on a network
// thread, and with a bounded queue, so that a flood of answers is refused (busy) instead of
// queued for ever. With --mine-puzzles, a miner thread at the lowest priority takes finished
// public games one at a time (claimed in the store: several nodes never mine one game twice) and
// adds the puzzles found in them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "common/puzzles.h"
#include "server/store/puzzle_db.h"
#include "server/store/side_thread.h"
#include "server/store/store.h"

namespace tf::server {

// A puzzle (common/puzzles.h) as the store keeps it; `source_game` is the game it was mined
// from ("" for an imported one), `now_ms` when it is added.
StoredPuzzle stored_puzzle(const Puzzle& p, const std::string& source_game, std::int64_t now_ms);

struct MineOptions {
    bool on = false;
    int every_seconds = 60;  // a look for finished games when the last one found none
    int min_turns = 16;      // shorter games are not mined
    PuzzleOptions search = {};
};

class PuzzleService {
  public:
    using Open = std::function<std::unique_ptr<PuzzleDb>()>;
    // `store`: the games the miner reads (it must outlive this).
    PuzzleService(Open open, Store& store, MineOptions mine);
    ~PuzzleService();
    PuzzleService(const PuzzleService&) = delete;
    PuzzleService& operator=(const PuzzleService&) = delete;

    static constexpr int kMaxQueued = 16;

    // Runs `job` on the puzzle thread with the database (SideThread::run): false, and nothing
    // queued, when kMaxQueued requests are waiting already.
    template <class T>
    bool run(std::function<T(PuzzleDb&)> job, Store::Executor ex,
             std::function<void(Read<T>)> then) {
        return thread_.run<T>(std::move(job), std::move(ex), std::move(then));
    }

    struct MineStats {
        std::atomic<std::uint64_t> games{0}, puzzles{0}, failures{0};
    };
    const MineStats& mine_stats() const { return mined_; }

  private:
    void mine();  // the miner thread

    Open open_;
    Store& store_;
    const MineOptions mine_;
    MineStats mined_;
    std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread miner_;
    SideThread<PuzzleDb> thread_;  // last: joined first
};

}  // namespace tf::server
