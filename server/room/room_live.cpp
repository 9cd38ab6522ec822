// The room's entry in the lobby's list of live games (PROTOCOL.md "live"): public games being
// played, with players, turns played, score and spectators. Runs on the room's strand.
#include "server/room/room.h"

namespace tf::server {

void Room::update_live(std::string_view what) {
    if (!fault_.loaded) return;  // suspended and not read back yet: the listing stays as it was
    bool listed = rec_.status == Status::Playing ||
                  (rec_.status == Status::Suspended && fault_.resume_status == Status::Playing);
    // A game both players left is not worth watching: off the list until one comes back (the
    // server still ends it by its rules).
    const bool abandoned = due_.away_since[0] && due_.away_since[1];
    if (!params_.is_public || !listed || abandoned) {
        // not (or no longer) live: a no-op if unlisted
        env_.listings.set_live(code_, std::nullopt, true);
        return;
    }
    // A turn or a setup only moves the game on: a delta of its progress. Chat changes nothing
    // listed. Anything else (start, seats, spectators, status) republishes the entry at once.
    std::optional<Listings::TimePoint> due;
    if (what == "chat") return;
    if (what == "turn" || what == "setup") {
        int score[2] = {rec_.game->score(Side::Silver), rec_.game->score(Side::Bronze)};
        due = env_.listings.set_live_progress(code_, rec_.game->turns_played(),
                                              rec_.game->to_move(), score);
    } else {
        due = env_.listings.set_live(code_, view().live_entry(), true);
    }
    if (due) {
        due_.live_flush = *due;  // check_deadlines flushes the held change
        schedule();
    }
}

}  // namespace tf::server
