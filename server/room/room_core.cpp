#include "server/room/room_core.h"

#include <spdlog/spdlog.h>

#include <cassert>

#include "server/base/metrics.h"
#include "server/room/room_notices.h"
#include "server/store/record_codec.h"

namespace tf::server {

using proto::Err;

RoomCore::RoomCore(RoomExecutor ex_in, std::string code_in, RoomParams params_in, Player creator,
                   RoomServices& env_in, RoomOps::Host& host)
    : ex(std::move(ex_in)),
      env(env_in),
      store(env_in.store),
      code(std::move(code_in)),
      params(std::move(params_in)),
      limits(RoomLimits::from(env_in.cfg, params.time_control)),
      chat(limits.chat_window, limits.chat_lines),
      history(limits.history),
      rec(params.variant, params.rated),
      watchers([this](const std::string& id) { return rec.seat_of(id).has_value(); },
               std::chrono::milliseconds(env_in.cfg.live_interval_ms)),
      timer(ex),
      ops(ex, env_in.store, code, host) {
    if (params.rated) {
        ratings.category = proto::rating_category(params.variant, params.time_control);
        if (!ratings.category) {  // the session checks; never rate what has none
            params.rated = false;
            rec = GameRecord(params.variant, false);
        }
    }
    rec.seats[idx(params.creator_side)] = std::move(creator);
    note_rating(params.creator_side);
    if (params.time_control) {
        clock.emplace(*params.time_control, limits.day);
        lag.emplace(*params.time_control);
    }
    rec.created_ms = epoch_ms(SteadyClock::now(), SteadyClock::now());
    if (!env.node.empty()) ops.fence(env.node, 1);  // a new game: its first ownership
}

RoomCore::~RoomCore() {
    if (rec.summary.active) --metrics().games_compacted;
    if (params.open_ticket) env.players.release_open(params.open_ticket);
}

void RoomCore::list_open() {
    const bool listed = rec.status == Status::Open && params.is_public && !params.quick_match &&
                        !due.delisted && !fault.lost;
    env.listings.set_open(code, listed ? std::optional(view().lobby_entry()) : std::nullopt);
}

void RoomCore::left_open() {
    if (params.open_ticket) env.players.release_open(std::exchange(params.open_ticket, 0));
    due.creator_away.reset();
    params.creator_address.clear();
}

void RoomCore::count_spectators() {
    if (auto n = watchers.changed(SteadyClock::now()))
        return tell_spectators(*n, SteadyClock::now());
    if (watchers.due()) schedule();  // check_deadlines tells it when the interval ends
}

// An unversioned `spectators` event, queued after the operation's own events so that the
// version it carries is already delivered; to the seated players only: spectators read the
// count from their snapshot, and telling every spectator about every other one would be
// quadratic in a crowd.
void RoomCore::tell_spectators(int count, TimePoint now) {
    auto msg = std::make_shared<const std::string>(proto::to_text(
        proto::Event{code, shown_version(), proto::SpectatorsEv{count}, clocks(now)}));
    for (auto& [p, sub] : watchers.subs())
        if (!sub.who.expired() && !watchers.spectator(sub)) ops.send({sub.who, msg});
}

// The challenger is told what became of the challenge (`kind`: challenge_accepted or
// challenge_declined).
void RoomCore::notify_challenger(const char* kind, nlohmann::json extra) {
    if (env.notify)
        env.notify(rec.seats[idx(params.creator_side)]->id, kind,
                   notices::challenge_answer(code, params, std::move(extra)));
}

void RoomCore::reply(const Who& who, std::string text) {
    // A spectator's reply goes with its share of the crowd's events: each recipient's messages
    // keep their order (committed()).
    bool crowd = false;
    if (auto p = who.lock()) {
        auto it = watchers.subs().find(p.get());
        crowd = it != watchers.subs().end() && watchers.spectator(it->second);
    }
    ops.send({who, std::make_shared<const std::string>(std::move(text)), crowd});
}

void RoomCore::ack(const Who& who, const std::optional<std::string>& ref) {
    ops.send({who,
              std::make_shared<const std::string>(proto::to_text(proto::Ack{ref, rec.version + 1})),
              false, ref});
}

void RoomCore::fail(const Who& who, Err err, std::string message, std::optional<std::string> ref,
                    std::optional<std::string> rule) {
    spdlog::warn("room {}: rejected ({}): {}", code, proto::err_name(err), message);
    metrics().reject(err);
    reply(who, proto::to_text(proto::ErrorMsg{err, std::move(message), std::move(ref),
                                              shown_version(), std::move(rule), code}));
}

void RoomCore::apply(const proto::EventBody& body) {
    const std::string why = rec.apply(body);
    if (why.empty()) return;
    spdlog::error("room {}: the record refused its own {}: {}", code, proto::event_kind(body), why);
    assert(!"a request checks what the record's apply() checks");
}

bool RoomCore::refused(const Who& who, const Decision& d, const std::optional<std::string>& ref) {
    if (!d.refused) return false;
    fail(who, *d.refused, d.why, ref, d.rule);
    return true;
}

// Serializes the event once, journals it, keeps it in the bounded history and addresses it to
// every watcher; it goes out when the operation's writes are committed (room_ops.h).
void RoomCore::emit(proto::EventBody body) {
    rec.count(body);
    auto now = SteadyClock::now();
    if (auto* c = std::get_if<proto::ChatEv>(&body)) chat.remember(*c);
    proto::Event ev{code, rec.version, std::move(body), clocks(now)};
    auto msg = std::make_shared<const std::string>(proto::to_text(ev));
    ops.journal(journal_row(ev, *msg, epoch_ms(now, now)));
    history.add(rec.version, msg);
    watchers.each_live([&](const Watchers::Sub& sub) {
        ops.send({sub.who, msg, watchers.spectator(sub)});
    });
    later([this, k = std::string(proto::event_kind(ev.body))] { update_live(k); });
}

bool RoomCore::refuse_unsaved(const Who& who, const std::optional<std::string>& ref) {
    if (fault.fenced) {  // a request that found the room before it was dropped: ask the new owner
        if (auto p = who.lock()) p->moved(code);
        return true;
    }
    if (fault.lost) {
        fail(who, Err::StoreUnavailable,
             "the game could not be created: the server cannot save games right now", ref);
        return true;
    }
    if (rec.status != Status::Suspended) return false;
    fail(who, Err::StoreFailed,
         "the game could not be saved; it is paused at its last saved position and resumes by "
         "itself as soon as the server can save again",
         ref);
    return true;
}

bool RoomCore::present(Side s) const {
    if (!rec.seats[idx(s)]) return false;
    if (bot_side() == s) return true;  // the server's own bot never leaves
    return watchers.connected(rec.seats[idx(s)]->id);
}

std::optional<TimePoint> RoomCore::move_deadline() const {
    if (auto flag = clock ? clock->deadline() : std::nullopt) return flag;
    return due.start;
}

StoredGame RoomCore::stored_row() const {
    StoredGame g = rec.row(code, params);
    if (!correspondence() || rec.status != Status::Playing || !rec.game) return g;
    g.to_move = side_name(rec.game->to_move());
    if (auto by = move_deadline()) g.move_by = epoch_ms(*by, SteadyClock::now());
    return g;
}

void RoomCore::update_live(std::string_view what) {
    if (!fault.loaded) return;  // suspended and not read back yet: the listing stays as it was
    bool listed = rec.status == Status::Playing ||
                  (rec.status == Status::Suspended && fault.resume_status == Status::Playing);
    // A game both players left is not worth watching: off the list until one comes back (the
    // server still ends it by its rules).
    const bool abandoned = due.away_since[0] && due.away_since[1];
    if (!params.is_public || !listed || abandoned) {
        // not (or no longer) live: a no-op if unlisted
        env.listings.set_live(code, std::nullopt, true);
        return;
    }
    // A turn or a setup only moves the game on: a delta of its progress. Chat changes nothing
    // listed. Anything else (start, seats, spectators, status) republishes the entry at once.
    std::optional<Listings::TimePoint> flush;
    if (what == "chat") return;
    if (what == "turn" || what == "setup") {
        int score[2] = {rec.game->score(Side::Silver), rec.game->score(Side::Bronze)};
        flush = env.listings.set_live_progress(code, rec.game->turns_played(), rec.game->to_move(),
                                               score);
    } else {
        flush = env.listings.set_live(code, view().live_entry(), true);
    }
    if (flush) {
        due.live_flush = *flush;  // check_deadlines flushes the held change
        schedule();
    }
}

void RoomCore::note_rating(Side s) {
    if (params.rated) ratings.note(s, rec.seats[idx(s)], env.ratings);
}

// The store applied a rated game's result with its end: everyone watching hears the changes
// (an unversioned event; the snapshot of the finished game carries them too).
void RoomCore::rated(const RateGame::Outcome& outcome) {
    if (!ratings.category) return;
    const auto& ev = ratings.applied(outcome, rec.seats, env.ratings,
                                     epoch_ms(SteadyClock::now(), SteadyClock::now()));
    auto msg = std::make_shared<const std::string>(
        proto::to_text(proto::Event{code, rec.version, ev, clocks(SteadyClock::now())}));
    std::vector<Out> out;
    for (auto& [p, sub] : watchers.subs())
        if (!sub.who.expired()) out.push_back({sub.who, msg, watchers.spectator(sub)});
    ops.deliver(std::move(out));
    spdlog::info("room {}: rated ({}): {} {:.0f} -> {:.0f}, {} {:.0f} -> {:.0f}", code,
                 *ratings.category, rec.seats[0] ? rec.seats[0]->id : "-", outcome.before[0].rating,
                 outcome.after[0].rating, rec.seats[1] ? rec.seats[1]->id : "-",
                 outcome.before[1].rating, outcome.after[1].rating);
}

}  // namespace tf::server
