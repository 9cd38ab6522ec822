#include "server/room/room.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <cassert>

#include "server/base/metrics.h"
#include "server/room/directory.h"
#include "server/room/room_notices.h"
#include "server/store/record_codec.h"

namespace tf::server {

using proto::Err;

Room::Room(Executor ex, std::string code, RoomParams params, Player creator, RoomServices& env)
    : ex_(std::move(ex)),
      env_(env),
      store_(env.store),
      code_(std::move(code)),
      params_(std::move(params)),
      limits_(RoomLimits::from(env.cfg, params_.time_control)),
      chat_(limits_.chat_window, limits_.chat_lines),
      history_(limits_.history),
      rec_(params_.variant, params_.rated),
      watchers_([this](const std::string& id) { return rec_.seat_of(id).has_value(); },
                std::chrono::milliseconds(env.cfg.live_interval_ms)),
      timer_(ex_),
      ops_(ex_, env.store, code_, *this),
      bot_(ex_, params_.bot_level, params_.creator_side) {
    if (params_.rated) {
        ratings_.category = proto::rating_category(params_.variant, params_.time_control);
        if (!ratings_.category) {  // the session checks; never rate what has none
            params_.rated = false;
            rec_ = GameRecord(params_.variant, false);
        }
    }
    rec_.seats[idx(params_.creator_side)] = std::move(creator);
    note_rating(params_.creator_side);
    if (params_.time_control) {
        clock_.emplace(*params_.time_control, limits_.day);
        lag_.emplace(*params_.time_control);
    }
    rec_.created_ms = epoch_ms(SteadyClock::now(), SteadyClock::now());
    if (!env.node.empty()) ops_.fence(env.node, 1);  // a new game: its first ownership
}

Room::~Room() {
    if (rec_.summary.active) --metrics().games_compacted;
    if (params_.open_ticket) env_.players.release_open(params_.open_ticket);
}

void Room::list_open() {
    const bool listed = rec_.status == Status::Open && params_.is_public && !params_.quick_match &&
                        !due_.delisted && !fault_.lost;
    env_.listings.set_open(code_, listed ? std::optional(view().lobby_entry()) : std::nullopt);
}

void Room::left_open() {
    if (params_.open_ticket) env_.players.release_open(std::exchange(params_.open_ticket, 0));
    due_.creator_away.reset();
    params_.creator_address.clear();
}

void Room::claimed(std::int64_t epoch) {
    ops_.fence(env_.node, epoch);
}

void Room::lost(std::string why) {
    boost::asio::post(ex_, [self = shared_from_this(), why = std::move(why)] {
        if (!self->fault_.lost) self->fenced(why);
    });
}

void Room::count_spectators() {
    if (auto n = watchers_.changed(SteadyClock::now()))
        return tell_spectators(*n, SteadyClock::now());
    if (watchers_.due()) schedule();  // check_deadlines tells it when the interval ends
}

// An unversioned `spectators` event, queued after the operation's own events so that the
// version it carries is already delivered; to the seated players only: spectators read the
// count from their snapshot, and telling every spectator about every other one would be
// quadratic in a crowd.
void Room::tell_spectators(int count, TimePoint now) {
    auto msg = std::make_shared<const std::string>(proto::to_text(
        proto::Event{code_, shown_version(), proto::SpectatorsEv{count}, clocks(now)}));
    for (auto& [p, sub] : watchers_.subs())
        if (!sub.who.expired() && !watchers_.spectator(sub)) ops_.send({sub.who, msg});
}

void Room::open(Who who, Msg created) {
    on_strand([this, who = std::move(who), created = std::move(created)] {
        if (auto s = bot_side()) {  // the computer sits down at once: the game starts
            rec_.seats[idx(*s)] = params_.bot_account.value_or(
                Player{"bot" + std::to_string(*params_.bot_level),
                       "Computer (level " + std::to_string(*params_.bot_level) + ")"});
            if (params_.bot_account) read_seat_rating(*s);
            watchers_.recount();
            rec_.status = Status::Playing;
            due_.start = SteadyClock::now() + limits_.start_timeout;
        } else if (params_.opponent) {  // a pairing: both seats in the game's first write
            rec_.seats[idx(~params_.creator_side)] = *params_.opponent;
            if (params_.rated) read_seat_ratings();  // this node may not have seen them log in
            watchers_.recount();
            rec_.status = Status::Playing;
            due_.start = SteadyClock::now() + limits_.start_timeout;
        }
        ops_.create(stored_row());
        if (created) ops_.send({who, created});
        if (auto s = bot_side()) {
            emit(proto::JoinEv{*s, RoomView::ref(*rec_.seats[idx(*s)])});
        } else if (params_.opponent) {
            emit(proto::JoinEv{~params_.creator_side, RoomView::ref(*params_.opponent)});
            update_presence();  // neither player is here yet: their grace runs from now
        }
        if (rec_.status != Status::Open) left_open();  // the computer's or a pairing's game
        later([this] {
            env_.players.seat(rec_.seats[idx(params_.creator_side)]->id, code_, correspondence());
            if (params_.opponent) env_.players.seat(params_.opponent->id, code_, correspondence());
            if (rec_.status == Status::Open) list_open();
            // The challenged player is told, once the game is stored (PROTOCOL.md "Challenges").
            if (!params_.invitee_id.empty() && env_.notify)
                env_.notify(
                    params_.invitee_id, "challenge",
                    notices::challenge(code_, params_, *rec_.seats[idx(params_.creator_side)]));
            // Told once both seats are stored (as a join's game: join_now).
            if (params_.opponent && env_.started && params_.is_public)
                for (const auto& seat : rec_.seats) env_.started(*seat, code_);
        });
    });
}

// The challenger is told what became of the challenge (`kind`: challenge_accepted or
// challenge_declined).
void Room::notify_challenger(const char* kind, nlohmann::json extra) {
    if (env_.notify)
        env_.notify(rec_.seats[idx(params_.creator_side)]->id, kind,
                    notices::challenge_answer(code_, params_, std::move(extra)));
}

void Room::reply(const Who& who, std::string text) {
    // A spectator's reply goes with its share of the crowd's events: each recipient's messages
    // keep their order (committed()).
    bool crowd = false;
    if (auto p = who.lock()) {
        auto it = watchers_.subs().find(p.get());
        crowd = it != watchers_.subs().end() && watchers_.spectator(it->second);
    }
    ops_.send({who, std::make_shared<const std::string>(std::move(text)), crowd});
}

void Room::ack(const Who& who, const std::optional<std::string>& ref) {
    ops_.send(
        {who,
         std::make_shared<const std::string>(proto::to_text(proto::Ack{ref, rec_.version + 1})),
         false, ref});
}

void Room::fail(const Who& who, Err code, std::string message, std::optional<std::string> ref,
                std::optional<std::string> rule) {
    spdlog::warn("room {}: rejected ({}): {}", code_, proto::err_name(code), message);
    metrics().reject(code);
    reply(who, proto::to_text(proto::ErrorMsg{code, std::move(message), std::move(ref),
                                              shown_version(), std::move(rule), code_}));
}

void Room::apply(const proto::EventBody& body) {
    const std::string why = rec_.apply(body);
    if (why.empty()) return;
    spdlog::error("room {}: the record refused its own {}: {}", code_, proto::event_kind(body),
                  why);
    assert(!"a request checks what the record's apply() checks");
}

bool Room::refused(const Who& who, const Decision& d, const std::optional<std::string>& ref) {
    if (!d.refused) return false;
    fail(who, *d.refused, d.why, ref, d.rule);
    return true;
}

// A setup or turn sent again (its ack was lost: a reconnection resends it, PROTOCOL.md
// "Reconnecting") that the game has applied since `version`: acknowledged with the version
// that applied it, and nothing else happens.
bool Room::repeated(const Player& p, const Who& who, std::optional<std::int64_t> version,
                    const std::optional<std::string>& ref,
                    const std::function<bool(const proto::EventBody&)>& same) {
    auto seat = rec_.seat_of(p.id);
    if (!seat || !version || *version >= rec_.state_version) return false;
    auto v = history_.applied_after(*seat, *version, same);
    if (v) reply(who, proto::to_text(proto::Ack{ref, *v}));
    return v.has_value();
}

// Serializes the event once, journals it, keeps it in the bounded history and addresses it to
// every watcher; it goes out when the operation's writes are committed (room_ops.h).
void Room::emit(proto::EventBody body) {
    rec_.count(body);
    auto now = SteadyClock::now();
    if (auto* c = std::get_if<proto::ChatEv>(&body)) chat_.remember(*c);
    proto::Event ev{code_, rec_.version, std::move(body), clocks(now)};
    auto msg = std::make_shared<const std::string>(proto::to_text(ev));
    ops_.journal(journal_row(ev, *msg, epoch_ms(now, now)));
    history_.add(rec_.version, msg);
    watchers_.each_live([&](const Watchers::Sub& sub) {
        ops_.send({sub.who, msg, watchers_.spectator(sub)});
    });
    later([this, k = std::string(proto::event_kind(ev.body))] { update_live(k); });
}

void Room::join(Player p, Who who, Msg joined) {
    on_strand([this, p = std::move(p), who = std::move(who), joined = std::move(joined)] {
        if (fault_.lost || rec_.seat_of(p.id) || rec_.status != Status::Open || !p.account ||
            !env_.blocked)
            return join_now(p, who, joined);
        // Accounts that blocked one another never play (PROTOCOL.md "Follow and block").
        const std::string creator = rec_.seats[idx(params_.creator_side)]->id;
        env_.blocked(creator, p.id, ex_, [w = weak_from_this(), p, who, joined](bool blocked) {
            auto self = w.lock();
            if (!self) return;
            self->on_strand([s = self.get(), p, who, joined, blocked] {
                if (blocked) return s->fail(who, Err::Blocked, "you cannot join this game");
                s->join_now(p, who, joined);
            });
        });
    });
}

void Room::join_now(const Player& p, const Who& who, const Msg& joined) {
    {  // NOLINT: the steps of a join, in one block as before the check
        if (fault_.lost) return (void)refuse_unsaved(who);
        if (rec_.seat_of(p.id)) return watch(p, who, std::nullopt);
        if (refuse_unsaved(who)) return;
        if (rec_.status != Status::Open) return fail(who, Err::GameFull, "the game is not open");
        if (params_.rated && !p.account)
            return fail(who, Err::AccountRequired, "a rated game is for accounts: log in first");
        if (!params_.invitee_id.empty() && p.id != params_.invitee_id)
            return fail(who, Err::NotInvited,
                        "this game is a challenge to " + params_.invitee_name);
        if (p.bot && params_.is_public && params_.invitee_id.empty())
            return fail(who, Err::BotAccount,
                        "a bot account plays the challenges and private games it is asked to, "
                        "not the lobby's open games");
        Side s = ~params_.creator_side;
        rec_.seats[idx(s)] = p;
        note_rating(s);
        watchers_.recount();  // p may have been watching the open game
        rec_.status = Status::Playing;
        left_open();
        due_.start = SteadyClock::now() + limits_.start_timeout;
        later([this, id = p.id] {
            env_.players.seat(id, code_, correspondence());
            list_open();  // off the lobby
        });
        if (joined) ops_.send({who, joined});
        emit(proto::JoinEv{s, RoomView::ref(p)});
        check_vacations();  // either player may be on vacation already
        if (!params_.invitee_id.empty())
            later([this] { notify_challenger("challenge_accepted", nlohmann::json::object()); });
        watchers_.add(p, who);
        reply(who, snapshot_text(false));
        update_presence();  // the creator may have left while the game was open
        notify_turn();
        count_spectators();  // one fewer if p was watching the open game
        if (env_.started && params_.is_public)
            later([this] {
                for (const auto& seat : rec_.seats)
                    if (seat) env_.started(*seat, code_);
            });
    }
}

// A spectator, or a player coming back: missed events from the history when it reaches back
// far enough, a snapshot otherwise.
void Room::watch(Player p, Who who, std::optional<std::int64_t> since) {
    on_strand([this, p = std::move(p), who = std::move(who), since] { watch_now(p, who, since); });
}

void Room::watch_now(const Player& p, const Who& who, std::optional<std::int64_t> since) {
    static constexpr const char* kUnreadable =
        "the game cannot be read from the store right now; try again shortly";
    if (fault_.lost) return (void)refuse_unsaved(who);
    if (!fault_.loaded)  // suspended, and the saved game could not be read back yet
        return fail(who, Err::StoreFailed, kUnreadable);
    // A finished game kept as a summary (room_summary.cpp) answers a watcher at its final
    // version at once; anyone else gets the snapshot or events once the state is read back.
    if (rec_.summary.active && since != rec_.version)
        return expand([this, p, who, since] { watch_now(p, who, since); },
                      [this, who] { fail(who, Err::StoreFailed, kUnreadable); });
    watchers_.add(p, who);
    bool can_replay =
        since && *since <= rec_.version && (*since == rec_.version || history_.reaches(*since));
    if (!can_replay) {
        reply(who, snapshot_text(!rec_.seat_of(p.id)));
    } else {
        for (auto& [v, msg] : history_.events())
            if (v > *since) ops_.send({who, msg});
        // The rating changes are not versioned: a finished rated game repeats them to
        // whoever catches up on it.
        if (ratings_.changes)
            ops_.send(
                {who, std::make_shared<const std::string>(proto::to_text(proto::Event{
                          code_, rec_.version, *ratings_.changes, clocks(SteadyClock::now())}))});
    }
    update_presence();  // after the catch-up, so player_back follows it
    update_live("watch");
    count_spectators();
}

void Room::leave(const Participant* who) {
    on_strand([this, who] {
        watchers_.remove(who);
        update_presence();
        update_live("leave");
        count_spectators();
    });
}

void Room::cancel(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (rec_.seat_of(p.id) != params_.creator_side)
            return fail(who, Err::NotCreator, "only the creator may cancel");
        if (refuse_unsaved(who)) return;
        if (rec_.status != Status::Open)
            return fail(who, Err::AlreadyStarted, "the game has already started");
        cancel_now();
    });
}

