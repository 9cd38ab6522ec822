// A room and its stored record (server/store/record_codec.h owns the format): a room rebuilt
// from its row and journal after a restart (restore(), then resume() puts it back in the lobby
// with fresh grace periods and its clock running again from the stored reading, the downtime
// not charged), and the reads that bring a room's state back from the store off the strand
// (reload() after a failure, expand() for a summary), their answers RoomRecovery's.
#include <spdlog/spdlog.h>

#include "server/base/metrics.h"
#include "server/room/directory.h"
#include "server/room/room.h"

namespace tf::server {

std::shared_ptr<Room> Room::restore(Executor ex, const StoredGame& row,
                                    const std::vector<JournalRow>& journal, RoomServices& env,
                                    std::string& error) {
    auto fail = [&](std::string why) {
        error = std::move(why);
        return std::shared_ptr<Room>();
    };
    auto params = RoomParams::of_row(row, error);
    if (!params) return nullptr;
    const int ci = idx(params->creator_side);
    if (row.seat_id[ci].empty()) return fail("the creator's seat is empty");
    auto room = std::make_shared<Room>(
        ex, row.code, *params,
        Player{row.seat_id[ci], row.seat_name[ci], row.rated, row.seat_bot[ci]}, env);
    if (row.status != "open" && row.status != "playing")
        return fail("the game is stored as " + row.status + ", not unfinished");
    if (!room->recovery_.load(row, journal, error)) return nullptr;
    if (proto::finished(room->c_.rec.status) || room->c_.rec.status == Status::Cancelled)
        return fail("the game ended but is stored as unfinished");
    return room;
}

void Room::resume() {
    on_strand([this] {
        for (auto& s : c_.rec.seats)
            if (s) c_.env.players.seat(s->id, c_.code, c_.correspondence());
        if (c_.rec.status == Status::Open && !c_.params.open_ticket)
            c_.params.open_ticket = c_.env.players.adopt_open(
                c_.rec.seats[idx(c_.params.creator_side)]->id, c_.params.creator_address);
        if (c_.rec.status == Status::Open) c_.list_open();
        c_.update_live("resume");
        time_.arm_stall();        // a sitting player's limit starts again
        time_.update_presence();  // nobody is connected yet: grace periods start now
        if (c_.params.rated) read_seat_ratings();
        time_.check_vacations();  // the vacations as they are now, not as the journal left them
    });
}

// Reads the game back from the store (off the strand); requests wait until it is back.
void Room::reload() {
    c_.ops.hold();
    c_.store.read_game(
        c_.code, c_.ex, [self = shared_from_this()](Read<std::optional<GameRows>> r) {
            self->recovery_.reloaded(std::move(r));
            self->c_.ops.release();  // the requests that waited run on the state read back
        });
}

void Room::expand(std::function<void()> then, std::function<void()> failed) {
    c_.ops.hold();
    c_.store.read_game(c_.code, c_.ex,
                       [self = shared_from_this(), then = std::move(then),
                        failed = std::move(failed)](Read<std::optional<GameRows>> r) mutable {
                           const bool ok = self->recovery_.expanded(r);
                           self->c_.ops.release(ok ? std::move(then) : std::move(failed));
                       });
}

}  // namespace tf::server
