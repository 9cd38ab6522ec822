// Correspondence games (PROTOCOL.md "Time", "Correspondence games"): a time control of days per
// move, whose clock gives each move the whole time again (clock.h). The players come and go as
// they like: nobody is away from such a game (no disconnect claims, room_timers.cpp), nobody is
// judged stalling (room_stalling.cpp), its open game stays in the lobby while the creator is
// gone and lapses only after RoomLimits::kOpenDays; the setups and silver's first turn have two
// moves' time. The row in the store says whose move the game waits for and until when (GET
// /api/playing), and a player with no connection to the game is told it is their move (notification
// your_turn).
#include "server/room/room.h"
#include "server/room/room_notices.h"

namespace tf::server {

std::optional<TimePoint> Room::move_deadline() const {
    if (auto flag = clock_ ? clock_->deadline() : std::nullopt) return flag;
    return due_.start;
}

StoredGame Room::stored_row() const {
    StoredGame g = rec_.row(code_, params_);
    if (!correspondence() || rec_.status != Status::Playing || !rec_.game) return g;
    g.to_move = side_name(rec_.game->to_move());
    if (auto by = move_deadline()) g.move_by = epoch_ms(*by, SteadyClock::now());
    return g;
}

void Room::vacation_changed() {
    on_strand([this] { check_vacations(); });
}

void Room::check_vacations() {
    if (!env_.on_vacation || !correspondence() || rec_.status != Status::Playing || !rec_.game ||
        rec_.game->over())
        return;
    for (Side s : {Side::Silver, Side::Bronze}) {
        const auto& seat = rec_.seats[idx(s)];
        // (a guest is never on vacation; a restored seat does not say whether it is an account)
        const auto known = seat ? env_.on_vacation(seat->id) : std::optional<bool>(false);
        if (!known) return;  // the node has not read the vacations yet: it tells every room then
        const bool on = *known;
        if (on == rec_.vacation[idx(s)]) continue;
        const proto::VacationEv ev{s, on};
        apply(ev);
        vacation_clock(SteadyClock::now());
        emit(ev);  // its clocks say whose time runs now
    }
    schedule();
}

void Room::vacation_clock(TimePoint now) {
    if (!correspondence() || rec_.status != Status::Playing || !rec_.game || rec_.game->over())
        return;
    if (!rec_.started()) {
        if (rec_.vacation[0] || rec_.vacation[1])
            due_.start.reset();
        else if (!due_.start)
            due_.start = now + limits_.start_timeout;
        return;
    }
    if (!clock_) return;
    const Side mover = rec_.game->to_move();
    if (rec_.vacation[idx(mover)])
        clock_->stop(now);
    else if (!clock_->running())
        clock_->start(mover, now);
}

void Room::notify_turn() {
    if (!env_.notify || !correspondence() || rec_.status != Status::Playing || !rec_.game ||
        rec_.game->over())
        return;
    const Side s = rec_.game->to_move();
    const auto& seat = rec_.seats[idx(s)];
    if (!seat || !seat->account || present(s)) return;
    const auto by = move_deadline();
    const auto body =
        notices::your_turn(code_, rec_.seats[idx(~s)], by ? epoch_ms(*by, SteadyClock::now()) : 0);
    // Once the change is stored: a player told to move finds the game as the notification says.
    later([this, id = seat->id, body] { env_.notify(id, "your_turn", body); });
}

}  // namespace tf::server
