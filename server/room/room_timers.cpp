// What happens to a room with time or presence (proto/PROTOCOL.md "Time"):
// - the clock: the side to move loses on time when its time runs out;
// - the no-start limit: from both seats filled until silver's first turn, else aborted;
// - disconnect grace: a seat with no connection may be claimed by the opponent after one
//   grace period and is awarded to it after a further award period; both seats away: nobody is
//   awarded, the clock (if any) keeps running, an untimed game is aborted at the award time;
// - an open game's absent creator: off the lobby after --open-away-seconds, cancelled after
//   --open-cancel-seconds (back in time: listed again);
// - retention: a finished game leaves the directory after the retention period;
// - the `spectators` event, at most one per interval (room.cpp, count_spectators).
// One steady_timer on the room's strand is armed for the earliest of these deadlines; every
// deadline is also checked when a request arrives (tick), so a late turn is never accepted.
#include <spdlog/spdlog.h>
#include <algorithm>

#include "server/accounts/ratings.h"
#include "server/room/directory.h"
#include "server/room/room.h"
#include "server/room/room_notices.h"

namespace tf::server {

using proto::Err;

void Room::tick() {
    check_deadlines(SteadyClock::now());
    schedule();
}

void Room::check_deadlines(TimePoint now) {
    if (rec_.status == Status::Playing && clock_ && clock_->expired(now))
        end_timeout(*clock_->running());
    if (rec_.status == Status::Playing && due_.start && now >= *due_.start)
        end(proto::AbortEv{proto::AbortReason::NoStart, std::nullopt});
    if (rec_.status == Status::Playing && due_.stall && now >= *due_.stall) judge_stall();
    for (Side s : {Side::Silver, Side::Bronze}) {
        const auto award = due_.award_at(s, limits_);
        if (rec_.status != Status::Playing || !rec_.started() || !award || now < *award) continue;
        if (present(~s))
            end(proto::AbandonEv{s, false});
        else if (!clock_)
            end(proto::AbortEv{proto::AbortReason::Abandoned, std::nullopt});
    }
    if (rec_.status == Status::Open && due_.creator_away) {
        if (!due_.delisted && now >= *due_.creator_away + limits_.open_away) {
            spdlog::info("room {}: its creator left; off the lobby", code_);
            due_.delisted = true;
            list_open();
        }
        if (now >= *due_.creator_away + limits_.open_cancel) {
            spdlog::info("room {}: cancelled, its creator has been away too long", code_);
            cancel_now();
        }
    }
    if (auto n = watchers_.due_now(now)) tell_spectators(*n, now);
    if (due_.live_flush && now >= *due_.live_flush) {
        due_.live_flush.reset();
        env_.listings.flush_live();
    }
    if (rec_.status == Status::Suspended && fault_.retry_at && now >= *fault_.retry_at)
        try_resume();
    if (due_.remove && now >= *due_.remove) {
        due_.remove.reset();
        spdlog::debug("room {}: removed after the retention period", code_);
        env_.directory.remove(code_);
    }
}

// Arms the timer for the earliest deadline that can act; cancels it when there is none.
void Room::schedule() {
    RoomDeadlines::View v;
    v.status = rec_.status;
    v.started = rec_.started();
    v.timed = clock_.has_value();
    if (clock_) v.flag = clock_->deadline();
    for (Side s : {Side::Silver, Side::Bronze}) v.present[idx(s)] = present(s);
    v.spectators = watchers_.due();
    v.retry = fault_.retry_at;
    const auto next = due_.next(limits_, v);
    if (!next) {
        timer_.cancel();
        return;
    }
    timer_.expires_at(*next);
    timer_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
        if (ec) return;  // cancelled or re-armed
        if (auto self = w.lock()) self->ops_.run([s = self.get()] { s->tick(); });
    });
}

bool Room::present(Side s) const {
    if (!rec_.seats[idx(s)]) return false;
    if (bot_side() == s) return true;  // the server's own bot never leaves
    return watchers_.connected(rec_.seats[idx(s)]->id);
}

void Room::update_presence() {
    const auto now = SteadyClock::now();
    if (rec_.status == Status::Open && !fault_.lost) {
        if (due_.creator_presence(present(params_.creator_side), now)) list_open();
        return schedule();
    }
    if (rec_.status != Status::Playing) return;
    // A correspondence game's players come and go: nobody is away from it (no claims).
    if (correspondence()) return schedule();
    const bool here[2] = {present(Side::Silver), present(Side::Bronze)};
    for (auto& ev : due_.presence(here, now, limits_)) emit(std::move(ev));
    schedule();
}

void Room::conclude() {
    if (clock_) clock_->stop(SteadyClock::now());
    due_.start.reset();
    due_.stall.reset();
    due_.away_since[0].reset();
    due_.away_since[1].reset();
}

void Room::end(proto::EventBody ending) {
    apply(ending);  // the rules' end; no offer or judgement stands past it
    conclude();
    emit(std::move(ending));
    finish();
}

void Room::end_timeout(Side loser) {
    clock_->flag(loser);
    end(proto::TimeoutEv{loser});
}

void Room::finish() {
    rec_.finished_ms = epoch_ms(SteadyClock::now(), SteadyClock::now());
    record(proto::GameOverEv{rec_.result()});
    // A rated game counts once it has begun (a turn was played): in the same write as its end.
    if (params_.rated && rec_.status == Status::Over)
        if (auto g = ratings_.game(rec_.result(), rec_.started(), rec_.seats, rec_.finished_ms))
            ops_.rate(std::move(*g));
    // An account with no connection to the game when it ends (its page closed, or away) finds
    // the result in its notifications (PROTOCOL.md "Notifications": game_over); not for an
    // aborted one.
    if (env_.notify && rec_.status == Status::Over)
        for (Side s : {Side::Silver, Side::Bronze}) {
            const auto& seat = rec_.seats[idx(s)];
            if (!seat || !seat->account || present(s)) continue;
            env_.notify(seat->id, "game_over",
                        notices::game_over(code_, rec_.result(), rec_.seats[idx(~s)]));
        }
    later([this] {
        for (auto& s : rec_.seats)
            if (s) env_.players.unseat(s->id, code_);
    });
    chat_.forget_senders();
    forget_history();
    due_.remove = SteadyClock::now() + limits_.retention;
    schedule();
}

// A finished game stays in memory for its retention (late watchers, rematches) as little more
// than its final state: the serialized events of the game go, since a watcher who missed any of
// them gets the snapshot, which holds the whole record. Only the last few, and the few events a
// finished game still has (rematch offers, chat), are kept for watchers a moment behind. Once
// its end is stored, even those and the state go: a summary (room_summary.cpp).
void Room::forget_history() {
    history_.finished();
    rec_.turns.shrink_to_fit();  // no more turns: the vector's doubling slack (up to half) goes
}

}  // namespace tf::server
