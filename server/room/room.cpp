#include "server/room/room.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include "server/base/metrics.h"
#include "server/room/directory.h"
#include "server/room/room_notices.h"

namespace tf::server {

using proto::Err;

Room::Room(Executor ex, std::string code, RoomParams params, Player creator, RoomServices& env)
    : c_(std::move(ex), std::move(code), std::move(params), std::move(creator), env, *this),
      time_(c_),
      recovery_(c_, time_),
      play_(c_, time_),
      bot_(c_.ex, c_.params.bot_level) {
    c_.schedule = [this] { schedule(); };
}

Room::~Room() = default;

void Room::claimed(std::int64_t epoch) {
    c_.ops.fence(c_.env.node, epoch);
}

void Room::lost(std::string why) {
    boost::asio::post(c_.ex, [self = shared_from_this(), why = std::move(why)] {
        if (!self->c_.fault.lost) self->fenced(why);
    });
}

void Room::open(Who who, Msg created) {
    on_strand([this, who = std::move(who), created = std::move(created)] {
        if (auto s = c_.bot_side()) {  // the computer sits down at once: the game starts
            c_.rec.seats[idx(*s)] = c_.params.bot_account.value_or(
                Player{"bot" + std::to_string(*c_.params.bot_level),
                       "Computer (level " + std::to_string(*c_.params.bot_level) + ")"});
            if (c_.params.bot_account) read_seat_rating(*s);
            c_.watchers.recount();
            c_.rec.status = Status::Playing;
            c_.due.start = SteadyClock::now() + c_.limits.start_timeout;
        } else if (c_.params.opponent) {  // a pairing: both seats in the game's first write
            c_.rec.seats[idx(~c_.params.creator_side)] = *c_.params.opponent;
            if (c_.params.rated) read_seat_ratings();  // this node may not have seen them log in
            c_.watchers.recount();
            c_.rec.status = Status::Playing;
            c_.due.start = SteadyClock::now() + c_.limits.start_timeout;
        }
        c_.ops.create(c_.stored_row());
        if (created) c_.ops.send({who, created});
        if (auto s = c_.bot_side()) {
            c_.emit(proto::JoinEv{*s, RoomView::ref(*c_.rec.seats[idx(*s)])});
        } else if (c_.params.opponent) {
            c_.emit(proto::JoinEv{~c_.params.creator_side, RoomView::ref(*c_.params.opponent)});
            time_.update_presence();  // neither player is here yet: their grace runs from now
        }
        if (c_.rec.status != Status::Open) c_.left_open();  // the computer's or a pairing's game
        c_.later([this] {
            c_.env.players.seat(c_.rec.seats[idx(c_.params.creator_side)]->id, c_.code,
                                c_.correspondence());
            if (c_.params.opponent)
                c_.env.players.seat(c_.params.opponent->id, c_.code, c_.correspondence());
            if (c_.rec.status == Status::Open) c_.list_open();
            // The challenged player is told, once the game is stored (PROTOCOL.md "Challenges").
            if (!c_.params.invitee_id.empty() && c_.env.notify)
                c_.env.notify(c_.params.invitee_id, "challenge",
                              notices::challenge(c_.code, c_.params,
                                                 *c_.rec.seats[idx(c_.params.creator_side)]));
            // Told once both seats are stored (as a join's game: join_now).
            if (c_.params.opponent && c_.env.started && c_.params.is_public)
                for (const auto& seat : c_.rec.seats) c_.env.started(*seat, c_.code);
        });
    });
}

// A setup or turn sent again (its ack was lost: a reconnection resends it, PROTOCOL.md
// "Reconnecting") that the game has applied since `version`: acknowledged with the version
// that applied it, and nothing else happens.
bool Room::repeated(const Player& p, const Who& who, std::optional<std::int64_t> version,
                    const std::optional<std::string>& ref,
                    const std::function<bool(const proto::EventBody&)>& same) {
    auto seat = c_.rec.seat_of(p.id);
    if (!seat || !version || *version >= c_.rec.state_version) return false;
    auto v = c_.history.applied_after(*seat, *version, same);
    if (v) c_.reply(who, proto::to_text(proto::Ack{ref, *v}));
    return v.has_value();
}

void Room::join(Player p, Who who, Msg joined) {
    on_strand([this, p = std::move(p), who = std::move(who), joined = std::move(joined)] {
        if (c_.fault.lost || c_.rec.seat_of(p.id) || c_.rec.status != Status::Open || !p.account ||
            !c_.env.blocked)
            return join_now(p, who, joined);
        // Accounts that blocked one another never play (PROTOCOL.md "Follow and block").
        const std::string creator = c_.rec.seats[idx(c_.params.creator_side)]->id;
        c_.env.blocked(creator, p.id, c_.ex, [w = weak_from_this(), p, who, joined](bool blocked) {
            auto self = w.lock();
            if (!self) return;
            self->on_strand([s = self.get(), p, who, joined, blocked] {
                if (blocked) return s->c_.fail(who, Err::Blocked, "you cannot join this game");
                s->join_now(p, who, joined);
            });
        });
    });
}

void Room::join_now(const Player& p, const Who& who, const Msg& joined) {
    if (c_.fault.lost) return (void)c_.refuse_unsaved(who);
    if (c_.rec.seat_of(p.id)) return watch(p, who, std::nullopt);
    if (c_.refuse_unsaved(who)) return;
    if (c_.rec.status != Status::Open) return c_.fail(who, Err::GameFull, "the game is not open");
    if (c_.params.rated && !p.account)
        return c_.fail(who, Err::AccountRequired, "a rated game is for accounts: log in first");
    if (!c_.params.invitee_id.empty() && p.id != c_.params.invitee_id)
        return c_.fail(who, Err::NotInvited,
                       "this game is a challenge to " + c_.params.invitee_name);
    if (p.bot && c_.params.is_public && c_.params.invitee_id.empty())
        return c_.fail(who, Err::BotAccount,
                       "a bot account plays the challenges and private games it is asked to, "
                       "not the lobby's open games");
    play_.seat(p, who, joined);
}

// A spectator, or a player coming back: missed events from the history when it reaches back
// far enough, a snapshot otherwise.
void Room::watch(Player p, Who who, std::optional<std::int64_t> since) {
    on_strand([this, p = std::move(p), who = std::move(who), since] { watch_now(p, who, since); });
}

void Room::watch_now(const Player& p, const Who& who, std::optional<std::int64_t> since) {
    static constexpr const char* kUnreadable =
        "the game cannot be read from the store right now; try again shortly";
    if (c_.fault.lost) return (void)c_.refuse_unsaved(who);
    if (!c_.fault.loaded)  // suspended, and the saved game could not be read back yet
        return c_.fail(who, Err::StoreFailed, kUnreadable);
    // A finished game kept as a summary (RoomRecovery::compact) answers a watcher at its final
    // version at once; anyone else gets the snapshot or events once the state is read back.
    if (c_.rec.summary.active && since != c_.rec.version)
        return expand([this, p, who, since] { watch_now(p, who, since); },
                      [this, who] { c_.fail(who, Err::StoreFailed, kUnreadable); });
    c_.watchers.add(p, who);
    bool can_replay = since && *since <= c_.rec.version &&
                      (*since == c_.rec.version || c_.history.reaches(*since));
    if (!can_replay) {
        c_.reply(who, c_.snapshot_text(!c_.rec.seat_of(p.id)));
    } else {
        for (auto& [v, msg] : c_.history.events())
            if (v > *since) c_.ops.send({who, msg});
        // The rating changes are not versioned: a finished rated game repeats them to
        // whoever catches up on it.
        if (c_.ratings.changes)
            c_.ops.send({who, std::make_shared<const std::string>(proto::to_text(
                                  proto::Event{c_.code, c_.rec.version, *c_.ratings.changes,
                                               c_.clocks(SteadyClock::now())}))});
    }
    time_.update_presence();  // after the catch-up, so player_back follows it
    c_.update_live("watch");
    c_.count_spectators();
}

void Room::leave(const Participant* who) {
    on_strand([this, who] {
        c_.watchers.remove(who);
        time_.update_presence();
        c_.update_live("leave");
        c_.count_spectators();
    });
}

void Room::cancel(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (c_.rec.seat_of(p.id) != c_.params.creator_side)
            return c_.fail(who, Err::NotCreator, "only the creator may cancel");
        if (c_.refuse_unsaved(who)) return;
        if (c_.rec.status != Status::Open)
            return c_.fail(who, Err::AlreadyStarted, "the game has already started");
        time_.cancel_now();
    });
}

