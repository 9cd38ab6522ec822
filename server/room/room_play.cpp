// What the players do at the table, once the Room found the request's seat (Room::check_seated):
// take the open seat, set up, play a turn (the clock pressed), chat; end the game by their will
// (resignation, draw offers, claiming the win from an opponent who left or stalls, abort: the
// endings driven by time are RoomTime's).
//
// Takebacks and more time (PROTOCOL.md "Takebacks and more time"), as on lichess: a player asks
// to take back their last turn; the opponent accepts or declines. The request stands until it
// is answered, a turn is played or the game ends; one request per own turn. Accepted, the
// requester's last turn and any turn after it are gone and the requester is to move again; the
// clocks keep the times they had. The computer accepts at once. A player may give the opponent
// 15 s. Each seat says, per game, whether it accepts takebacks (by default in unrated games
// only: a rated game has them only when both players allow them) and time given to it.
#include "server/room/room_play.h"

#include "server/base/metrics.h"

namespace tf::server {

using proto::Err;

void RoomPlay::seat(const Player& p, const Who& who, const Msg& joined) {
    const Side s = ~c_.params.creator_side;
    c_.rec.seats[idx(s)] = p;
    c_.note_rating(s);
    c_.watchers.recount();  // p may have been watching the open game
    c_.rec.status = Status::Playing;
    c_.left_open();
    c_.due.start = SteadyClock::now() + c_.limits.start_timeout;
    c_.later([this, id = p.id] {
        c_.env.players.seat(id, c_.code, c_.correspondence());
        c_.list_open();  // off the lobby
    });
    if (joined) c_.ops.send({who, joined});
    c_.emit(proto::JoinEv{s, RoomView::ref(p)});
    t_.check_vacations();  // either player may be on vacation already
    if (!c_.params.invitee_id.empty())
        c_.later([this] { c_.notify_challenger("challenge_accepted", nlohmann::json::object()); });
    c_.watchers.add(p, who);
    c_.reply(who, c_.snapshot_text(false));
    t_.update_presence();  // the creator may have left while the game was open
    t_.notify_turn();
    c_.count_spectators();  // one fewer if p was watching the open game
    if (c_.env.started && c_.params.is_public)
        c_.later([this] {
            for (const auto& seat : c_.rec.seats)
                if (seat) c_.env.started(*seat, c_.code);
        });
}

void RoomPlay::setup(Side side, const Who& who, const proto::SetupMsg& m) {
    Decision d = c_.rec.setup(side, m.setup, m.version);
    if (c_.refused(who, d, m.ref)) return;
    ++metrics().setups_accepted;
    c_.ack(who, m.ref);
    c_.emit(std::move(*d.event));
    t_.notify_turn();
}

// Silver's first turn ends the no-start period and starts bronze's time; every later turn
// presses the clock (the mover's time is deducted and the increment added).
void RoomPlay::turn(Side side, const Who& who, const proto::TurnMsg& m, TimePoint received) {
    const bool first = !c_.rec.started();
    Decision d = c_.rec.turn(side, m.turn, m.version);
    if (c_.refused(who, d, m.ref)) return;
    auto now = SteadyClock::now();
    if (c_.clock) {
        if (first) {
            c_.clock->start(~side, now);
        } else if (!c_.clock->running()) {
            c_.clock->pass();  // the mover is on vacation: its time stood
        } else {
            // The turn's network transit is the server's, within the mover's quota (lag.h).
            auto lag = std::chrono::milliseconds(m.lag_ms.value_or(0));
            auto credit = c_.lag->credit(side, lag, c_.clock->elapsed(now));
            c_.clock->press(now, credit);
        }
        t_.vacation_clock(now);  // the next mover may be on vacation
    }
    ++metrics().turns_accepted;
    c_.later([received] {  // runs once the turn is committed, just before its ack goes out
        metrics().turn_latency.observe(
            std::chrono::duration<double, std::milli>(SteadyClock::now() - received).count());
    });
    c_.due.start.reset();
    c_.ack(who, m.ref);
    if (c_.rec.game->over()) t_.conclude();
    c_.emit(std::move(*d.event));
    if (c_.rec.game->over()) return t_.finish();
    t_.arm_stall();
    t_.notify_turn();
    c_.schedule();
}

// Players and watchers; at most --chat-lines lines per player per --chat-window-seconds.
void RoomPlay::chat(const Player& p, const Who& who, const std::string& text, bool hidden,
                    const std::optional<std::string>& ref) {
    auto sp = who.lock();
    if (!c_.rec.seat_of(p.id) && (!sp || !c_.watchers.watching(sp.get())))
        return c_.fail(who, Err::NotSeated, "watch the game before chatting in it", ref);
    if (c_.refuse_unsaved(who, ref)) return;
    auto now = SteadyClock::now();
    if (!c_.chat.allow(p.id, now))
        return c_.fail(who, Err::ChatRate, "too many chat lines; wait a few seconds", ref);
    if (c_.rec.seat_of(p.id)) {
        if (ref) c_.ack(who, ref);
        return c_.emit(proto::ChatEv{RoomView::ref(p), text, proto::ChatRoom::Players, hidden});
    }
    // A spectator talks to the spectators: not versioned, not stored, kept for snapshots.
    proto::ChatEv line{RoomView::ref(p), text, proto::ChatRoom::Spectators, hidden};
    c_.chat.remember(line);
    auto msg = std::make_shared<const std::string>(
        proto::to_text(proto::Event{c_.code, c_.rec.version, line, c_.clocks(now)}));
    if (ref) c_.reply(who, proto::to_text(proto::Ack{ref, c_.rec.version}));
    c_.watchers.each_live([&](const Watchers::Sub& sub) {
        if (c_.watchers.spectator(sub)) c_.ops.send({sub.who, msg, true});
    });
}

void RoomPlay::resign(Side side, const Who& who, const std::optional<std::string>& ref) {
    if (ref) c_.ack(who, ref);
    t_.end(proto::ResignEv{side});
}

// The offers' rules are the record's (GameRecord::draw).
void RoomPlay::draw(Side side, const Who& who, OfferAct act,
                    const std::optional<std::string>& ref) {
    auto d = c_.rec.draw(side, act);
    if (c_.refused(who, d, ref)) return;
    if (ref) c_.ack(who, ref);
    if (std::holds_alternative<proto::DrawAcceptEv>(*d.event)) return t_.end(std::move(*d.event));
    c_.record(std::move(*d.event));
}

// After the opponent's grace period (RoomTime); not before the first turn, when the no-start
// limit aborts the game instead. From an opponent who is stalling, at any time.
void RoomPlay::claim_win(Side side, const Who& who) {
    if (c_.rec.stalling == ~side) return t_.end(proto::StallClaimEv{side, false});
    if (c_.correspondence())
        return c_.fail(who, Err::NotClaimable,
                       "a correspondence game is won on time, not by the opponent's absence");
    const auto& away = c_.due.away_since[idx(~side)];
    if (!away) return c_.fail(who, Err::NotClaimable, "your opponent is connected");
    if (!c_.rec.started())
        return c_.fail(who, Err::NotClaimable,
                       "no turn has been played; the game will be aborted instead");
    if (SteadyClock::now() < *away + c_.limits.grace)
        return c_.fail(who, Err::NotClaimable, "your opponent's grace period has not passed");
    t_.end(proto::AbandonEv{~side, true});
}

void RoomPlay::claim_draw(Side side, const Who& who) {
    if (c_.rec.stalling != ~side)
        return c_.fail(who, Err::NotClaimable,
                       "a draw can be claimed only from an opponent who is stalling");
    t_.end(proto::StallClaimEv{side, true});
}

// As lichess's "abort": before the game has begun (silver's first turn) either player may
// leave it without a result, typically when the opponent never shows up or left at once.
void RoomPlay::abort(Side side, const Who& who) {
    if (c_.rec.started())
        return c_.fail(who, Err::NotAbortable,
                       "a turn has been played: resign, offer a draw or claim the win instead");
    t_.end(proto::AbortEv{proto::AbortReason::Player, side});
}

void RoomPlay::takeback(Side side, const Who& who, OfferAct act) {
    auto d = c_.rec.takeback(side, act, c_.bot_side() == ~side);
    if (c_.refused(who, d)) return;
    if (auto* ev = std::get_if<proto::TakebackEv>(&*d.event)) return take_back(*ev);
    c_.record(std::move(*d.event));
}

// Accepted: the record drops the turns; the requester's time runs again, nobody's time is given
// back.
void RoomPlay::take_back(const proto::TakebackEv& ev) {
    c_.apply(ev);
    if (c_.clock) {
        const auto now = SteadyClock::now();
        const auto r = c_.clock->reading(now);
        c_.clock->restore(r.silver_ms, r.bronze_ms, ev.side, now);
        t_.vacation_clock(now);
    }
    c_.emit(ev);
    t_.arm_stall();
    t_.notify_turn();
    c_.schedule();
}

void RoomPlay::give_time(Side side, const Who& who) {
    if (!c_.clock) return c_.fail(who, Err::MoreTimeOff, "the game is untimed");
    auto d = c_.rec.give_time(side);
    if (c_.refused(who, d)) return;
    c_.clock->give(~side, std::chrono::milliseconds(proto::kGiveTimeMs));
    c_.record(std::move(*d.event));
    c_.schedule();
}

void RoomPlay::berserk(Side side, const Who& who) {
    auto d = c_.rec.go_berserk(side, c_.clock && c_.params.time_control->berserk);
    if (c_.refused(who, d)) return;
    c_.clock->berserk(side);
    c_.record(std::move(*d.event));
    c_.schedule();
}

void RoomPlay::preferences(Side side, const Who& who, const proto::Preferences& m) {
    auto d = c_.rec.preferences(side, m);
    if (c_.refused(who, d)) return;
    if (d.event) c_.record(std::move(*d.event));
}

}  // namespace tf::server
