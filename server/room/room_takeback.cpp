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

void Room::take_back(Side side) {
    const proto::TakebackEv ev{side, rec_.takeback_turns(side)};
    apply(ev);
    if (clock_) {  // the requester's time runs again; nobody's time is given back
        const auto now = SteadyClock::now();
        const auto r = clock_->reading(now);
        clock_->restore(r.silver_ms, r.bronze_ms, side, now);
    }
    emit(ev);
    arm_stall();
    schedule();
}

void Room::takeback(Player p, Who who, DrawAct act) {
    on_strand([this, p = std::move(p), who = std::move(who), act] {
        auto side = check_seated(p, who);
        if (!side) return;
        if (act == DrawAct::Offer && rec_.offers.takeback != ~*side) {
            if (!rec_.prefs[idx(*side)].takeback)
                return fail(who, Err::TakebackOff, "you do not accept takebacks in this game");
            if (!rec_.prefs[idx(~*side)].takeback)
                return fail(who, Err::TakebackOff,
                            "your opponent does not accept takebacks in this game");
            if (rec_.offers.takeback == *side || rec_.offers.takeback_asked[idx(*side)])
                return fail(who, Err::TakebackPending,
                            "you asked for a takeback since your last turn");
            if (rec_.takeback_turns(*side) == 0)
                return fail(who, Err::NothingToTakeBack,
                            "you have no turn to take back (the game's first turn stays)");
            if (bot_side() == ~*side) return take_back(*side);
            return record(proto::TakebackOfferEv{*side});
        }
        if (rec_.offers.takeback != ~*side)
            return fail(who, Err::NoTakebackOffer, "your opponent has not asked for a takeback");
        if (act == DrawAct::Decline) return record(proto::TakebackDeclineEv{*side});
        take_back(~*side);
    });
}

void Room::give_time(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = check_seated(p, who);
        if (!side) return;
        if (!clock_) return fail(who, Err::MoreTimeOff, "the game is untimed");
        if (!rec_.prefs[idx(~*side)].more_time)
            return fail(who, Err::MoreTimeOff, "your opponent does not accept more time");
        clock_->give(~*side, std::chrono::milliseconds(proto::kGiveTimeMs));
        emit(proto::TimeGivenEv{*side, proto::kGiveTimeMs});
        schedule();
    });
}

void Room::preferences(Player p, Who who, proto::Preferences m) {
    on_strand([this, p = std::move(p), who = std::move(who), m = std::move(m)] {
        auto side = rec_.seat_of(p.id);
        if (!side) return fail(who, Err::NotSeated, "you hold no seat in this game");
        if (refuse_unsaved(who)) return;
        if (rec_.status != Status::Open && rec_.status != Status::Playing)
            return fail(who, Err::GameOver, "the game is over");
        proto::SeatPrefs next = rec_.prefs[idx(*side)];
        if (m.takeback) next.takeback = *m.takeback;
        if (m.more_time) next.more_time = *m.more_time;
        if (next == rec_.prefs[idx(*side)]) return;  // nothing changes: nothing to say
        record(proto::PreferencesEv{*side, next});
    });
}

}  // namespace tf::server