// The challenged player declines the challenge: the game is cancelled with the reason, the
// decliner sees the cancel event, and the challenger is told.
void Room::decline(Player p, Who who, std::string reason) {
    on_strand([this, p = std::move(p), who = std::move(who), reason = std::move(reason)] {
        if (c_.params.invitee_id.empty() || p.id != c_.params.invitee_id)
            return c_.fail(who, Err::NotInvited, "this game is no challenge to you");
        if (c_.refuse_unsaved(who)) return;
        if (c_.rec.status != Status::Open)
            return c_.fail(who, Err::GameFull, "the challenge is no longer open");
        c_.watchers.add(p, who);
        time_.cancel_now(reason);
        c_.later([this, reason] {
            c_.notify_challenger("challenge_declined", {{"reason", reason}});
        });
    });
}

std::optional<Side> Room::check_seated(const Player& p, const Who& who,
                                       const std::optional<std::string>& ref) {
    tick();  // a flag or an abort that is due takes effect before the request
    auto side = c_.rec.seat_of(p.id);
    if (!side)
        return c_.fail(who, Err::NotSeated, "you hold no seat in this game", ref), std::nullopt;
    if (c_.refuse_unsaved(who, ref)) return std::nullopt;
    if (c_.rec.status == Status::Open)
        return c_.fail(who, Err::NotStarted, "waiting for an opponent", ref), std::nullopt;
    if (c_.rec.status != Status::Playing)
        return c_.fail(who, Err::GameOver, "the game is over", ref), std::nullopt;
    return side;
}

