// A room when the store fails (docs/ARCHITECTURE.md "Failures"): a failed commit suspends the
// game, the room reads its last saved state back (load(), the replay a restart's restore
// uses) and only then tells
// anyone: a commit reported failed that the store holds after all was saved (its ack and events
// go out), one it does not hold was not (store_failed to its requester), and when the store
// cannot be read the requester learns that the fate is unknown (in_doubt); everyone watching is
// told once that the game is paused. It stays paused, clocks stopped, until the store is
// healthy again; then it resumes where it was saved, with the time it was suspended charged to
// nobody, and sends everyone a fresh snapshot. A game whose creation failed is dropped.
//
// A finished game in memory (issue 21): it stays for --retention-seconds for late watchers and
// rematches, but once its end and whatever followed it (rematch offers, chat) are committed,
// the store holds everything the rules state, setups, turns and history are rebuilt from. The
// room then keeps only a summary: params, seats, status and result, versions, clocks, ratings,
// rematch state, the chat log (the spectators' lines are stored nowhere), timers and watchers.
// A rematch needs no more than that, nor does a watcher already at the final version; a
// snapshot or a catch-up from an older version reads the game back from the store first,
// asynchronously, with the room's operations held meanwhile (as a reload does), and replays it
// with load().
#include "server/room/room_recovery.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "server/base/metrics.h"
#include "server/room/directory.h"

