// Durability of a room (docs/ARCHITECTURE.md, "Durability"):
// - every operation's events are journaled and committed to the store before anything the
//   operation produced (acks, events, lobby changes) leaves the room; operations arriving
//   meanwhile wait, so nobody ever sees a state that is not stored;
// - a failed commit suspends the game at its last stored position and says so to everyone;
// - after a restart, restore() rebuilds an unfinished game by replaying its journal through
//   the rules, and resume() puts it back in the lobby with fresh grace periods and its clock
//   running again from the stored reading (the downtime is not charged).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/json.h"
#include "server/lobby.h"
#include "server/room.h"

namespace tf::server {

using nlohmann::json;
using proto::Err;

namespace {

constexpr const char* kStatusNames[] = {"open",      "playing", "over",
                                        "cancelled", "aborted", "suspended"};

std::optional<Side> side_of(const json& j) {
    if (!j.is_string()) return std::nullopt;
    if (j == "silver") return Side::Silver;
    if (j == "bronze") return Side::Bronze;
    return std::nullopt;
}

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
                while (!self->committing_ && !self->waiting_.empty()) {
                    auto f = std::move(self->waiting_.front());
                    self->waiting_.pop_front();
                    f();
                    self->end_op();
                }
                self->maybe_bot();
            });
        });
    outbox_.clear();
    after_.clear();
}