void Room::setup(Player p, Who who, proto::SetupMsg m) {
    on_strand_now(
        [this, p = std::move(p), who = std::move(who), m = std::move(m)] { setup_now(p, who, m); });
}

void Room::setup_now(const Player& p, const Who& who, const proto::SetupMsg& m) {
    if (repeated(p, who, m.version, m.ref, [&](const proto::EventBody& b) {
            auto* e = std::get_if<proto::SetupEv>(&b);
            return e && e->setup == m.setup;
        }))
        return;
    if (auto side = check_seated(p, who, m.ref)) play_.setup(*side, who, m);
}

// A turn that arrives after the mover's time ran out is refused by check_seated's tick().
void Room::turn(Player p, Who who, proto::TurnMsg m) {
    on_strand_now(
        [this, p = std::move(p), who = std::move(who), m = std::move(m)] { turn_now(p, who, m); });
}

void Room::turn_now(const Player& p, const Who& who, const proto::TurnMsg& m) {
    const auto received = SteadyClock::now();
    if (repeated(p, who, m.version, m.ref, [&](const proto::EventBody& b) {
            auto* e = std::get_if<proto::TurnEv>(&b);
            return e && e->turn == m.turn;
        }))
        return;
    if (auto side = check_seated(p, who, m.ref)) play_.turn(*side, who, m, received);
}

void Room::chat(Player p, Who who, std::string text, bool hidden, std::optional<std::string> ref) {
    on_strand([this, p = std::move(p), who = std::move(who), text = std::move(text), hidden,
               ref = std::move(ref)] { play_.chat(p, who, text, hidden, ref); });
}

void Room::resign(Player p, Who who, std::optional<std::string> ref) {
    on_strand([this, p = std::move(p), who = std::move(who), ref = std::move(ref)] {
        if (auto side = check_seated(p, who, ref)) play_.resign(*side, who, ref);
    });
}

void Room::draw(Player p, Who who, DrawAct act, std::optional<std::string> ref) {
    on_strand([this, p = std::move(p), who = std::move(who), act, ref = std::move(ref)] {
        if (auto side = check_seated(p, who, ref)) play_.draw(*side, who, act, ref);
    });
}

void Room::claim_win(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (auto side = check_seated(p, who)) play_.claim_win(*side, who);
    });
}

void Room::claim_draw(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (auto side = check_seated(p, who)) play_.claim_draw(*side, who);
    });
}

void Room::abort(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (auto side = check_seated(p, who)) play_.abort(*side, who);
    });
}

void Room::takeback(Player p, Who who, DrawAct act) {
    on_strand([this, p = std::move(p), who = std::move(who), act] {
        if (auto side = check_seated(p, who)) play_.takeback(*side, who, act);
    });
}

void Room::give_time(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (auto side = check_seated(p, who)) play_.give_time(*side, who);
    });
}

void Room::berserk(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (auto side = check_seated(p, who)) play_.berserk(*side, who);
    });
}

// A seat's preferences, at any time of the game (not only while it is played).
void Room::preferences(Player p, Who who, proto::Preferences m) {
    on_strand([this, p = std::move(p), who = std::move(who), m = std::move(m)] {
        auto side = c_.rec.seat_of(p.id);
        if (!side) return c_.fail(who, Err::NotSeated, "you hold no seat in this game");
        if (c_.refuse_unsaved(who)) return;
        play_.preferences(*side, who, m);
    });
}

// After the game, like a draw offer (GameRecord::rematch); the computer accepts at once. The
// rematch is a new game of the same settings with the colours swapped, made by the directory;
// both players get `matched` and its snapshot, as in a quick match, and everyone watching this
// one the `rematch` event with its code.
void Room::rematch(Player p, Who who, bool decline) {
    on_strand([this, p = std::move(p), who = std::move(who), decline] {
        auto side = c_.rec.seat_of(p.id);
        if (!side) return c_.fail(who, Err::NotSeated, "only the players can ask for a rematch");
        if (c_.refuse_unsaved(who)) return;
        auto d = c_.rec.rematch(*side, decline, c_.bot_side() == ~*side);
        if (c_.refused(who, d)) return;
        if (!d.event) return start_rematch();
        c_.record(std::move(*d.event));
    });
}

