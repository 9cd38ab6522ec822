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
    if (!proto::finished(rec_.status) || fault_.lost || !fault_.loaded || ops_.busy() ||
        fault_.saved_version != rec_.version || !store_.keeps_games())
        return;
    if (rec_.summary.active && history_.empty())
        return;  // already a summary, nothing emitted since
    if (!rec_.summary.active) ++metrics().games_compacted;
    rec_.compact();
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

// The replay runs in a scratch record, so that a read or a replay that fails leaves this one as
// it was; only what the summary lacks is taken from it.
bool Room::expanded(const Read<std::optional<GameRows>>& read) {
    std::string error = read.error;
    if (read.ok() && !*read.value) error = "the game is not in the store";
    GameRecord full(params_.variant, params_.rated);
    EventHistory history(limits_.history);
    if (error.empty()) {
        const GameRows& rows = **read.value;
        full.seats[idx(params_.creator_side)] = rec_.seats[idx(params_.creator_side)];
        auto each = [&](const proto::Event&, const JournalRow& jr) {
            history.add(jr.version, std::make_shared<const std::string>(jr.event));
        };
        if (!full.replay(rows.row, rows.journal, each, error))
            error = "it does not replay: " + error;
        else if (full.version != rec_.version || full.status != rec_.status)
            error = "the store has it at version " + std::to_string(full.version) + ", " +
                    std::string(proto::status_name(full.status)) + ", not " +
                    std::to_string(rec_.version) + ", " +
                    std::string(proto::status_name(rec_.status));
    }
    if (!error.empty()) {
        spdlog::error("room {}: cannot read the finished game back: {}", code_, error);
        return false;
    }
    rec_.expand(std::move(full));
    history_.take(std::move(history));
    --metrics().games_compacted;
    return true;
}

}  // namespace tf::server
