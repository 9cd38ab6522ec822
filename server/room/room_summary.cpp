// A finished game in memory (issue 21): it stays for --retention-seconds for late watchers and
// rematches, but once its end and whatever followed it (rematch offers, chat) are committed,
// the store holds everything the rules state, setups, turns and history are rebuilt from. The
// room then keeps only a summary: params, seats, status and result, versions, clocks, ratings,
// rematch state, the chat log (the spectators' lines are stored nowhere), timers and watchers.
// A rematch needs no more than that, nor does a watcher already at the final version; a
// snapshot or a catch-up from an older version reads the game back from the store first,
// asynchronously, with the room's operations held meanwhile (room_faults.cpp's reload does the
// same), and replays it with load(), the replay that restore() uses.
#include <spdlog/spdlog.h>

#include "server/base/metrics.h"
#include "server/room/room.h"

namespace tf::server {

// From idle(): after every operation, and after every commit, once nothing is in flight. With
// --store memory (NullStore) nothing can be read back: the game keeps its whole state.
void Room::maybe_compact() {
    if (!proto::finished(status_) || fault_.lost || !fault_.loaded || ops_.busy() ||
        fault_.saved_version != version_ || !store_.keeps_games())
        return;
    if (summary_.active && history_.empty()) return;  // already a summary, nothing emitted since
    if (!summary_.active) {
        summary_.result = result();
        summary_.turns = std::int64_t(turns_.size());
        summary_.active = true;
        ++metrics().games_compacted;
    }
    game_.reset();
    setups_[0].reset();
    setups_[1].reset();
    std::vector<Turn>().swap(turns_);
    history_.clear();
}

void Room::expand(std::function<void()> then, std::function<void()> failed) {
    ops_.hold();
    store_.read_game(code_, ex_,
                     [self = shared_from_this(), then = std::move(then),
                      failed = std::move(failed)](Read<std::optional<GameRows>> r) mutable {
                         const bool ok = self->expanded(r);
                         self->ops_.release(ok ? std::move(then) : std::move(failed));
                     });
}

// The replay runs in a scratch room of the same params, so that a read or a replay that fails
// leaves this one as it was; only what the summary lacks is taken from it.
bool Room::expanded(const Read<std::optional<GameRows>>& read) {
    std::string error = read.error;
    if (read.ok() && !*read.value) error = "the game is not in the store";
    std::shared_ptr<Room> full;
    if (error.empty()) {
        const GameRows& rows = **read.value;
        full =
            std::make_shared<Room>(ex_, code_, params_, *seats_[idx(params_.creator_side)], env_);
        if (!full->load(rows.row, rows.journal, error))
            error = "it does not replay: " + error;
        else if (full->version_ != version_ || full->status_ != status_)
            error = "the store has it at version " + std::to_string(full->version_) + ", " +
                    std::string(proto::status_name(full->status_)) + ", not " +
                    std::to_string(version_) + ", " + std::string(proto::status_name(status_));
    }
    if (!error.empty()) {
        spdlog::error("room {}: cannot read the finished game back: {}", code_, error);
        return false;
    }
    game_ = std::move(full->game_);
    setups_[0] = std::move(full->setups_[0]);
    setups_[1] = std::move(full->setups_[1]);
    turns_ = std::move(full->turns_);
    history_.take(std::move(full->history_));
    summary_.active = false;
    --metrics().games_compacted;
    return true;
}

}  // namespace tf::server