void Room::start_rematch() {
    c_.rec.offers.rematch_starting = true;
    c_.rec.offers.rematch.reset();
    // Colours swapped. Two players: the one who had the other seat creates the next game on
    // the creator's side, and the creator joins it. Against the computer the human creates it
    // again, on the other side.
    RoomParams next = c_.params;
    next.quick_match = true;  // both seats are taken at once: never in the open list
    // A rematch is a game of the players', not the arena's: no berserk in it.
    if (next.time_control) next.time_control->berserk = false;
    const Side cs = c_.params.creator_side;
    Player creator = *c_.rec.seats[idx(c_.params.bot_level ? cs : ~cs)];
    if (c_.params.bot_level) {
        next.creator_side = ~cs;
        // A house bot plays the rematch as itself (a restored room's params do not say so).
        if (c_.rec.seats[idx(~cs)]->bot) next.bot_account = *c_.rec.seats[idx(~cs)];
    }
    std::optional<Player> joiner;
    if (!c_.params.bot_level) joiner = *c_.rec.seats[idx(cs)];
    c_.env.directory.create(next, creator, c_.ex,
                            [self = shared_from_this(), creator, side = next.creator_side,
                             joiner](std::shared_ptr<Room> r) {
                                self->c_.ops.run([self, r, creator, side, joiner] {
                                    self->rematch_made(r, creator, side, joiner);
                                });
                            });
}

void Room::rematch_made(const std::shared_ptr<Room>& next, const Player& creator, Side creator_side,
                        const std::optional<Player>& joiner) {
    c_.rec.offers.rematch_starting = false;
    if (!next) {
        spdlog::warn("room {}: the rematch could not be made (no free game code)", c_.code);
        return;
    }
    c_.record(proto::RematchEv{next->code()});
    // Each player's live connection to this game, if any, takes its seat in the next one.
    auto conn = [&](const Player& pl) {
        Who w;
        for (auto& [p, sub] : c_.watchers.subs())
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

// A game restored at start: the book is empty, the store knows the ratings.
void Room::read_seat_ratings() {
    for (Side s : {Side::Silver, Side::Bronze})
        if (c_.rec.seats[idx(s)]) read_seat_rating(s);
}

// A seat whose player's ratings this node may not have seen (a house bot never logs in).
void Room::read_seat_rating(Side s) {
    c_.store.read_ratings(c_.rec.seats[idx(s)]->id, c_.ex,
                          [self = shared_from_this(), s](Read<std::vector<StoredRating>> r) {
                              if (!r.ok() || !self->c_.rec.seats[idx(s)]) return;
                              self->c_.env.ratings.set(self->c_.rec.seats[idx(s)]->id, *r.value);
                              if (!self->c_.ratings.changes) self->c_.note_rating(s);
                          });
}

void Room::vacation_changed() {
    on_strand([this] { time_.check_vacations(); });
}

// Acts on every deadline that has passed, then re-arms the timer.
void Room::tick() {
    const auto due = time_.check_deadlines(SteadyClock::now());
    if (due.judge_stall && c_.rec.status == Status::Playing) judge_stall();
    if (due.retry && !recovery_.try_resume()) reload();
    schedule();
}

// Arms the timer for the earliest deadline that can act; cancels it when there is none.
void Room::schedule() {
    RoomDeadlines::View v;
    v.status = c_.rec.status;
    v.started = c_.rec.started();
    v.timed = c_.clock.has_value();
    if (c_.clock) v.flag = c_.clock->deadline();
    for (Side s : {Side::Silver, Side::Bronze}) v.present[idx(s)] = c_.present(s);
    v.spectators = c_.watchers.due();
    v.retry = c_.fault.retry_at;
    const auto next = c_.due.next(c_.limits, v);
    if (!next) {
        c_.timer.cancel();
        return;
    }
    c_.timer.expires_at(*next);
    c_.timer.async_wait([w = weak_from_this()](boost::system::error_code ec) {
        if (ec) return;  // cancelled or re-armed
        if (auto self = w.lock()) self->c_.ops.run([s = self.get()] { s->tick(); });
    });
}

void Room::fenced(const std::string& why, const std::vector<Out>* unsent) {
    const auto current = c_.env.directory.find(c_.code);
    recovery_.fenced(why, unsent, current && current.get() != this);
}

}  // namespace tf::server
