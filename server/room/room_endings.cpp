// Requests that end a game by the players' will: resignation, draw offers, claiming the win
// from an opponent who left (room_timers.cpp has the endings driven by time).
#include <spdlog/spdlog.h>

#include "server/room/directory.h"
#include "server/room/room.h"

namespace tf::server {

using proto::Err;

void Room::resign(Player p, Who who, std::optional<std::string> ref) {
    on_strand([this, p = std::move(p), who = std::move(who), ref = std::move(ref)] {
        auto side = check_seated(p, who, ref);
        if (!side) return;
        if (ref) ack(who, ref);
        end(proto::ResignEv{*side});
    });
}

// The offers' rules are the record's (GameRecord::draw).
void Room::draw(Player p, Who who, DrawAct act, std::optional<std::string> ref) {
    on_strand([this, p = std::move(p), who = std::move(who), act, ref = std::move(ref)] {
        auto side = check_seated(p, who, ref);
        if (!side) return;
        auto d = rec_.draw(*side, act);
        if (refused(who, d, ref)) return;
        if (ref) ack(who, ref);
        if (std::holds_alternative<proto::DrawAcceptEv>(*d.event)) return end(std::move(*d.event));
        record(std::move(*d.event));
    });
}

// After the opponent's grace period (see room_timers.cpp); not before the first turn, when
// the no-start limit aborts the game instead.
void Room::claim_win(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = check_seated(p, who);
        if (!side) return;
        if (rec_.stalling == ~*side) return end(proto::StallClaimEv{*side, false});
        if (correspondence())
            return fail(who, Err::NotClaimable,
                        "a correspondence game is won on time, not by the opponent's absence");
        const auto& away = due_.away_since[idx(~*side)];
        if (!away) return fail(who, Err::NotClaimable, "your opponent is connected");
        if (!rec_.started())
            return fail(who, Err::NotClaimable,
                        "no turn has been played; the game will be aborted instead");
        if (SteadyClock::now() < *away + limits_.grace)
            return fail(who, Err::NotClaimable, "your opponent's grace period has not passed");
        end(proto::AbandonEv{~*side, true});
    });
}

// As lichess's "abort": before the game has begun (silver's first turn) either player may
// leave it without a result, typically when the opponent never shows up or left at once.
void Room::abort(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = check_seated(p, who);
        if (!side) return;
        if (rec_.started())
            return fail(who, Err::NotAbortable,
                        "a turn has been played: resign, offer a draw or claim the win instead");
        end(proto::AbortEv{proto::AbortReason::Player, *side});
    });
}

}  // namespace tf::server

