// What happens to a room with time or presence (proto/PROTOCOL.md "Time"):
// - the clock: the side to move loses on time when its time runs out;
// - the no-start limit: from both seats filled until silver's first turn, else aborted;
// - disconnect grace: a seat with no connection may be claimed by the opponent after one
//   grace period and is awarded to it after a further award period; both seats away: nobody is
//   awarded, the clock (if any) keeps running, an untimed game is aborted at the award time;
// - an open game's absent creator: off the lobby after --open-away-seconds, cancelled after
//   --open-cancel-seconds (back in time: listed again);
// - retention: a finished game leaves the directory after the retention period;
// - the `spectators` event, at most one per interval (RoomCore::count_spectators).
// One steady_timer on the room's strand is armed for the earliest of these deadlines
// (Room::schedule); every deadline is also checked when a request arrives (Room::tick), so a late
// turn is never accepted.
//
// Correspondence games (PROTOCOL.md "Time", "Correspondence games"): a time control of days per
// move, whose clock gives each move the whole time again (clock.h). The players come and go as
// they like: nobody is away from such a game (no disconnect claims, below), nobody is
// judged stalling (below), its open game stays in the lobby while the creator is
// gone and lapses only after RoomLimits::kOpenDays; the setups and silver's first turn have two
// moves' time. The row in the store says whose move the game waits for and until when (GET
// /api/playing), and a player with no connection to the game is told it is their move (notification
// your_turn).
//
// Stalling (PROTOCOL.md "Stalling", docs/RULES.md "Stalling"): a player who sits on a move in a
// position the server's bot judges lost, past a limit derived from the time control, is
// stalling; the opponent may then claim the win or a draw, as lichess lets a player claim a
// game the opponent left, but for sitting. Only a sitting player costs a search: the position
// is judged once, when the limit passes, on the worker pool (as the bot's moves are:
// Room::judge_stall).
#include "server/room/room_time.h"

#include <spdlog/spdlog.h>

#include "server/room/directory.h"
#include "server/room/room_notices.h"

