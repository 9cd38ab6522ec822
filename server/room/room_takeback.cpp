// Takebacks and more time (PROTOCOL.md "Takebacks and more time"), as on lichess: a player asks
// to take back their last turn; the opponent accepts or declines. The request stands until it
// is answered, a turn is played or the game ends; one request per own turn. Accepted, the
// requester's last turn and any turn after it are gone and the requester is to move again; the
// clocks keep the times they had. The computer accepts at once. A player may give the opponent
// 15 s. Each seat says, per game, whether it accepts takebacks (by default in unrated games
// only: a rated game has them only when both players allow them) and time given to it.
#include "server/room/room.h"

namespace tf::server {

using proto::Err;

// Accepted: the record drops the turns; the requester's time runs again, nobody's time is given
// back.
void Room::take_back(const proto::TakebackEv& ev) {
    apply(ev);
    if (clock_) {
        const auto now = SteadyClock::now();
        const auto r = clock_->reading(now);
        clock_->restore(r.silver_ms, r.bronze_ms, ev.side, now);
        vacation_clock(now);
    }
    emit(ev);
    arm_stall();
    notify_turn();
    schedule();
}

void Room::takeback(Player p, Who who, DrawAct act) {
    on_strand([this, p = std::move(p), who = std::move(who), act] {
        auto side = check_seated(p, who);
        if (!side) return;
        auto d = rec_.takeback(*side, act, bot_side() == ~*side);
        if (refused(who, d)) return;
        if (auto* ev = std::get_if<proto::TakebackEv>(&*d.event)) return take_back(*ev);
        record(std::move(*d.event));
    });
}

void Room::give_time(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = check_seated(p, who);
        if (!side) return;
        if (!clock_) return fail(who, Err::MoreTimeOff, "the game is untimed");
        auto d = rec_.give_time(*side);
        if (refused(who, d)) return;
        clock_->give(~*side, std::chrono::milliseconds(proto::kGiveTimeMs));
        record(std::move(*d.event));
        schedule();
    });
}

void Room::berserk(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = check_seated(p, who);
        if (!side) return;
        auto d = rec_.go_berserk(*side, clock_ && params_.time_control->berserk);
        if (refused(who, d)) return;
        clock_->berserk(*side);
        record(std::move(*d.event));
        schedule();
    });
}

void Room::preferences(Player p, Who who, proto::Preferences m) {
    on_strand([this, p = std::move(p), who = std::move(who), m = std::move(m)] {
        auto side = rec_.seat_of(p.id);
        if (!side) return fail(who, Err::NotSeated, "you hold no seat in this game");
        if (refuse_unsaved(who)) return;
        auto d = rec_.preferences(*side, m);
        if (refused(who, d)) return;
        if (d.event) record(std::move(*d.event));
    });
}

}  // namespace tf::server