// The challenged player declines the challenge: the game is cancelled with the reason, the
// decliner sees the cancel event, and the challenger is told.
void Room::decline(Player p, Who who, std::string reason) {
    on_strand([this, p = std::move(p), who = std::move(who), reason = std::move(reason)] {
        if (params_.invitee_id.empty() || p.id != params_.invitee_id)
            return fail(who, Err::NotInvited, "this game is no challenge to you");
        if (refuse_unsaved(who)) return;
        if (rec_.status != Status::Open)
            return fail(who, Err::GameFull, "the challenge is no longer open");
        watchers_.add(p, who);
        cancel_now(reason);
        later([this, reason] { notify_challenger("challenge_declined", {{"reason", reason}}); });
    });
}

void Room::cancel_now(std::optional<std::string> declined) {
    left_open();
    rec_.finished_ms = epoch_ms(SteadyClock::now(), SteadyClock::now());
    record(proto::CancelEv{std::move(declined)});
    later([this, id = rec_.seats[idx(params_.creator_side)]->id] {
        env_.players.unseat(id, code_);
        env_.directory.remove(code_);
    });
}

std::optional<Side> Room::check_seated(const Player& p, const Who& who,
                                       const std::optional<std::string>& ref) {
    tick();  // a flag or an abort that is due takes effect before the request
    auto side = rec_.seat_of(p.id);
    if (!side) return fail(who, Err::NotSeated, "you hold no seat in this game", ref), std::nullopt;
    if (refuse_unsaved(who, ref)) return std::nullopt;
    if (rec_.status == Status::Open)
        return fail(who, Err::NotStarted, "waiting for an opponent", ref), std::nullopt;
    if (rec_.status != Status::Playing)
        return fail(who, Err::GameOver, "the game is over", ref), std::nullopt;
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
    auto side = check_seated(p, who, m.ref);
    if (!side) return;
    Decision d = rec_.setup(*side, m.setup, m.version);
    if (refused(who, d, m.ref)) return;
    ++metrics().setups_accepted;
    ack(who, m.ref);
    emit(std::move(*d.event));
    notify_turn();
}