namespace tf::server {

namespace {

constexpr auto kFirstRetry = std::chrono::milliseconds(200);
constexpr auto kLongestRetry = std::chrono::seconds(2);

}  // namespace

// The operation's messages are held until the store says whether it holds them (reloaded()).
bool RoomRecovery::suspend(const std::string& why, const std::vector<Out>& out,
                           const std::vector<std::function<void()>>& after, bool creating) {
    const auto now = SteadyClock::now();
    c_.timer.cancel();
    c_.due.start.reset();
    c_.due.remove.reset();
    if (creating) {  // nothing of this game was stored: it cannot come back
        // The requests that follow the creation (the creator's watch, a quick-match join)
        // each get store_unavailable (refuse_unsaved): one message per requester.
        c_.fault.lost = true;
        c_.rec.status = Status::Cancelled;
        spdlog::error("room {}: not created, the store failed: {}", c_.code, why);
        c_.watchers.clear();
        c_.env.directory.remove(c_.code);
        cancel_in_doubt();
        return false;
    }
    if (c_.rec.status != Status::Suspended) {
        spdlog::error("room {}: suspended at version {}, the last saved: {}", c_.code,
                      c_.fault.saved_version, why);
        ++metrics().games_suspended;
        c_.fault.suspended_ms = epoch_ms(now, now);
        c_.fault.since = now;
        c_.env.directory.set_suspended(c_.code, true);
        c_.env.listings.set_open(c_.code, std::nullopt);  // off the lobby while suspended
    }
    c_.rec.status = Status::Suspended;
    c_.fault.backoff = kFirstRetry;
    c_.fault.doubt = Suspension::Doubt{out, after, c_.rec.version};
    return true;
}

// The failed operation's fate, once the store was read (`saved`) or could not be (nullopt).
// Saved: its messages go out as they would have; then everyone is told the game is paused at
// the version the store holds. Not saved: its requesters get store_failed with their ref; in
// doubt: in_doubt. Either way each watcher gets one notice.
void RoomRecovery::settle_doubt(std::optional<bool> saved) {
    if (!c_.fault.doubt) return;
    Suspension::Doubt d = std::move(*c_.fault.doubt);
    c_.fault.doubt.reset();
    std::vector<Out> watching;
    for (auto& [p, sub] : c_.watchers.subs())
        watching.push_back({sub.who, nullptr, c_.watchers.spectator(sub)});
    auto notices = c_.fault.notices(saved, d.out, watching, c_.code);
    if (saved == true) {
        spdlog::warn("room {}: the commit reported failed was saved (version {})", c_.code,
                     d.version);
        for (auto& f : d.after) f();
        c_.ops.deliver(std::move(d.out));
    }
    c_.ops.deliver(std::move(notices));
}

void RoomRecovery::fenced(const std::string& why, const std::vector<Out>* unsent, bool newer) {
    spdlog::warn("room {}: {}; this node drops the game", c_.code, why);
    ++metrics().games_fenced;
    c_.timer.cancel();
    c_.due.start.reset();
    c_.due.remove.reset();
    c_.fault.lost = true;
    c_.fault.fenced = true;
    // The seats and the directory's entry stay with a newer room of the game, should this node
    // serve it again (it claimed the game anew while it still held this room).
    if (!newer)
        for (auto& s : c_.rec.seats)
            if (s) c_.env.players.unseat(s->id, c_.code);
    std::vector<std::shared_ptr<Participant>> told;
    for (auto& [p, sub] : c_.watchers.subs())
        if (auto who = sub.who.lock()) told.push_back(std::move(who));
    if (unsent)
        for (const auto& o : *unsent)
            if (auto who = o.to.lock();
                who && o.ack && std::find(told.begin(), told.end(), who) == told.end())
                told.push_back(std::move(who));
    c_.watchers.clear();
    if (!newer) c_.env.directory.remove(c_.code);
    for (auto& who : told) who->moved(c_.code);
}

// A creation reported failed may still have committed (the connection died during the commit:
// in doubt). Its row must not stay `open` with nobody serving it (a restart, or another node,
// would bring a game back that its creator was told does not exist): once the store writes
// again, the row is marked cancelled if it is there; "no game to update" means it never was.
void RoomRecovery::cancel_in_doubt() {
    StoredGame row = c_.stored_row();
    row.status = "cancelled";
    row.finished_ms = epoch_ms(SteadyClock::now(), SteadyClock::now());
    c_.ops.write_when_healthy(std::move(row));
}

void RoomRecovery::reloaded(Read<std::optional<GameRows>> read) {
    const auto now = SteadyClock::now();
    std::string error = read.error;
    if (read.ok() && !*read.value) error = "the game is not in the store";
    if (error.empty() && !load((*read.value)->row, (*read.value)->journal, error))
        error = "it does not replay: " + error;
    if (!error.empty()) {
        if (c_.fault.loaded || c_.fault.backoff == kFirstRetry)
            spdlog::error("room {}: cannot read the saved game back ({}); retrying", c_.code,
                          error);
        c_.fault.loaded = false;
        settle_doubt(std::nullopt);
    } else {
        // load() took the store's version: the failed operation is saved when it reached it.
        if (c_.fault.doubt) settle_doubt(c_.rec.version >= c_.fault.doubt->version);
        c_.fault.loaded = true;
        c_.fault.resume_status = c_.rec.status;
        c_.rec.status = Status::Suspended;
        c_.fault.pause(c_.clock, now);
        c_.due.away_since[0].reset();
        c_.due.away_since[1].reset();
        c_.update_live("suspend");
    }
    c_.fault.retry_at = now + c_.fault.backoff;
    c_.schedule();
}

// The recovery timer (RoomTime::check_deadlines): waits for the store to be healthy, backing
// off from 200 ms to 2 s.
bool RoomRecovery::try_resume() {
    c_.fault.retry_at.reset();
    const auto now = SteadyClock::now();
    if (!c_.fault.loaded) return false;
    if (!c_.store.healthy()) {
        c_.fault.backoff = std::min<SteadyClock::duration>(c_.fault.backoff * 2, kLongestRetry);
        c_.fault.retry_at = now + c_.fault.backoff;
        return true;
    }
    c_.rec.status = c_.fault.resume_status;
    c_.env.directory.set_suspended(c_.code, false);
    --metrics().games_suspended;
    ++metrics().games_resumed;
    double secs = c_.fault.since ? std::chrono::duration<double>(now - *c_.fault.since).count() : 0;
    spdlog::warn("room {}: resumed at version {} after {:.1f} s suspended", c_.code, c_.rec.version,
                 secs);
    c_.fault.since.reset();
    c_.fault.resume(c_.clock, c_.rec.status == Status::Playing, now);
    if (c_.rec.status == Status::Playing && !c_.rec.started() && !c_.rec.vacation[0] &&
        !c_.rec.vacation[1])
        c_.due.start = now + c_.limits.start_timeout;
    if (c_.rec.status == Status::Open) c_.list_open();
    if (proto::finished(c_.rec.status) || c_.rec.status == Status::Cancelled) {
        for (auto& s : c_.rec.seats)
            if (s) c_.env.players.unseat(s->id, c_.code);
        t_.forget_history();
        c_.due.remove = now + c_.limits.retention;
    }
    const std::string for_players = c_.snapshot_text(false);
    const std::string for_spectators = c_.snapshot_text(true);
    for (auto& [p, sub] : c_.watchers.subs())
        c_.reply(sub.who, c_.watchers.spectator(sub) ? for_spectators : for_players);
    c_.update_live("resume");
    t_.update_presence();
    t_.check_vacations();  // a change while it was suspended
    return true;
}

// Replays the journal through the rules into a fresh record (GameRecord::replay); the room's
// own parts start afresh around it: the history and chat log from the journal, the clock from
// its last reading, no deadline but the no-start limit.
bool RoomRecovery::load(const StoredGame& row, const std::vector<JournalRow>& journal,
                        std::string& error) {
    const int ci = idx(c_.params.creator_side);
    if (row.seat_id[ci].empty()) {
        error = "the creator's seat is empty";
        return false;
    }
    if (c_.rec.summary.active) --metrics().games_compacted;
    const bool rematch_starting = c_.rec.offers.rematch_starting;  // its room is being made
    c_.rec = GameRecord(c_.params.variant, c_.params.rated);
    c_.rec.offers.rematch_starting = rematch_starting;
    c_.rec.seats[ci] =
        Player{row.seat_id[ci], row.seat_name[ci], c_.params.rated,  // rated: accounts
               row.seat_bot[ci]};
    c_.history.clear();
    c_.chat.clear_log();
    if (c_.params.time_control) {
        c_.clock.emplace(*c_.params.time_control, c_.limits.day);
        c_.lag.emplace(*c_.params.time_control);
    } else {
        c_.clock.reset();
        c_.lag.reset();
    }
    c_.due.start.reset();
    c_.due.away_since[0].reset();
    c_.due.away_since[1].reset();
    c_.due.remove.reset();
    c_.due.stall.reset();
    c_.fault.last_clock_at_ms = 0;
    std::optional<proto::ClockReading> last_clocks;
    auto each = [&](const proto::Event& ev, const JournalRow& jr) {
        if (auto* c = std::get_if<proto::ChatEv>(&ev.body)) c_.chat.remember(*c);
        if (ev.clocks) last_clocks = ev.clocks;
        c_.history.add(jr.version, std::make_shared<const std::string>(jr.event));
    };
    if (!c_.rec.replay(row, journal, each, error)) return false;
    auto now = SteadyClock::now();
    // A berserk before the first turn of play took time off a clock that was not running yet.
    const bool berserked = c_.rec.berserk[0] || c_.rec.berserk[1];
    if (c_.clock && (c_.rec.started() || berserked) && last_clocks) {
        c_.clock->restore(last_clocks->silver_ms, last_clocks->bronze_ms,
                          c_.rec.status == Status::Playing ? last_clocks->running : std::nullopt,
                          now);
        c_.fault.last_clock_at_ms = last_clocks->at;
        for (Side s : {Side::Silver, Side::Bronze})
            if (c_.rec.berserk[idx(s)]) c_.clock->no_increment(s);
    } else if (c_.clock && c_.rec.started()) {
        error = "a timed game without a clock reading";
        return false;
    }
    if (c_.rec.status == Status::Playing && !c_.rec.started() && !c_.rec.vacation[0] &&
        !c_.rec.vacation[1])
        c_.due.start = now + c_.limits.start_timeout;
    c_.fault.saved_version = c_.rec.version;
    return true;
}

// From idle(): after every operation, and after every commit, once nothing is in flight. With
// --store memory (NullStore) nothing can be read back: the game keeps its whole state.
void RoomRecovery::compact() {
    if (!proto::finished(c_.rec.status) || c_.fault.lost || !c_.fault.loaded || c_.ops.busy() ||
        c_.fault.saved_version != c_.rec.version || !c_.store.keeps_games())
        return;
    if (c_.rec.summary.active && c_.history.empty())
        return;  // already a summary, nothing emitted since
    if (!c_.rec.summary.active) ++metrics().games_compacted;
    c_.rec.compact();
    c_.history.clear();
}

// The replay runs in a scratch record, so that a read or a replay that fails leaves this one as
// it was; only what the summary lacks is taken from it.
bool RoomRecovery::expanded(const Read<std::optional<GameRows>>& read) {
    std::string error = read.error;
    if (read.ok() && !*read.value) error = "the game is not in the store";
    GameRecord full(c_.params.variant, c_.params.rated);
    EventHistory history(c_.limits.history);
    if (error.empty()) {
        const GameRows& rows = **read.value;
        full.seats[idx(c_.params.creator_side)] = c_.rec.seats[idx(c_.params.creator_side)];
        auto each = [&](const proto::Event&, const JournalRow& jr) {
            history.add(jr.version, std::make_shared<const std::string>(jr.event));
        };
        if (!full.replay(rows.row, rows.journal, each, error))
            error = "it does not replay: " + error;
        else if (full.version != c_.rec.version || full.status != c_.rec.status)
            error = "the store has it at version " + std::to_string(full.version) + ", " +
                    std::string(proto::status_name(full.status)) + ", not " +
                    std::to_string(c_.rec.version) + ", " +
                    std::string(proto::status_name(c_.rec.status));
    }
    if (!error.empty()) {
        spdlog::error("room {}: cannot read the finished game back: {}", c_.code, error);
        return false;
    }
    c_.rec.expand(std::move(full));
    c_.history.take(std::move(history));
    --metrics().games_compacted;
    return true;
}

}  // namespace tf::server
