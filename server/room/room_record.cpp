// A room and its stored record (server/store/record_codec.h owns the format): the game's row
// written after every operation, and the replay of a journal through the rules that rebuilds a room
// — after a restart (restore(), then resume() puts it back in the lobby with fresh grace periods
// and its clock running again from the stored reading, the downtime not charged) and after a
// store failure (load()).
#include <spdlog/spdlog.h>

#include "server/base/metrics.h"
#include "server/room/directory.h"
#include "server/room/room.h"
#include "server/store/record_codec.h"

namespace tf::server {

StoredGame Room::stored_row() const {
    StoredGame g;
    g.code = code_;
    g.variant = variant_text(params_.variant);
    g.time_control = time_control_text(params_.time_control);
    g.is_public = params_.is_public;
    g.quick_match = params_.quick_match;
    g.creator_side = side_name(params_.creator_side);
    g.bot_level = params_.bot_level;
    g.rated = params_.rated;
    for (int i = 0; i < 2; ++i) {
        if (!seats_[i]) continue;
        g.seat_id[i] = seats_[i]->id;
        g.seat_name[i] = seats_[i]->name;
    }
    g.status = proto::status_name(status_);
    g.result = result_text(proto::finished(status_) ? std::optional(result()) : std::nullopt);
    g.turns = summary_.active ? summary_.turns : std::int64_t(turns_.size());
    g.version = version_;
    g.created_ms = created_ms_;
    g.finished_ms = finished_ms_;
    if (status_ == Status::Open) g.creator_addr = params_.creator_address;
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
    params.rated = row.rated;
    params.creator_address = row.creator_addr;
    const int ci = idx(*creator);
    if (row.seat_id[ci].empty()) return fail("the creator's seat is empty");
    auto room = std::make_shared<Room>(ex, row.code, params,
                                       Player{row.seat_id[ci], row.seat_name[ci], row.rated}, env);
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
        // Only accounts sit in a rated game.
        r.seats_[idx(e.side)] = Player{e.player.id, e.player.name, r.params_.rated};
        r.status_ = Status::Playing;
        return {};
    }
    std::string operator()(const proto::SetupEv& e) {
        if (r.game_->to_move() != e.side) return "out of turn";
        if (auto err = r.game_->apply_setup(e.side, e.setup)) return err->message;
        r.setups_[idx(e.side)] = e.setup;
        return {};
    }
    std::string operator()(const proto::TurnEv& e) {
        if (r.game_->phase() != Phase::Play || r.game_->to_move() != e.side) return "out of turn";
        if (auto err = r.game_->apply_turn(e.turn)) return err->message;
        r.turns_.push_back(e.turn);
        r.offers_.turn_made(e.side);
        r.due_.stalling.reset();
        return {};
    }
    std::string operator()(const proto::StallingEv& e) {
        r.due_.stalling = e.side;
        return {};
    }
    std::string operator()(const proto::StallClaimEv& e) {
        if (r.due_.stalling != ~e.side) return "a claim against a player who was not stalling";
        if (e.draw)
            r.game_->agree_draw(EndReason::Stalling);
        else
            r.game_->resign(~e.side, EndReason::Stalling);
        return {};
    }
    std::string operator()(const proto::TakebackOfferEv& e) {
        r.offers_.takeback = e.side;
        r.offers_.takeback_asked[idx(e.side)] = true;
        return {};
    }
    std::string operator()(const proto::TakebackDeclineEv&) {
        r.offers_.takeback.reset();
        return {};
    }
    std::string operator()(const proto::TakebackEv& e) {
        if (r.takeback_turns(e.side) != e.turns) return "a takeback of other turns";
        r.drop_turns(e.turns);
        r.offers_.takeback.reset();
        r.due_.stalling.reset();
        r.offers_.draw.reset();
        return {};
    }
    std::string operator()(const proto::TimeGivenEv&) { return {}; }  // the clocks' readings
    std::string operator()(const proto::PreferencesEv& e) {
        r.prefs_[idx(e.side)] = e.prefs;
        if (!e.prefs.takeback) r.offers_.takeback.reset();
        return {};
    }
    std::string operator()(const proto::DrawOfferEv& e) {
        r.offers_.draw = e.side;
        r.offers_.draw_offered[idx(e.side)] = true;
        return {};
    }
    std::string operator()(const proto::DrawDeclineEv&) {
        r.offers_.draw.reset();
        return {};
    }
    std::string operator()(const proto::ResignEv& e) { return end(e.side, EndReason::Resign); }
    std::string operator()(const proto::TimeoutEv& e) { return end(e.side, EndReason::Time); }
    std::string operator()(const proto::AbandonEv& e) { return end(e.side, EndReason::Abandon); }
    std::string operator()(const proto::DrawAcceptEv&) {
        r.game_->agree_draw();
        return {};
    }
    std::string operator()(const proto::AbortEv&) {
        r.status_ = Status::Aborted;
        return {};
    }
    std::string operator()(const proto::GameOverEv&) {
        if (r.status_ == Status::Aborted) return {};
        if (!r.game_->over()) return "the game is not over";
        r.status_ = Status::Over;
        return {};
    }
    std::string operator()(const proto::CancelEv&) {
        r.status_ = Status::Cancelled;
        return {};
    }
    // After the game: the rematch offers and the rematch itself.
    std::string operator()(const proto::RematchOfferEv& e) {
        r.offers_.rematch = e.side;
        return {};
    }
    std::string operator()(const proto::RematchDeclineEv&) {
        r.offers_.rematch.reset();
        return {};
    }
    std::string operator()(const proto::RematchEv& e) {
        r.offers_.rematch.reset();
        r.offers_.rematch_code = e.code;
        return {};
    }
    // Chat is kept for snapshots (the players' room only is journaled); presence changes
    // nothing that is kept; the spectator count is never journaled.
    std::string operator()(const proto::ChatEv& e) {
        if (e.room != proto::ChatRoom::Players) return "a spectators' line in the journal";
        r.chat_.remember(e);
        return {};
    }
    std::string operator()(const proto::PlayerLeftEv&) { return {}; }
    std::string operator()(const proto::PlayerBackEv&) { return {}; }
    std::string operator()(const proto::SpectatorsEv&) { return "not a journaled event"; }
    std::string operator()(const proto::RatingsEv&) { return "not a journaled event"; }
    std::string operator()(const proto::UnknownEv& e) { return "unknown event " + e.kind; }
    std::string end(Side loser, EndReason why) {
        r.game_->resign(loser, why);
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
    if (summary_.active) --metrics().games_compacted;
    summary_.active = false;  // the state is whole again
    game_ = std::make_unique<Game>(params_.variant);
    seats_[ci] = Player{row.seat_id[ci], row.seat_name[ci], params_.rated};  // rated: accounts
    seats_[1 - ci].reset();
    setups_[0].reset();
    setups_[1].reset();
    turns_.clear();
    version_ = state_version_ = 0;
    history_.clear();
    if (params_.time_control) {
        clock_.emplace(*params_.time_control);
        lag_.emplace(*params_.time_control);
    } else {
        clock_.reset();
        lag_.reset();
    }
    offers_.draw.reset();
    offers_.takeback.reset();
    offers_.takeback_asked[0] = offers_.takeback_asked[1] = false;
    due_.stalling.reset();
    due_.stall.reset();
    prefs_[0] = prefs_[1] = proto::SeatPrefs{!params_.rated, true};
    offers_.rematch.reset();
    offers_.rematch_code.reset();
    chat_.clear_log();
    offers_.draw_offered[0] = offers_.draw_offered[1] = false;
    due_.start.reset();
    due_.away_since[0].reset();
    due_.away_since[1].reset();
    due_.remove.reset();
    fault_.last_clock_at_ms = 0;
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
                                  std::holds_alternative<proto::ChatEv>(ev->body) ||
                                  std::holds_alternative<proto::RematchOfferEv>(ev->body) ||
                                  std::holds_alternative<proto::RematchDeclineEv>(ev->body) ||
                                  std::holds_alternative<proto::RematchEv>(ev->body);
        if (proto::finished(status_) && !after_end_ok)
            return fail(at + "after the end of the game");
        if (auto e = std::visit(Replayer{*this}, ev->body); !e.empty()) return fail(at + e);
        version_ = jr.version;
        if (proto::changes_game(ev->body)) state_version_ = jr.version;
        if (ev->clocks) last_clocks = ev->clocks;
        history_.add(jr.version, std::make_shared<const std::string>(jr.event));
    }
    if (version_ != row.version)
        return fail("the journal ends at version " + std::to_string(version_) +
                    " but the game row says " + std::to_string(row.version));
    if (game_->over() && !proto::finished(status_))
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
        fault_.last_clock_at_ms = last_clocks->at;
    } else if (clock_ && started()) {
        return fail("a timed game without a clock reading");
    }
    if (status_ == Status::Playing && !started()) due_.start = now + limits_.start_timeout;
    fault_.saved_version = version_;
    return true;
}

void Room::resume() {
    on_strand([this] {
        for (auto& s : seats_)
            if (s) env_.players.seat(s->id, code_);
        if (status_ == Status::Open && !params_.open_ticket)
            params_.open_ticket = env_.players.adopt_open(seats_[idx(params_.creator_side)]->id,
                                                          params_.creator_address);
        if (status_ == Status::Open) list_open();
        update_live("resume");
        arm_stall();        // a sitting player's limit starts again
        update_presence();  // nobody is connected yet: grace periods start now
        if (params_.rated) read_seat_ratings();
    });
}

}  // namespace tf::server