// Silver's first turn ends the no-start period and starts bronze's time; every later turn
// presses the clock (the mover's time is deducted and the increment added). A turn that
// arrives after the mover's time ran out is refused by check_seated's tick().
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
    auto side = check_seated(p, who, m.ref);
    if (!side) return;
    const bool first = !rec_.started();
    Decision d = rec_.turn(*side, m.turn, m.version);
    if (refused(who, d, m.ref)) return;
    auto now = SteadyClock::now();
    if (clock_) {
        if (first) {
            clock_->start(~*side, now);
        } else if (!clock_->running()) {
            clock_->pass();  // the mover is on vacation: its time stood
        } else {
            // The turn's network transit is the server's, within the mover's quota (lag.h).
            auto lag = std::chrono::milliseconds(m.lag_ms.value_or(0));
            auto credit = lag_->credit(*side, lag, clock_->elapsed(now));
            clock_->press(now, credit);
        }
        vacation_clock(now);  // the next mover may be on vacation
    }
    ++metrics().turns_accepted;
    later([received] {  // runs once the turn is committed, just before its ack goes out
        metrics().turn_latency.observe(
            std::chrono::duration<double, std::milli>(SteadyClock::now() - received).count());
    });
    due_.start.reset();
    ack(who, m.ref);
    if (rec_.game->over()) conclude();
    emit(std::move(*d.event));
    if (rec_.game->over()) return finish();
    arm_stall();
    notify_turn();
    schedule();
}

