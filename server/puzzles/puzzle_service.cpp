#include "server/puzzles/puzzle_service.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "server/base/time.h"
#include "server/store/record_codec.h"

namespace tf::server {

StoredPuzzle stored_puzzle(const Puzzle& p, const std::string& source_game, std::int64_t now_ms) {
    StoredPuzzle s;
    s.id = p.id;
    s.position = p.position;
    s.body = to_json(p).dump();
    s.themes = p.themes;
    s.source_game = source_game;
    s.source_turn = p.source_turn;
    s.solver_turns = int(p.line.size() + 1) / 2;
    s.margin = p.margin;
    s.rating = initial_puzzle_rating(s.solver_turns);
    s.added_ms = now_ms;
    return s;
}

PuzzleService::PuzzleService(Open open, Store& store, MineOptions mine)
    : open_(open), store_(store), mine_(std::move(mine)), thread_(open, kMaxQueued, "tf-puzzles") {
    if (mine_.on) miner_ = std::thread([this] { this->mine(); });
}

PuzzleService::~PuzzleService() {
    {
        std::lock_guard lock(m_);
        stop_ = true;
    }
    cv_.notify_all();
    if (miner_.joinable()) miner_.join();
}

// One game at a time at the lowest priority: the players' own threads come first.
void PuzzleService::mine() {
    pthread_setname_np(pthread_self(), "tf-miner");
    if (::setpriority(PRIO_PROCESS, pid_t(::syscall(SYS_gettid)), 19) != 0)
        spdlog::debug("puzzles: the miner keeps its priority (setpriority failed)");
    spdlog::info("puzzles: mining finished public games of {} turns or more (--mine-puzzles)",
                 mine_.min_turns);
    std::unique_ptr<PuzzleDb> db;
    for (;;) {
        bool found = false;
        try {
            if (!db) db = open_();
            if (auto code = db->claim_game(mine_.min_turns, epoch_ms())) {
                found = true;
                int added = 0;
                if (auto rows = store_.game_rows(*code)) {
                    auto record = game_record(rows->row, rows->journal);
                    auto puzzles = mine_record(record, *code, mine_.search);
                    if (!puzzles) {
                        spdlog::warn("puzzles: game {} cannot be mined: {}", *code,
                                     puzzles.error().message);
                    } else {
                        // Kept only when it verifies from its position string, as `puzzles
                        // import` and `trunkfield puzzles verify` check it: the game the miner
                        // searched can differ from the position the string gives back.
                        std::vector<StoredPuzzle> stored;
                        for (const auto& p : *puzzles) {
                            std::string why;
                            if (verify_puzzle(p, mine_.search.verify_nodes, mine_.search, &why))
                                stored.push_back(stored_puzzle(p, *code, epoch_ms()));
                            else
                                spdlog::info("puzzles: game {}: puzzle {} dropped: {}", *code, p.id,
                                             why);
                        }
                        added = db->add(stored);
                        spdlog::info("puzzles: game {}: {} puzzle(s), {} new", *code, stored.size(),
                                     added);
                    }
                }
                db->mined(*code, added);
                ++mined_.games;
                mined_.puzzles += std::uint64_t(added);
            }
        } catch (const std::exception& e) {
            ++mined_.failures;
            spdlog::warn("puzzles: mining failed: {}", e.what());
            db.reset();
        }
        std::unique_lock lock(m_);
        if (stop_) return;
        if (!found)
            cv_.wait_for(lock, std::chrono::seconds(mine_.every_seconds), [&] { return stop_; });
        if (stop_) return;
    }
}

}  // namespace tf::server