namespace tf::server {

using proto::Err;

// After the game, like a draw offer (GameRecord::rematch); the computer accepts at once. The
// rematch is a new game of the same settings with the colours swapped, made by the directory;
// both players get `matched` and its snapshot, as in a quick match, and everyone watching this
// one the `rematch` event with its code.
void Room::rematch(Player p, Who who, bool decline) {
    on_strand([this, p = std::move(p), who = std::move(who), decline] {
        auto side = rec_.seat_of(p.id);
        if (!side) return fail(who, Err::NotSeated, "only the players can ask for a rematch");
        if (refuse_unsaved(who)) return;
        auto d = rec_.rematch(*side, decline, bot_side() == ~*side);
        if (refused(who, d)) return;
        if (!d.event) return start_rematch();
        record(std::move(*d.event));
    });
}

void Room::start_rematch() {
    rec_.offers.rematch_starting = true;
    rec_.offers.rematch.reset();
    // Colours swapped. Two players: the one who had the other seat creates the next game on
    // the creator's side, and the creator joins it. Against the computer the human creates it
    // again, on the other side.
    RoomParams next = params_;
    next.quick_match = true;  // both seats are taken at once: never in the open list
    // A rematch is a game of the players', not the arena's: no berserk in it.
    if (next.time_control) next.time_control->berserk = false;
    const Side cs = params_.creator_side;
    Player creator = *rec_.seats[idx(params_.bot_level ? cs : ~cs)];
    if (params_.bot_level) {
        next.creator_side = ~cs;
        // A house bot plays the rematch as itself (a restored room's params do not say so).
        if (rec_.seats[idx(~cs)]->bot) next.bot_account = *rec_.seats[idx(~cs)];
    }
    std::optional<Player> joiner;
    if (!params_.bot_level) joiner = *rec_.seats[idx(cs)];
    env_.directory.create(next, creator, ex_,
                          [self = shared_from_this(), creator, side = next.creator_side,
                           joiner](std::shared_ptr<Room> r) {
                              self->ops_.run([self, r, creator, side, joiner] {
                                  self->rematch_made(r, creator, side, joiner);
                              });
                          });
}

void Room::rematch_made(const std::shared_ptr<Room>& next, const Player& creator, Side creator_side,
                        const std::optional<Player>& joiner) {
    rec_.offers.rematch_starting = false;
    if (!next) {
        spdlog::warn("room {}: the rematch could not be made (no free game code)", code_);
        return;
    }
    record(proto::RematchEv{next->code()});
    // Each player's live connection to this game, if any, takes its seat in the next one.
    auto conn = [&](const Player& pl) {
        Who w;
        for (auto& [p, sub] : watchers_.subs())
            if (sub.player_id == pl.id && !sub.who.expired()) w = sub.who;
        if (auto m = std::dynamic_pointer_cast<Member>(w.lock())) m->adopt(next);
        return w;
    };
    const std::string link = "/g/" + next->code();
    auto matched = [&](Side s) {
        return std::make_shared<const std::string>(
            proto::to_text(proto::Matched{next->code(), link, s}));
    };
    Who creator_conn = conn(creator);
    next->open(creator_conn, matched(creator_side));
    next->watch(creator, creator_conn, std::nullopt);
    if (joiner) next->join(*joiner, conn(*joiner), matched(~creator_side));
}

void Room::note_rating(Side s) {
    if (params_.rated) ratings_.note(s, rec_.seats[idx(s)], env_.ratings);
}

// A game restored at start: the book is empty, the store knows the ratings.
void Room::read_seat_ratings() {
    for (Side s : {Side::Silver, Side::Bronze})
        if (rec_.seats[idx(s)]) read_seat_rating(s);
}

// A seat whose player's ratings this node may not have seen (a house bot never logs in).
void Room::read_seat_rating(Side s) {
    store_.read_ratings(rec_.seats[idx(s)]->id, ex_,
                        [self = shared_from_this(), s](Read<std::vector<StoredRating>> r) {
                            if (!r.ok() || !self->rec_.seats[idx(s)]) return;
                            self->env_.ratings.set(self->rec_.seats[idx(s)]->id, *r.value);
                            if (!self->ratings_.changes) self->note_rating(s);
                        });
}

// The store applied a rated game's result with its end: everyone watching hears the changes
// (an unversioned event; the snapshot of the finished game carries them too).
void Room::rated(const RateGame::Outcome& outcome) {
    if (!ratings_.category) return;
    const auto& ev = ratings_.applied(outcome, rec_.seats, env_.ratings,
                                      epoch_ms(SteadyClock::now(), SteadyClock::now()));
    auto msg = std::make_shared<const std::string>(
        proto::to_text(proto::Event{code_, rec_.version, ev, clocks(SteadyClock::now())}));
    std::vector<Out> out;
    for (auto& [p, sub] : watchers_.subs())
        if (!sub.who.expired()) out.push_back({sub.who, msg, watchers_.spectator(sub)});
    ops_.deliver(std::move(out));
    spdlog::info(
        "room {}: rated ({}): {} {:.0f} -> {:.0f}, {} {:.0f} -> {:.0f}", code_, *ratings_.category,
        rec_.seats[0] ? rec_.seats[0]->id : "-", outcome.before[0].rating, outcome.after[0].rating,
        rec_.seats[1] ? rec_.seats[1]->id : "-", outcome.before[1].rating, outcome.after[1].rating);
}

}  // namespace tf::server