namespace tf::server {

RoomTime::Due RoomTime::check_deadlines(TimePoint now) {
    Due todo;
    if (c_.rec.status == Status::Playing && c_.clock && c_.clock->expired(now))
        end_timeout(*c_.clock->running());
    if (c_.rec.status == Status::Playing && c_.due.start && now >= *c_.due.start)
        end(proto::AbortEv{proto::AbortReason::NoStart, std::nullopt});
    if (c_.rec.status == Status::Playing && c_.due.stall && now >= *c_.due.stall)
        todo.judge_stall = true;
    for (Side s : {Side::Silver, Side::Bronze}) {
        const auto award = c_.due.award_at(s, c_.limits);
        if (c_.rec.status != Status::Playing || !c_.rec.started() || !award || now < *award)
            continue;
        if (c_.present(~s))
            end(proto::AbandonEv{s, false});
        else if (!c_.clock)
            end(proto::AbortEv{proto::AbortReason::Abandoned, std::nullopt});
    }
    if (c_.rec.status == Status::Open && c_.due.creator_away) {
        if (!c_.due.delisted && now >= *c_.due.creator_away + c_.limits.open_away) {
            spdlog::info("room {}: its creator left; off the lobby", c_.code);
            c_.due.delisted = true;
            c_.list_open();
        }
        if (now >= *c_.due.creator_away + c_.limits.open_cancel) {
            spdlog::info("room {}: cancelled, its creator has been away too long", c_.code);
            cancel_now();
        }
    }
    if (auto n = c_.watchers.due_now(now)) c_.tell_spectators(*n, now);
    if (c_.due.live_flush && now >= *c_.due.live_flush) {
        c_.due.live_flush.reset();
        c_.env.listings.flush_live();
    }
    if (c_.rec.status == Status::Suspended && c_.fault.retry_at && now >= *c_.fault.retry_at)
        todo.retry = true;
    if (c_.due.remove && now >= *c_.due.remove) {
        c_.due.remove.reset();
        spdlog::debug("room {}: removed after the retention period", c_.code);
        c_.env.directory.remove(c_.code);
    }
    return todo;
}

void RoomTime::update_presence() {
    const auto now = SteadyClock::now();
    if (c_.rec.status == Status::Open && !c_.fault.lost) {
        if (c_.due.creator_presence(c_.present(c_.params.creator_side), now)) c_.list_open();
        return c_.schedule();
    }
    if (c_.rec.status != Status::Playing) return;
    // A correspondence game's players come and go: nobody is away from it (no claims).
    if (c_.correspondence()) return c_.schedule();
    const bool here[2] = {c_.present(Side::Silver), c_.present(Side::Bronze)};
    for (auto& ev : c_.due.presence(here, now, c_.limits)) c_.emit(std::move(ev));
    c_.schedule();
}

void RoomTime::conclude() {
    if (c_.clock) c_.clock->stop(SteadyClock::now());
    c_.due.start.reset();
    c_.due.stall.reset();
    c_.due.away_since[0].reset();
    c_.due.away_since[1].reset();
}

void RoomTime::end(proto::EventBody ending) {
    c_.apply(ending);  // the rules' end; no offer or judgement stands past it
    conclude();
    c_.emit(std::move(ending));
    finish();
}

void RoomTime::end_timeout(Side loser) {
    c_.clock->flag(loser);
    end(proto::TimeoutEv{loser});
}

void RoomTime::finish() {
    c_.rec.finished_ms = epoch_ms(SteadyClock::now(), SteadyClock::now());
    c_.record(proto::GameOverEv{c_.rec.result()});
    // A rated game counts once it has begun (a turn was played): in the same write as its end.
    if (c_.params.rated && c_.rec.status == Status::Over)
        if (auto g = c_.ratings.game(c_.rec.result(), c_.rec.started(), c_.rec.seats,
                                     c_.rec.finished_ms))
            c_.ops.rate(std::move(*g));
    // An account with no connection to the game when it ends (its page closed, or away) finds
    // the result in its notifications (PROTOCOL.md "Notifications": game_over); not for an
    // aborted one.
    if (c_.env.notify && c_.rec.status == Status::Over)
        for (Side s : {Side::Silver, Side::Bronze}) {
            const auto& seat = c_.rec.seats[idx(s)];
            if (!seat || !seat->account || c_.present(s)) continue;
            c_.env.notify(seat->id, "game_over",
                          notices::game_over(c_.code, c_.rec.result(), c_.rec.seats[idx(~s)]));
        }
    c_.later([this] {
        for (auto& s : c_.rec.seats)
            if (s) c_.env.players.unseat(s->id, c_.code);
    });
    c_.chat.forget_senders();
    forget_history();
    c_.due.remove = SteadyClock::now() + c_.limits.retention;
    c_.schedule();
}

// A finished game stays in memory for its retention (late watchers, rematches) as little more
// than its final state: the serialized events of the game go, since a watcher who missed any of
// them gets the snapshot, which holds the whole record. Only the last few, and the few events a
// finished game still has (rematch offers, chat), are kept for watchers a moment behind. Once
// its end is stored, even those and the state go: a summary (RoomRecovery::compact).
void RoomTime::forget_history() {
    c_.history.finished();
    c_.rec.turns.shrink_to_fit();  // no more turns: the vector's doubling slack (up to half) goes
}

void RoomTime::cancel_now(std::optional<std::string> declined) {
    c_.left_open();
    c_.rec.finished_ms = epoch_ms(SteadyClock::now(), SteadyClock::now());
    c_.record(proto::CancelEv{std::move(declined)});
    c_.later([this, id = c_.rec.seats[idx(c_.params.creator_side)]->id] {
        c_.env.players.unseat(id, c_.code);
        c_.env.directory.remove(c_.code);
    });
}

void RoomTime::check_vacations() {
    if (!c_.env.on_vacation || !c_.correspondence() || c_.rec.status != Status::Playing ||
        !c_.rec.game || c_.rec.game->over())
        return;
    for (Side s : {Side::Silver, Side::Bronze}) {
        const auto& seat = c_.rec.seats[idx(s)];
        // (a guest is never on vacation; a restored seat does not say whether it is an account)
        const auto known = seat ? c_.env.on_vacation(seat->id) : std::optional<bool>(false);
        if (!known) return;  // the node has not read the vacations yet: it tells every room then
        const bool on = *known;
        if (on == c_.rec.vacation[idx(s)]) continue;
        const proto::VacationEv ev{s, on};
        c_.apply(ev);
        vacation_clock(SteadyClock::now());
        c_.emit(ev);  // its clocks say whose time runs now
    }
    c_.schedule();
}

void RoomTime::vacation_clock(TimePoint now) {
    if (!c_.correspondence() || c_.rec.status != Status::Playing || !c_.rec.game ||
        c_.rec.game->over())
        return;
    if (!c_.rec.started()) {
        if (c_.rec.vacation[0] || c_.rec.vacation[1])
            c_.due.start.reset();
        else if (!c_.due.start)
            c_.due.start = now + c_.limits.start_timeout;
        return;
    }
    if (!c_.clock) return;
    const Side mover = c_.rec.game->to_move();
    if (c_.rec.vacation[idx(mover)])
        c_.clock->stop(now);
    else if (!c_.clock->running())
        c_.clock->start(mover, now);
}

void RoomTime::notify_turn() {
    if (!c_.env.notify || !c_.correspondence() || c_.rec.status != Status::Playing ||
        !c_.rec.game || c_.rec.game->over())
        return;
    const Side s = c_.rec.game->to_move();
    const auto& seat = c_.rec.seats[idx(s)];
    if (!seat || !seat->account || c_.present(s)) return;
    const auto by = c_.move_deadline();
    const auto body = notices::your_turn(c_.code, c_.rec.seats[idx(~s)],
                                         by ? epoch_ms(*by, SteadyClock::now()) : 0);
    // Once the change is stored: a player told to move finds the game as the notification says.
    c_.later([this, id = seat->id, body] { c_.env.notify(id, "your_turn", body); });
}

void RoomTime::arm_stall() {
    c_.due.stall.reset();
    if (c_.rec.status != Status::Playing || !c_.rec.started() || c_.bot_side() ||
        c_.correspondence() || c_.rec.game->over() || c_.rec.game->phase() != Phase::Play ||
        c_.rec.stalling)
        return;
    c_.due.stall = SteadyClock::now() + c_.limits.stall;
}

}  // namespace tf::server
