// A room when the store fails (docs/ARCHITECTURE.md "Failures"): a failed commit suspends the
// game, the room reads its last saved state back (room_record.cpp's replay) and only then tells
// anyone: a commit reported failed that the store holds after all was saved (its ack and events
// go out), one it does not hold was not (store_failed to its requester), and when the store
// cannot be read the requester learns that the fate is unknown (in_doubt); everyone watching is
// told once that the game is paused. It stays paused, clocks stopped, until the store is
// healthy again; then it resumes where it was saved, with the time it was suspended charged to
// nobody, and sends everyone a fresh snapshot. A game whose creation failed is dropped.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "server/base/metrics.h"
#include "server/room/directory.h"
#include "server/room/room.h"

namespace tf::server {

using proto::Err;

namespace {

constexpr auto kFirstRetry = std::chrono::milliseconds(200);
constexpr auto kLongestRetry = std::chrono::seconds(2);

}  // namespace

// The operation's messages are held until the store says whether it holds them (reloaded()).
void Room::suspend(const std::string& why, const std::vector<Out>& out,
                   const std::vector<std::function<void()>>& after, bool creating) {
    const auto now = SteadyClock::now();
    timer_.cancel();
    due_.start.reset();
    due_.remove.reset();
    if (creating) {  // nothing of this game was stored: it cannot come back
        // The requests that follow the creation (the creator's watch, a quick-match join)
        // each get store_unavailable (refuse_unsaved): one message per requester.
        fault_.lost = true;
        rec_.status = Status::Cancelled;
        spdlog::error("room {}: not created, the store failed: {}", code_, why);
        watchers_.clear();
        env_.directory.remove(code_);
        cancel_in_doubt();
        return;
    }
    if (rec_.status != Status::Suspended) {
        spdlog::error("room {}: suspended at version {}, the last saved: {}", code_,
                      fault_.saved_version, why);
        ++metrics().games_suspended;
        fault_.suspended_ms = epoch_ms(now, now);
        fault_.since = now;
        env_.directory.set_suspended(code_, true);
        env_.listings.set_open(code_, std::nullopt);  // off the lobby while suspended
    }
    rec_.status = Status::Suspended;
    fault_.backoff = kFirstRetry;
    fault_.doubt = Suspension::Doubt{out, after, rec_.version};
    reload();
}

// The failed operation's fate, once the store was read (`saved`) or could not be (nullopt).
// Saved: its messages go out as they would have; then everyone is told the game is paused at
// the version the store holds. Not saved: its requesters get store_failed with their ref; in
// doubt: in_doubt. Either way each watcher gets one notice.
void Room::settle_doubt(std::optional<bool> saved) {
    if (!fault_.doubt) return;
    Suspension::Doubt d = std::move(*fault_.doubt);
    fault_.doubt.reset();
    std::vector<Out> watching;
    for (auto& [p, sub] : watchers_.subs())
        watching.push_back({sub.who, nullptr, watchers_.spectator(sub)});
    auto notices = fault_.notices(saved, d.out, watching, code_);
    if (saved == true) {
        spdlog::warn("room {}: the commit reported failed was saved (version {})", code_,
                     d.version);
        for (auto& f : d.after) f();
        ops_.deliver(std::move(d.out));
    }
    ops_.deliver(std::move(notices));
}

void Room::fenced(const std::string& why, const std::vector<Out>* unsent) {
    spdlog::warn("room {}: {}; this node drops the game", code_, why);
    ++metrics().games_fenced;
    timer_.cancel();
    due_.start.reset();
    due_.remove.reset();
    fault_.lost = true;
    fault_.fenced = true;
    // The seats and the directory's entry stay with a newer room of the game, should this node
    // serve it again (it claimed the game anew while it still held this room).
    const auto current = env_.directory.find(code_);
    const bool newer = current && current.get() != this;
    if (!newer)
        for (auto& s : rec_.seats)
            if (s) env_.players.unseat(s->id, code_);
    std::vector<std::shared_ptr<Participant>> told;
    for (auto& [p, sub] : watchers_.subs())
        if (auto who = sub.who.lock()) told.push_back(std::move(who));
    if (unsent)
        for (const auto& o : *unsent)
            if (auto who = o.to.lock();
                who && o.ack && std::find(told.begin(), told.end(), who) == told.end())
                told.push_back(std::move(who));
    watchers_.clear();
    if (!newer) env_.directory.remove(code_);
    for (auto& who : told) who->moved(code_);
}

// A creation reported failed may still have committed (the connection died during the commit:
// in doubt). Its row must not stay `open` with nobody serving it (a restart, or another node,
// would bring a game back that its creator was told does not exist): once the store writes
// again, the row is marked cancelled if it is there; "no game to update" means it never was.
void Room::cancel_in_doubt() {
    StoredGame row = stored_row();
    row.status = "cancelled";
    row.finished_ms = epoch_ms(SteadyClock::now(), SteadyClock::now());
    ops_.write_when_healthy(std::move(row));
}

// Reads the game back from the store (off the strand); requests wait until it is back.
void Room::reload() {
    ops_.hold();
    store_.read_game(code_, ex_, [self = shared_from_this()](Read<std::optional<GameRows>> r) {
        self->reloaded(std::move(r));
    });
}

void Room::reloaded(Read<std::optional<GameRows>> read) {
    const auto now = SteadyClock::now();
    std::string error = read.error;
    if (read.ok() && !*read.value) error = "the game is not in the store";
    if (error.empty() && !load((*read.value)->row, (*read.value)->journal, error))
        error = "it does not replay: " + error;
    if (!error.empty()) {
        if (fault_.loaded || fault_.backoff == kFirstRetry)
            spdlog::error("room {}: cannot read the saved game back ({}); retrying", code_, error);
        fault_.loaded = false;
        settle_doubt(std::nullopt);
    } else {
        // load() took the store's version: the failed operation is saved when it reached it.
        if (fault_.doubt) settle_doubt(rec_.version >= fault_.doubt->version);
        fault_.loaded = true;
        fault_.resume_status = rec_.status;
        rec_.status = Status::Suspended;
        fault_.pause(clock_, now);
        due_.away_since[0].reset();
        due_.away_since[1].reset();
        update_live("suspend");
    }
    fault_.retry_at = now + fault_.backoff;
    schedule();
    ops_.release();
}

// The recovery timer (check_deadlines): reads the game back if that failed, then waits for the
// store to be healthy, backing off from 200 ms to 2 s.
void Room::try_resume() {
    fault_.retry_at.reset();
    const auto now = SteadyClock::now();
    if (!fault_.loaded) return reload();
    if (!store_.healthy()) {
        fault_.backoff = std::min<SteadyClock::duration>(fault_.backoff * 2, kLongestRetry);
        fault_.retry_at = now + fault_.backoff;
        return;
    }
    rec_.status = fault_.resume_status;
    env_.directory.set_suspended(code_, false);
    --metrics().games_suspended;
    ++metrics().games_resumed;
    double secs = fault_.since ? std::chrono::duration<double>(now - *fault_.since).count() : 0;
    spdlog::warn("room {}: resumed at version {} after {:.1f} s suspended", code_, rec_.version,
                 secs);
    fault_.since.reset();
    fault_.resume(clock_, rec_.status == Status::Playing, now);
    if (rec_.status == Status::Playing && !rec_.started() && !rec_.vacation[0] && !rec_.vacation[1])
        due_.start = now + limits_.start_timeout;
    if (rec_.status == Status::Open) list_open();
    if (proto::finished(rec_.status) || rec_.status == Status::Cancelled) {
        for (auto& s : rec_.seats)
            if (s) env_.players.unseat(s->id, code_);
        forget_history();
        due_.remove = now + limits_.retention;
    }
    const std::string for_players = snapshot_text(false);
    const std::string for_spectators = snapshot_text(true);
    for (auto& [p, sub] : watchers_.subs())
        reply(sub.who, watchers_.spectator(sub) ? for_spectators : for_players);
    update_live("resume");
    update_presence();
    check_vacations();  // a change while it was suspended
}

bool Room::refuse_unsaved(const Who& who, const std::optional<std::string>& ref) {
    if (fault_.fenced) {  // a request that found the room before it was dropped: ask the new owner
        if (auto p = who.lock()) p->moved(code_);
        return true;
    }
    if (fault_.lost) {
        fail(who, Err::StoreUnavailable,
             "the game could not be created: the server cannot save games right now", ref);
        return true;
    }
    if (rec_.status != Status::Suspended) return false;
    fail(who, Err::StoreFailed,
         "the game could not be saved; it is paused at its last saved position and resumes by "
         "itself as soon as the server can save again",
         ref);
    return true;
}

}  // namespace tf::server
