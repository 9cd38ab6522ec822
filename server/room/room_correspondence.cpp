// Correspondence games (PROTOCOL.md "Time", "Correspondence games"): a time control of days per
// move, whose clock gives each move the whole time again (clock.h). The players come and go as
// they like: nobody is away from such a game (no disconnect claims, room_timers.cpp), nobody is
// judged stalling (room_stalling.cpp), its open game stays in the lobby while the creator is
// gone and lapses only after kOpenDays; the setups and silver's first turn have two moves' time.
// The row in the store says whose move the game waits for and until when (GET /api/playing), and
// a player with no connection to the game is told it is their move (notification your_turn).
#include "server/room/room.h"

namespace tf::server {

namespace {

constexpr int kOpenDays = 14;  // an open correspondence game lapses after its creator's absence

}  // namespace

void Room::correspondence_limits() {
    const auto per_move = params_.time_control->days_per_move * limits_.day;
    limits_.start_timeout = 2 * per_move;
    limits_.open_away = std::chrono::hours(24 * 365 * 50);  // never off the lobby for it
    limits_.open_cancel = kOpenDays * limits_.day;
}

std::optional<TimePoint> Room::move_deadline() const {
    if (auto flag = clock_ ? clock_->deadline() : std::nullopt) return flag;
    return due_.start;
}

nlohmann::json Room::seat_json(Side s) const {
    const auto& seat = rec_.seats[idx(s)];
    return seat ? nlohmann::json{{"id", seat->id}, {"name", seat->name}} : nlohmann::json(nullptr);
}

StoredGame Room::stored_row() const {
    StoredGame g = rec_.row(code_, params_);
    if (!correspondence() || rec_.status != Status::Playing || !rec_.game) return g;
    g.to_move = side_name(rec_.game->to_move());
    if (auto by = move_deadline()) g.move_by = epoch_ms(*by, SteadyClock::now());
    return g;
}

void Room::notify_turn() {
    if (!env_.notify || !correspondence() || rec_.status != Status::Playing || !rec_.game ||
        rec_.game->over())
        return;
    const Side s = rec_.game->to_move();
    const auto& seat = rec_.seats[idx(s)];
    if (!seat || !seat->account || present(s)) return;
    const auto by = move_deadline();
    nlohmann::json n = {{"game", code_},
                        {"opponent", seat_json(~s)},
                        {"move_by", by ? epoch_ms(*by, SteadyClock::now()) : 0}};
    // Once the change is stored: a player told to move finds the game as the notification says.
    later([this, id = seat->id, body = n.dump()] { env_.notify(id, "your_turn", body); });
}

}  // namespace tf::server
