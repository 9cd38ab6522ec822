// Requests that end a game by the players' will: resignation, draw offers, claiming the win
// from an opponent who left (room_timers.cpp has the endings driven by time).
#include "server/room.h"

namespace tf::server {

using proto::Err;

void Room::resign(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = check_seated(p, who);
        if (!side) return;
        conclude();
        game_.resign(*side);
        emit(proto::ResignEv{*side});
        finish();
    });
}

// Offer: stands until the opponent answers or the offerer plays a turn; one offer per own
// turn. An offer while the opponent's offer stands accepts it.
void Room::draw(Player p, Who who, DrawAct act) {
    on_strand([this, p = std::move(p), who = std::move(who), act] {
        auto side = check_seated(p, who);
        if (!side) return;
        if (act == DrawAct::Offer && draw_offer_ != ~*side) {
            if (draw_offer_ == *side || offered_[idx(*side)])
                return fail(who, Err::DrawPending, "you offered a draw since your last turn");
            draw_offer_ = *side;
            offered_[idx(*side)] = true;
            return emit(proto::DrawOfferEv{*side});
        }
        if (draw_offer_ != ~*side)
            return fail(who, Err::NoDrawOffer, "your opponent has not offered a draw");
        if (act == DrawAct::Decline) {
            draw_offer_.reset();
            return emit(proto::DrawDeclineEv{*side});
        }
        conclude();
        game_.agree_draw();
        emit(proto::DrawAcceptEv{*side});
        finish();
    });
}

// After the opponent's grace period (see room_timers.cpp); not before the first turn, when
// the no-start limit aborts the game instead.
void Room::claim_win(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = check_seated(p, who);
        if (!side) return;
        const auto& away = away_since_[idx(~*side)];
        if (!away) return fail(who, Err::NotClaimable, "your opponent is connected");
        if (!started())
            return fail(who, Err::NotClaimable,
                        "no turn has been played; the game will be aborted instead");
        if (SteadyClock::now() < *away + grace_)
            return fail(who, Err::NotClaimable, "your opponent's grace period has not passed");
        end_abandon(~*side, true);
    });
}

}  // namespace tf::server
