// The room's entry in the lobby's list of live games (PROTOCOL.md "live"): public games being
// played, with players, turns played, score and spectators. Runs on the room's strand.
#include "server/lobby.h"
#include "server/room.h"

namespace tf::server {

proto::LiveGame Room::live_entry() const {
    proto::LiveGame e;
    e.code = code_;
    e.variant = params_.variant;
    e.time_control = params_.time_control;
    for (Side s : {Side::Silver, Side::Bronze}) {
        if (seats_[idx(s)]) e.players[idx(s)] = ref(*seats_[idx(s)]);
        e.score[idx(s)] = game_.score(s);
    }
    e.turns = game_.turns_played();
    e.to_move = game_.to_move();
    e.spectators = spectators();
    e.status = status_;
    return e;
}

void Room::update_live(std::string_view what) {
    if (!loaded_) return;  // suspended and not read back yet: the listing stays as it was
    bool listed = status_ == Status::Playing ||
                  (status_ == Status::Suspended && resume_status_ == Status::Playing);
    if (!params_.is_public || !listed) {
        lobby_.set_live(code_, std::nullopt, true);  // not (or no longer) live: a no-op if unlisted
        return;
    }
    bool urgent = what != "turn" && what != "setup" && what != "chat";
    // Nobody reads the live list: a turn does not rebuild the entry (it costs more than the
    // turn's own event) until a subscriber arrives (refresh_live) or an urgent change.
    if (!urgent && !lobby_.live_watched()) {
        live_stale_ = true;
        return;
    }
    live_stale_ = false;
    if (auto due = lobby_.set_live(code_, live_entry(), urgent)) {
        live_flush_at_ = *due;  // check_deadlines flushes the held change
        schedule();
    }
}

// Coalesced like a turn: the new subscriber's list may show the turns of before and gets the
// refreshed entries with the next live message (PROTOCOL.md "Live games").
void Room::refresh_live() {
    on_strand([this] {
        if (live_stale_) update_live("turn");
    });
}

}  // namespace tf::server
