// Durability of a room (docs/ARCHITECTURE.md, "Durability" and "Failures"):
// - every operation's events are journaled and committed to the store before anything the
//   operation produced (acks, events, lobby changes) leaves the room; operations arriving
//   meanwhile wait, so nobody ever sees a state that is not stored;
// - a failed commit suspends the game: nothing of the operation is sent, everyone watching is
//   told once, the room reloads its last saved state and resumes from it when the store works
//   again, with the time it was suspended not charged to anyone's clock;
// - after a restart, restore() rebuilds an unfinished game by replaying its journal through
//   the rules, and resume() puts it back in the lobby with fresh grace periods and its clock
//   running again from the stored reading (the downtime is not charged).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "server/directory.h"
#include "server/metrics.h"
#include "server/record_codec.h"
#include "server/room.h"

namespace tf::server {

using proto::Err;

namespace {

constexpr auto kFirstRetry = std::chrono::milliseconds(200);
constexpr auto kLongestRetry = std::chrono::seconds(2);

}  // namespace

void Room::run_op(std::function<void()> f) {
    if (committing_) {
        waiting_.push_back(std::move(f));
        return;
    }
    f();
    end_op();
    maybe_bot();
}

void Room::drain_waiting() {
    while (!committing_ && !waiting_.empty()) {
        auto f = std::move(waiting_.front());
        waiting_.pop_front();
        f();
        end_op();
    }
}

void Room::ack(const Who& who, const std::optional<std::string>& ref) {
    reply(who, proto::to_text(proto::Ack{ref, version_ + 1}));
    outbox_.back().ack = ref;
}

void Room::end_op() {
    if (!pending_create_ && pending_rows_.empty()) {
        After after;
        std::vector<Out> out;
        out.swap(outbox_);
        after.swap(after_);
        committed(std::nullopt, out, after);
        return;
    }
    GameWrite w{code_, std::move(pending_create_), std::move(pending_rows_), stored_row()};
    if (w.create) w.update.reset();  // the insert already holds the row as it is
    creating_ = w.create.has_value();
    pending_create_.reset();
    pending_rows_.clear();
    committing_ = true;
    store_.commit(
        std::move(w), [self = shared_from_this(), out = std::move(outbox_),
                       after = std::move(after_)](std::optional<std::string> err) mutable {
            // Called once: the outbox moves on rather than being copied (a crowd's is thousands
            // long).
            boost::asio::post(self->ex_, [self, out = std::move(out), after = std::move(after),
                                          err = std::move(err)]() mutable {
                self->committing_ = false;
                self->committed(err, out, after);
                self->drain_waiting();
                self->maybe_bot();
            });
        });
    outbox_.clear();
    after_.clear();
}

void Room::committed(const std::optional<std::string>& error, std::vector<Out>& out, After& after) {
    if (error) return suspend(*error, out);
    creating_ = false;
    saved_version_ = version_;
    // Lobby changes first: a client that reacts to its ack (a second create_game, welcome after
    // a reconnect) must find the lobby already up to date.
    for (auto& f : after) f();
    deliver(out);
}

// A crowd of spectators gets its messages in a handler of its own, after the players': the
// players' writes are then not queued behind thousands of deliveries. While such a handler is
// pending everything waits behind it, so every recipient's messages keep their order.
void Room::deliver(std::vector<Out>& out) {
    auto send = [](std::vector<Out>& msgs, bool crowd) {
        for (auto& o : msgs)
            if (o.crowd == crowd)
                if (auto p = o.to.lock()) p->deliver(o.msg);
    };
    auto defer = [this, send](std::vector<Out> msgs, bool players_too) {
        ++crowd_pending_;
        boost::asio::post(
            ex_, [self = shared_from_this(), msgs = std::move(msgs), players_too, send]() mutable {
                --self->crowd_pending_;
                if (players_too) send(msgs, false);
                send(msgs, true);
            });
    };
    if (crowd_pending_ > 0) return defer(std::move(out), true);
    const auto crowd =
        std::size_t(std::count_if(out.begin(), out.end(), [](const Out& o) { return o.crowd; }));
    send(out, false);
    if (crowd >= kCrowd) return defer(std::move(out), false);
    send(out, true);
}

// The operation's messages are dropped; each watcher gets one store_failed (with its ref where
// it was waiting for an ack), then the room reloads what the store holds.
void Room::suspend(const std::string& why, const std::vector<Out>& out) {
    const auto now = SteadyClock::now();
    timer_.cancel();
    start_deadline_.reset();
    remove_at_.reset();
    if (creating_) {  // nothing of this game was stored: it cannot come back
        // The requests that follow the creation (the creator's watch, a quick-match join)
        // each get store_unavailable (refuse_unsaved): one message per requester.
        creating_ = false;
        lost_ = true;
        status_ = Status::Cancelled;
        spdlog::error("room {}: not created, the store failed: {}", code_, why);
        subs_.clear();
        spectators_ = 0;
        env_.directory.remove(code_);
        return;
    }
    if (status_ != Status::Suspended) {
        spdlog::error("room {}: suspended at version {}, the last saved: {}", code_, saved_version_,
                      why);
        ++metrics().games_suspended;
        suspended_ms_ = epoch_ms(now, now);
        suspended_at_ = now;
        env_.directory.set_suspended(code_, true);
        if (params_.is_public && !params_.quick_match) env_.listings.set_open(code_, std::nullopt);
    }
    status_ = Status::Suspended;
    recover_backoff_ = kFirstRetry;
    std::string text =
        "the game could not be saved; it is paused at its last saved position (version " +
        std::to_string(saved_version_) +
        ") and resumes by itself as soon as the server can save again";
    auto generic = std::make_shared<const std::string>(proto::to_text(
        proto::ErrorMsg{Err::StoreFailed, text, std::nullopt, saved_version_, std::nullopt}));
    std::vector<Out> errors;
    std::set<const Participant*> told;
    for (const auto& o : out) {
        if (!o.ack) continue;
        if (auto p = o.to.lock(); p && told.insert(p.get()).second)
            errors.push_back({o.to,
                              std::make_shared<const std::string>(proto::to_text(proto::ErrorMsg{
                                  Err::StoreFailed, text, *o.ack, saved_version_, std::nullopt})),
                              o.crowd});
    }
    for (auto& [p, sub] : subs_)
        if (told.insert(p).second) errors.push_back({sub.who, generic, !seat_of(sub.player_id)});
    deliver(errors);
    reload();
}

// Reads the game back from the store (off the strand); requests wait until it is back.
void Room::reload() {
    committing_ = true;
    store_.read_game(code_, ex_, [self = shared_from_this()](Read<std::optional<GameRows>> r) {
        self->reloaded(std::move(r));
    });
}

void Room::reloaded(Read<std::optional<GameRows>> read) {
    committing_ = false;
    const auto now = SteadyClock::now();
    std::string error = read.error;
    if (read.ok() && !*read.value) error = "the game is not in the store";
    if (error.empty() && !load((*read.value)->row, (*read.value)->journal, error))
        error = "it does not replay: " + error;
    if (!error.empty()) {
        if (loaded_ || recover_backoff_ == kFirstRetry)
            spdlog::error("room {}: cannot read the saved game back ({}); retrying", code_, error);
        loaded_ = false;
    } else {
        loaded_ = true;
        resume_status_ = status_;
        status_ = Status::Suspended;
        resume_running_ = clock_ ? clock_->running() : std::nullopt;
        if (clock_ && resume_running_) {
            // The time from the last saved reading to the failure was the mover's; from the
            // failure to the resumption it is nobody's.
            auto at = last_clock_at_ms_;
            if (at > 0 && suspended_ms_ > at)
                clock_->charge(*resume_running_, std::chrono::milliseconds(suspended_ms_ - at));
            clock_->stop(now);
        }
        away_since_[0].reset();
        away_since_[1].reset();
        update_live("suspend");
    }
    recover_at_ = now + recover_backoff_;
    schedule();
    drain_waiting();
}

// The recovery timer (check_deadlines): reads the game back if that failed, then waits for the
// store to be healthy, backing off from 200 ms to 2 s.
void Room::try_resume() {
    recover_at_.reset();
    const auto now = SteadyClock::now();
    if (!loaded_) return reload();
    if (!store_.healthy()) {
        recover_backoff_ = std::min<SteadyClock::duration>(recover_backoff_ * 2, kLongestRetry);
        recover_at_ = now + recover_backoff_;
        return;
    }
    status_ = resume_status_;
    env_.directory.set_suspended(code_, false);
    --metrics().games_suspended;
    ++metrics().games_resumed;
    double secs = suspended_at_ ? std::chrono::duration<double>(now - *suspended_at_).count() : 0;
    spdlog::warn("room {}: resumed at version {} after {:.1f} s suspended", code_, version_, secs);
    suspended_at_.reset();
    if (clock_ && resume_running_ && status_ == Status::Playing)
        clock_->start(*resume_running_, now);
    resume_running_.reset();
    if (status_ == Status::Playing && !started()) start_deadline_ = now + start_timeout_;
    if (status_ == Status::Open && params_.is_public && !params_.quick_match)
        env_.listings.set_open(code_, lobby_entry());
    if (proto::finished(status_) || status_ == Status::Cancelled) {
        for (auto& s : seats_)
            if (s) env_.players.unseat(s->id, code_);
        remove_at_ = now + retention_;
    }
    const std::string snap = proto::to_text(snapshot());
    for (auto& [p, sub] : subs_) reply(sub.who, snap);
    update_live("resume");
    update_presence();
}

bool Room::refuse_unsaved(const Who& who, const std::optional<std::string>& ref) {
    if (lost_) {
        fail(who, Err::StoreUnavailable,
             "the game could not be created: the server cannot save games right now", ref);
        return true;
    }
    if (status_ != Status::Suspended) return false;
    fail(who, Err::StoreFailed,
         "the game could not be saved; it is paused at its last saved position and resumes by "
         "itself as soon as the server can save again",
         ref);
    return true;
}

StoredGame Room::stored_row() const {
    StoredGame g;
    g.code = code_;
    g.variant = variant_text(params_.variant);
    g.time_control = time_control_text(params_.time_control);
    g.is_public = params_.is_public;
    g.quick_match = params_.quick_match;
    g.creator_side = side_name(params_.creator_side);
    g.bot_level = params_.bot_level;
    for (int i = 0; i < 2; ++i) {
        if (!seats_[i]) continue;
        g.seat_id[i] = seats_[i]->id;
        g.seat_name[i] = seats_[i]->name;
    }
    g.status = proto::status_name(status_);
    g.result = result_text(proto::finished(status_) ? std::optional(result()) : std::nullopt);
    g.turns = std::int64_t(turns_.size());
    g.version = version_;
    g.created_ms = created_ms_;
    g.finished_ms = finished_ms_;
    return g;
}

std::shared_ptr<Room> Room::restore(Executor ex, const StoredGame& row,
                                    const std::vector<JournalRow>& journal, RoomServices& env,
                                    std::string& error) {
    auto fail = [&](std::string why) {
        error = std::move(why);
        return std::shared_ptr<Room>();
    };
    RoomParams params;
    auto variant = variant_of(row.variant, error);
    if (!variant) return nullptr;
    params.variant = *variant;
    auto tc = time_control_of(row.time_control, error);
    if (!tc) return nullptr;
    params.time_control = *tc;
    params.is_public = row.is_public;
    params.quick_match = row.quick_match;
    auto creator = parse_side(row.creator_side);
    if (!creator) return fail("stored creator side: " + row.creator_side);
    params.creator_side = *creator;
    params.bot_level = row.bot_level;
    const int ci = idx(*creator);
    if (row.seat_id[ci].empty()) return fail("the creator's seat is empty");
    auto room = std::make_shared<Room>(ex, row.code, params,
                                       Player{row.seat_id[ci], row.seat_name[ci]}, env);
    if (row.status != "open" && row.status != "playing")
        return fail("the game is stored as " + row.status + ", not unfinished");
    if (!room->load(row, journal, error)) return nullptr;
    if (proto::finished(room->status_) || room->status_ == Status::Cancelled)
        return fail("the game ended but is stored as unfinished");
    return room;
}

// One journaled event replayed into the room: every setup and turn is validated again by the
// rules; the endings put the game where the journal says it ended. An error message, or "".
struct Room::Replayer {
    Room& r;
    std::string operator()(const proto::JoinEv& e) {
        r.seats_[idx(e.side)] = Player{e.player.id, e.player.name};
        r.status_ = Status::Playing;
        return {};
    }
    std::string operator()(const proto::SetupEv& e) {
        if (r.game_.to_move() != e.side) return "out of turn";
        if (auto err = r.game_.apply_setup(e.side, e.setup)) return err->message;
        r.setups_[idx(e.side)] = e.setup;
        return {};
    }
    std::string operator()(const proto::TurnEv& e) {
        if (r.game_.phase() != Phase::Play || r.game_.to_move() != e.side) return "out of turn";
        if (auto err = r.game_.apply_turn(e.turn)) return err->message;
        r.turns_.push_back(e.turn);
        r.offered_[idx(e.side)] = false;
        if (r.draw_offer_ == e.side) r.draw_offer_.reset();
        return {};
    }
    std::string operator()(const proto::DrawOfferEv& e) {
        r.draw_offer_ = e.side;
        r.offered_[idx(e.side)] = true;
        return {};
    }
    std::string operator()(const proto::DrawDeclineEv&) {
        r.draw_offer_.reset();
        return {};
    }
    std::string operator()(const proto::ResignEv& e) { return end(e.side, EndReason::Resign); }
    std::string operator()(const proto::TimeoutEv& e) { return end(e.side, EndReason::Time); }
    std::string operator()(const proto::AbandonEv& e) { return end(e.side, EndReason::Abandon); }
    std::string operator()(const proto::DrawAcceptEv&) {
        r.game_.agree_draw();
        return {};
    }
    std::string operator()(const proto::AbortEv&) {
        r.status_ = Status::Aborted;
        return {};
    }
    std::string operator()(const proto::GameOverEv&) {
        if (r.status_ == Status::Aborted) return {};
        if (!r.game_.over()) return "the game is not over";
        r.status_ = Status::Over;
        return {};
    }
    std::string operator()(const proto::CancelEv&) {
        r.status_ = Status::Cancelled;
        return {};
    }
    // Presence and chat change nothing that is kept; the spectator count is never journaled.
    std::string operator()(const proto::ChatEv&) { return {}; }
    std::string operator()(const proto::PlayerLeftEv&) { return {}; }
    std::string operator()(const proto::PlayerBackEv&) { return {}; }
    std::string operator()(const proto::SpectatorsEv&) { return "not a journaled event"; }
    std::string operator()(const proto::UnknownEv& e) { return "unknown event " + e.kind; }
    std::string end(Side loser, EndReason why) {
        r.game_.resign(loser, why);
        return {};
    }
};

// Replays the journal through the rules into a fresh state.
bool Room::load(const StoredGame& row, const std::vector<JournalRow>& journal, std::string& error) {
    auto fail = [&](std::string why) {
        error = std::move(why);
        return false;
    };
    const int ci = idx(params_.creator_side);
    if (row.seat_id[ci].empty()) return fail("the creator's seat is empty");
    game_ = Game(params_.variant);
    seats_[ci] = Player{row.seat_id[ci], row.seat_name[ci]};
    seats_[1 - ci].reset();
    setups_[0].reset();
    setups_[1].reset();
    turns_.clear();
    version_ = state_version_ = 0;
    history_.clear();
    if (params_.time_control)
        clock_.emplace(*params_.time_control);
    else
        clock_.reset();
    draw_offer_.reset();
    offered_[0] = offered_[1] = false;
    start_deadline_.reset();
    away_since_[0].reset();
    away_since_[1].reset();
    remove_at_.reset();
    last_clock_at_ms_ = 0;
    created_ms_ = row.created_ms;
    finished_ms_ = row.finished_ms;
    status_ = Status::Open;
    std::optional<proto::ClockReading> last_clocks;
    for (const auto& jr : journal) {
        const std::string at =
            "journal version " + std::to_string(jr.version) + " (" + jr.kind + "): ";
        if (jr.version != version_ + 1)
            return fail(at + "follows version " + std::to_string(version_));
        std::string why;
        auto ev = read_row(jr, why);
        if (!ev) return fail(at + why);
        const bool after_end_ok = std::holds_alternative<proto::GameOverEv>(ev->body) ||
                                  std::holds_alternative<proto::ChatEv>(ev->body);
        if (proto::finished(status_) && !after_end_ok)
            return fail(at + "after the end of the game");
        if (auto e = std::visit(Replayer{*this}, ev->body); !e.empty()) return fail(at + e);
        version_ = jr.version;
        if (proto::changes_game(ev->body)) state_version_ = jr.version;
        if (ev->clocks) last_clocks = ev->clocks;
        history_.emplace_back(jr.version, std::make_shared<const std::string>(jr.event));
        while (history_.size() > history_limit_) history_.pop_front();
    }
    if (version_ != row.version)
        return fail("the journal ends at version " + std::to_string(version_) +
                    " but the game row says " + std::to_string(row.version));
    if (game_.over() && !proto::finished(status_))
        return fail("the rules ended the game but the journal has no game_over");
    if (status_ == Status::Playing && !seats_[idx(~params_.creator_side)])
        return fail("a game being played with an empty seat");
    if (proto::status_name(status_) != row.status)
        return fail("the journal leaves the game " + std::string(proto::status_name(status_)) +
                    " but the game row says " + row.status);
    auto now = SteadyClock::now();
    if (clock_ && started() && last_clocks) {
        clock_->restore(last_clocks->silver_ms, last_clocks->bronze_ms,
                        status_ == Status::Playing ? last_clocks->running : std::nullopt, now);
        last_clock_at_ms_ = last_clocks->at;
    } else if (clock_ && started()) {
        return fail("a timed game without a clock reading");
    }
    if (status_ == Status::Playing && !started()) start_deadline_ = now + start_timeout_;
    saved_version_ = version_;
    return true;
}

void Room::resume() {
    on_strand([this] {
        for (auto& s : seats_)
            if (s) env_.players.seat(s->id, code_);
        if (status_ == Status::Open && params_.is_public && !params_.quick_match)
            env_.listings.set_open(code_, lobby_entry());
        update_live("resume");
        update_presence();  // nobody is connected yet: grace periods start now
    });
}

}  // namespace tf::server
