// A room and its stored record (server/store/record_codec.h owns the format): the game's row
// written after every operation, and the replay of a journal through the rules that rebuilds a room
// — after a restart (restore(), then resume() puts it back in the lobby with fresh grace periods
// and its clock running again from the stored reading, the downtime not charged) and after a
// store failure (load()).
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
    if (!room->load(row, journal, error)) return nullptr;
    if (proto::finished(room->rec_.status) || room->rec_.status == Status::Cancelled)
        return fail("the game ended but is stored as unfinished");
    return room;
}

// Replays the journal through the rules into a fresh record (GameRecord::replay); the room's
// own parts start afresh around it: the history and chat log from the journal, the clock from
// its last reading, no deadline but the no-start limit.
bool Room::load(const StoredGame& row, const std::vector<JournalRow>& journal, std::string& error) {
    const int ci = idx(params_.creator_side);
    if (row.seat_id[ci].empty()) {
        error = "the creator's seat is empty";
        return false;
    }
    if (rec_.summary.active) --metrics().games_compacted;
    const bool rematch_starting = rec_.offers.rematch_starting;  // its room is being made
    rec_ = GameRecord(params_.variant, params_.rated);
    rec_.offers.rematch_starting = rematch_starting;
    rec_.seats[ci] = Player{row.seat_id[ci], row.seat_name[ci], params_.rated,  // rated: accounts
                            row.seat_bot[ci]};
    history_.clear();
    chat_.clear_log();
    if (params_.time_control) {
        clock_.emplace(*params_.time_control, limits_.day);
        lag_.emplace(*params_.time_control);
    } else {
        clock_.reset();
        lag_.reset();
    }
    due_.start.reset();
    due_.away_since[0].reset();
    due_.away_since[1].reset();
    due_.remove.reset();
    due_.stall.reset();
    fault_.last_clock_at_ms = 0;
    std::optional<proto::ClockReading> last_clocks;
    auto each = [&](const proto::Event& ev, const JournalRow& jr) {
        if (auto* c = std::get_if<proto::ChatEv>(&ev.body)) chat_.remember(*c);
        if (ev.clocks) last_clocks = ev.clocks;
        history_.add(jr.version, std::make_shared<const std::string>(jr.event));
    };
    if (!rec_.replay(row, journal, each, error)) return false;
    auto now = SteadyClock::now();
    // A berserk before the first turn of play took time off a clock that was not running yet.
    const bool berserked = rec_.berserk[0] || rec_.berserk[1];
    if (clock_ && (rec_.started() || berserked) && last_clocks) {
        clock_->restore(last_clocks->silver_ms, last_clocks->bronze_ms,
                        rec_.status == Status::Playing ? last_clocks->running : std::nullopt, now);
        fault_.last_clock_at_ms = last_clocks->at;
        for (Side s : {Side::Silver, Side::Bronze})
            if (rec_.berserk[idx(s)]) clock_->no_increment(s);
    } else if (clock_ && rec_.started()) {
        error = "a timed game without a clock reading";
        return false;
    }
    if (rec_.status == Status::Playing && !rec_.started() && !rec_.vacation[0] && !rec_.vacation[1])
        due_.start = now + limits_.start_timeout;
    fault_.saved_version = rec_.version;
    return true;
}

void Room::resume() {
    on_strand([this] {
        for (auto& s : rec_.seats)
            if (s) env_.players.seat(s->id, code_, correspondence());
        if (rec_.status == Status::Open && !params_.open_ticket)
            params_.open_ticket = env_.players.adopt_open(rec_.seats[idx(params_.creator_side)]->id,
                                                          params_.creator_address);
        if (rec_.status == Status::Open) list_open();
        update_live("resume");
        arm_stall();        // a sitting player's limit starts again
        update_presence();  // nobody is connected yet: grace periods start now
        if (params_.rated) read_seat_ratings();
        check_vacations();  // the vacations as they are now, not as the journal left them
    });
}

}  // namespace tf::server