// Players and watchers; at most --chat-lines lines per player per --chat-window-seconds.
void Room::chat(Player p, Who who, std::string text, bool hidden, std::optional<std::string> ref) {
    on_strand([this, p = std::move(p), who = std::move(who), text = std::move(text), hidden,
               ref = std::move(ref)] {
        auto sp = who.lock();
        if (!rec_.seat_of(p.id) && (!sp || !watchers_.watching(sp.get())))
            return fail(who, Err::NotSeated, "watch the game before chatting in it", ref);
        if (refuse_unsaved(who, ref)) return;
        auto now = SteadyClock::now();
        if (!chat_.allow(p.id, now))
            return fail(who, Err::ChatRate, "too many chat lines; wait a few seconds", ref);
        if (rec_.seat_of(p.id)) {
            if (ref) ack(who, ref);
            return emit(proto::ChatEv{RoomView::ref(p), text, proto::ChatRoom::Players, hidden});
        }
        // A spectator talks to the spectators: not versioned, not stored, kept for snapshots.
        proto::ChatEv line{RoomView::ref(p), text, proto::ChatRoom::Spectators, hidden};
        chat_.remember(line);
        auto msg = std::make_shared<const std::string>(
            proto::to_text(proto::Event{code_, rec_.version, line, clocks(now)}));
        if (ref) reply(who, proto::to_text(proto::Ack{ref, rec_.version}));
        watchers_.each_live([&](const Watchers::Sub& sub) {
            if (watchers_.spectator(sub)) ops_.send({sub.who, msg, true});
        });
    });
}

}  // namespace tf::server
