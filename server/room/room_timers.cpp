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

namespace tf::server {

using proto::Err;

void Room::tick() {
    check_deadlines(SteadyClock::now());
    schedule();
}

void Room::check_deadlines(TimePoint now) {
    if (status_ == Status::Playing && clock_ && clock_->expired(now))
        end_timeout(*clock_->running());
    if (status_ == Status::Playing && start_deadline_ && now >= *start_deadline_)
        end_abort(proto::AbortReason::NoStart);
    if (status_ == Status::Playing && stall_at_ && now >= *stall_at_) judge_stall();
    for (Side s : {Side::Silver, Side::Bronze}) {
        if (status_ != Status::Playing || !started() || !away_since_[idx(s)]) continue;
        if (now < *away_since_[idx(s)] + grace_ + award_) continue;
        if (present(~s))
            end_abandon(s, false);
        else if (!clock_)
            end_abort(proto::AbortReason::Abandoned);
    }
    if (status_ == Status::Open && creator_away_) {
        if (!delisted_ && now >= *creator_away_ + open_away_) {
            spdlog::info("room {}: its creator left; off the lobby", code_);
            delisted_ = true;
            list_open();
        }
        if (now >= *creator_away_ + open_cancel_) {
            spdlog::info("room {}: cancelled, its creator has been away too long", code_);
            cancel_now();
        }
    }
    if (auto n = watchers_.due_now(now)) tell_spectators(*n, now);
    if (live_flush_at_ && now >= *live_flush_at_) {
        live_flush_at_.reset();
        env_.listings.flush_live();
    }
    if (status_ == Status::Suspended && recover_at_ && now >= *recover_at_) try_resume();
    if (remove_at_ && now >= *remove_at_) {
        remove_at_.reset();
        spdlog::debug("room {}: removed after the retention period", code_);
        env_.directory.remove(code_);
    }
}

// Arms the timer for the earliest deadline that can act; cancels it when there is none.
void Room::schedule() {
    std::optional<TimePoint> next;
    auto consider = [&](std::optional<TimePoint> t) {
        if (t && (!next || *t < *next)) next = t;
    };
    if (status_ == Status::Playing) {
        if (clock_) consider(clock_->deadline());
        consider(start_deadline_);
        consider(stall_at_);
        for (Side s : {Side::Silver, Side::Bronze})
            if (started() && away_since_[idx(s)] && (present(~s) || !clock_))
                consider(*away_since_[idx(s)] + grace_ + award_);
    }
    if (status_ == Status::Open && creator_away_) {
        if (!delisted_) consider(*creator_away_ + open_away_);
        consider(*creator_away_ + open_cancel_);
    }
    consider(remove_at_);
    consider(watchers_.due());
    consider(live_flush_at_);
    if (status_ == Status::Suspended) consider(recover_at_);
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
    if (!seats_[idx(s)]) return false;
    if (bot_side() == s) return true;  // the server's own bot never leaves
    return watchers_.connected(seats_[idx(s)]->id);
}

void Room::update_presence() {
    auto now = SteadyClock::now();
    if (status_ == Status::Open && !lost_) {
        const bool here = present(params_.creator_side);
        if (!here && !creator_away_) {
            creator_away_ = now;
        } else if (here && creator_away_) {
            creator_away_.reset();
            if (std::exchange(delisted_, false)) list_open();
        }
        return schedule();
    }
    if (status_ != Status::Playing) return;
    for (Side s : {Side::Silver, Side::Bronze}) {
        auto& away = away_since_[idx(s)];
        bool here = present(s);
        if (!here && !away) {
            away = now;
            emit(proto::PlayerLeftEv{s, epoch_ms(now + grace_, now),
                                     epoch_ms(now + grace_ + award_, now)});
        } else if (here && away) {
            away.reset();
            emit(proto::PlayerBackEv{s});
        }
    }
    schedule();
}

void Room::conclude() {
    if (clock_) clock_->stop(SteadyClock::now());
    start_deadline_.reset();
    draw_offer_.reset();
    takeback_offer_.reset();
    stall_at_.reset();
    stalling_.reset();
    away_since_[0].reset();
    away_since_[1].reset();
}

void Room::end_timeout(Side loser) {
    conclude();
    clock_->flag(loser);
    game_->resign(loser, EndReason::Time);
    emit(proto::TimeoutEv{loser});
    finish();
}

void Room::end_abandon(Side loser, bool claimed) {
    conclude();
    game_->resign(loser, EndReason::Abandon);
    emit(proto::AbandonEv{loser, claimed});
    finish();
}

void Room::end_abort(proto::AbortReason why, std::optional<Side> who_left) {
    conclude();
    status_ = Status::Aborted;
    emit(proto::AbortEv{why, who_left});
    finish();
}

void Room::finish() {
    if (status_ != Status::Aborted) status_ = Status::Over;
    finished_ms_ = epoch_ms(SteadyClock::now(), SteadyClock::now());
    emit(proto::GameOverEv{result()});
    // A rated game counts once it has begun (a turn was played): in the same write as its end.
    const proto::Result r = result();
    if (params_.rated && category_ && status_ == Status::Over && started() && seats_[0] &&
        seats_[1] && r.winner != proto::Winner::None) {
        RateGame g;
        g.category = *category_;
        g.player[0] = seats_[0]->id;
        g.player[1] = seats_[1]->id;
        g.silver_score = r.winner == proto::Winner::Silver   ? 1
                         : r.winner == proto::Winner::Bronze ? 0
                                                             : 0.5;
        g.at_ms = finished_ms_;
        g.rate = rate_game;
        ops_.rate(std::move(g));
    }
    later([this] {
        for (auto& s : seats_)
            if (s) env_.players.unseat(s->id, code_);
    });
    chat_times_.clear();
    forget_history();
    remove_at_ = SteadyClock::now() + retention_;
    schedule();
}

// A finished game stays in memory for its retention (late watchers, rematches) as little more
// than its final state: the serialized events of the game go, since a watcher who missed any of
// them gets the snapshot, which holds the whole record. Only the last few, and the few events a
// finished game still has (rematch offers, chat), are kept for watchers a moment behind. Once
// its end is stored, even those and the state go: a summary (room_summary.cpp).
void Room::forget_history() {
    history_limit_ = std::min(history_limit_, kFinishedHistory);
    while (history_.size() > history_limit_) history_.pop_front();
    history_.shrink_to_fit();
    turns_.shrink_to_fit();  // no more turns: the vector's doubling slack (up to half) goes
}

}  // namespace tf::server