void Room::committed(const std::optional<std::string>& error, std::vector<Out>& out, After& after) {
    if (error) return suspend(*error);
    // Lobby changes first: a client that reacts to its ack (a second create_game, welcome after
    // a reconnect) must find the lobby already up to date.
    for (auto& f : after) f();
    // A crowd of spectators gets its messages in a handler of its own, after the players': the
    // players' writes are then not queued behind thousands of deliveries. While such a handler
    // is pending everything waits behind it, so every recipient's messages keep their order.
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

void Room::suspend(const std::string& why) {
    spdlog::error("room {}: suspended, the store failed: {}", code_, why);
    status_ = Status::Suspended;
    clock_.reset();
    start_deadline_.reset();
    away_since_[0].reset();
    away_since_[1].reset();
    timer_.cancel();
    auto msg = std::make_shared<const std::string>(
        proto::to_json(proto::ErrorMsg{Err::StoreFailed,
                                       "the game could not be saved; it is suspended at its last "
                                       "saved position until the server restarts",
                                       std::nullopt, std::nullopt, std::nullopt})
            .dump());
    for (auto& [p, sub] : subs_)
        if (auto sp = sub.who.lock()) sp->deliver(msg);
    lobby_.set_open(code_, nullptr);
    lobby_.set_live(code_, nullptr, true);
    for (auto& s : seats_)
        if (s) lobby_.unseat(s->id, code_);
}

StoredGame Room::stored_row() const {
    StoredGame g;
    g.code = code_;
    g.variant = to_json(params_.variant).dump();
    g.time_control =
        params_.time_control ? proto::to_json(*params_.time_control).dump() : std::string("null");
    g.is_public = params_.is_public;
    g.quick_match = params_.quick_match;
    g.creator_side = side_name(params_.creator_side);
    g.bot_level = params_.bot_level;
    for (int i = 0; i < 2; ++i) {
        if (!seats_[i]) continue;
        g.seat_id[i] = seats_[i]->id;
        g.seat_name[i] = seats_[i]->name;
    }
    g.status = kStatusNames[int(status_)];
    bool finished = status_ == Status::Over || status_ == Status::Aborted;
    g.result = finished ? result_json().dump() : std::string("null");
    g.turns = std::int64_t(turns_.size());
    g.version = version_;
    g.created_ms = created_ms_;
    g.finished_ms = finished_ms_;
    return g;
}

std::shared_ptr<Room> Room::restore(Executor ex, const StoredGame& row,
                                    const std::vector<JournalRow>& journal, Lobby& lobby,
                                    const Config& cfg, Store& store, std::string& error) {
    auto fail = [&](std::string why) {
        error = std::move(why);
        return std::shared_ptr<Room>();
    };
    RoomParams params;
    try {
        auto v = variant_from_json(json::parse(row.variant));
        if (!v) return fail("stored variant: " + v.error().message);
        params.variant = *v;
        auto tc = json::parse(row.time_control);
        if (!tc.is_null())
            params.time_control = proto::TimeControl{tc.at("initial_ms").get<std::int64_t>(),
                                                     tc.at("increment_ms").get<std::int64_t>()};
    } catch (const std::exception& e) {
        return fail(std::string("stored game row: ") + e.what());
    }
    params.is_public = row.is_public;
    params.quick_match = row.quick_match;
    auto creator = side_of(json(row.creator_side));
    if (!creator) return fail("stored creator side: " + row.creator_side);
    params.creator_side = *creator;
    params.bot_level = row.bot_level;
    const int ci = idx(*creator);
    if (row.seat_id[ci].empty()) return fail("the creator's seat is empty");
    auto room = std::make_shared<Room>(
        ex, row.code, params, Player{row.seat_id[ci], row.seat_name[ci]}, lobby, cfg, store);
    Room& r = *room;
    r.created_ms_ = row.created_ms;
    r.status_ = row.status == "open" ? Status::Open : Status::Playing;
    json last_clocks;
    for (const auto& jr : journal) {
        if (jr.version != r.version_ + 1)
            return fail("journal version " + std::to_string(jr.version) + " follows " +
                        std::to_string(r.version_));
        json ev;
        try {
            ev = json::parse(jr.event);
        } catch (const std::exception& e) {
            return fail("journal version " + std::to_string(jr.version) + ": " + e.what());
        }
        const json& p = ev.contains("payload") ? ev["payload"] : json();
        const std::string at =
            "journal version " + std::to_string(jr.version) + " (" + jr.kind + "): ";
        Side side = Side::Silver;
        bool has_side = false;
        if (p.is_object() && p.contains("side"))
            if (auto sd = side_of(p["side"])) side = *sd, has_side = true;
        bool changes = true;
        if (jr.kind == "join") {
            if (!has_side || !p.contains("player")) return fail(at + "malformed");
            r.seats_[idx(side)] =
                Player{p["player"].value("id", ""), p["player"].value("name", "")};
            r.status_ = Status::Playing;
        } else if (jr.kind == "setup") {
            if (!has_side) return fail(at + "malformed");
            auto s = setup_from_json(p.value("setup", json()));
            if (!s) return fail(at + s.error().message);
            if (r.game_.to_move() != side) return fail(at + "out of turn");
            if (auto e = r.game_.apply_setup(side, *s)) return fail(at + e->message);
            r.setups_[idx(side)] = *s;
        } else if (jr.kind == "turn") {
            if (!has_side) return fail(at + "malformed");
            auto t = turn_from_json(p.value("turn", json()));
            if (!t) return fail(at + t.error().message);
            if (r.game_.phase() != Phase::Play || r.game_.to_move() != side)
                return fail(at + "out of turn");
            if (auto e = r.game_.apply_turn(*t)) return fail(at + e->message);
            r.turns_.push_back(*t);
            r.offered_[idx(side)] = false;
            if (r.draw_offer_ == side) r.draw_offer_.reset();
            if (r.game_.over()) return fail(at + "the game ended but is stored as unfinished");
        } else if (jr.kind == "draw_offer") {
            if (!has_side) return fail(at + "malformed");
            r.draw_offer_ = side;
            r.offered_[idx(side)] = true;
            changes = false;
        } else if (jr.kind == "draw_decline") {
            r.draw_offer_.reset();
            changes = false;
        } else if (jr.kind == "chat" || jr.kind == "player_left" || jr.kind == "player_back") {
            changes = false;
        } else {
            return fail(at + "ends the game, but the game is stored as unfinished");
        }
        r.version_ = jr.version;
        if (changes) r.state_version_ = jr.version;
        if (ev.contains("clocks")) last_clocks = ev["clocks"];
        r.history_.emplace_back(jr.version, std::make_shared<const std::string>(jr.event));
        while (r.history_.size() > r.history_limit_) r.history_.pop_front();
    }
    if (r.version_ != row.version)
        return fail("the journal ends at version " + std::to_string(r.version_) +
                    " but the game row says " + std::to_string(row.version));
    if (r.status_ == Status::Playing && !r.seats_[idx(~*creator)])
        return fail("a game being played with an empty seat");
    auto now = SteadyClock::now();
    if (r.clock_ && r.started() && last_clocks.is_object()) {
        r.clock_->restore(last_clocks.value("silver_ms", std::int64_t(0)),
                          last_clocks.value("bronze_ms", std::int64_t(0)),
                          side_of(last_clocks.value("running", json())), now);
    } else if (r.clock_ && r.started()) {
        return fail("a timed game without a clock reading");
    }
    if (r.status_ == Status::Playing && !r.started()) r.start_deadline_ = now + r.start_timeout_;
    return room;
}

void Room::resume() {
    on_strand([this] {
        for (auto& s : seats_)
            if (s) lobby_.seat(s->id, code_);
        if (status_ == Status::Open && params_.is_public && !params_.quick_match)
            lobby_.set_open(code_, lobby_entry());
        update_live("resume");
        update_presence();  // nobody is connected yet: grace periods start now
    });
}

}  // namespace tf::server
