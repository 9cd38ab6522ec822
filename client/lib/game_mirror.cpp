#include "client/lib/game_mirror.h"

#include "common/position.h"

namespace tf::client {

using proto::GameStatus;
using Update = GameMirror::Update;

GameMirror::GameMirror(std::string player_id) : player_id_(std::move(player_id)) {}

Update GameMirror::apply(const proto::ServerMsg& m) {
    if (auto* s = std::get_if<proto::SnapshotMsg>(&m)) return apply(*s);
    if (auto* e = std::get_if<proto::Event>(&m)) return apply(*e);
    return Update::Ignored;
}

// The turn list is rebuilt by replaying the snapshot's record through the rules, so that every
// turn's captures are known (a snapshot carries only the turns); the position itself is the
// snapshot's state, the server's word.
Update GameMirror::apply(const proto::SnapshotMsg& s) {
    if (has_game() && s.game != code_) return Update::Ignored;
    code_ = s.game;
    version_ = s.version;
    status_ = s.status;
    game_ = s.state;
    time_control_ = s.record.time_control;
    my_side_.reset();
    for (Side side : {Side::Silver, Side::Bronze}) {
        seats_[idx(side)] = s.players[idx(side)];
        setups_[idx(side)] = s.record.setup[idx(side)];
        if (seats_[idx(side)] && !player_id_.empty() && seats_[idx(side)]->player.id == player_id_)
            my_side_ = side;
    }
    clocks_ = s.clocks;
    draw_offer_ = s.draw_offer;
    takeback_offer_ = s.takeback_offer;
    stalling_ = s.stalling;
    vacation_[0] = s.vacation[0];
    vacation_[1] = s.vacation[1];
    berserk_[0] = s.berserk[0];
    berserk_[1] = s.berserk[1];
    prefs_[0] = s.preferences[0];
    prefs_[1] = s.preferences[1];
    spectators_ = s.spectators;
    aborted_ = s.status == GameStatus::Aborted;
    result_.reset();
    if (s.status == GameStatus::Over) result_ = proto::result_of(s.state);
    if (s.status == GameStatus::Aborted) result_ = proto::aborted_result(s.state);
    turns_.clear();
    position_ = s.record.position;
    Game replay(s.record.variant);
    bool ok = true;
    if (position_) {
        auto start = game_from_position(*position_);
        ok = bool(start);
        if (start) replay = std::move(*start);
    }
    for (Side side : {Side::Silver, Side::Bronze})
        if (s.record.setup[idx(side)])
            ok = ok && !replay.apply_setup(side, *s.record.setup[idx(side)]);
    for (const Turn& t : s.record.turns) {
        Game before = replay;
        Side mover = replay.to_move();
        ok = ok && !replay.apply_turn(t);
        turns_.push_back(
            {mover, t,
             ok ? proto::captures_of(before, replay, t) : std::vector<proto::Captured>{}});
    }
    state_version_ = s.version;  // conservative: nothing older than the snapshot is current
    chat_ = s.chat;
    ratings_ = s.ratings;
    rated_ = s.rated;
    if (chat_.size() > kChatKept)
        chat_.erase(chat_.begin(), chat_.end() - std::ptrdiff_t(kChatKept));
    last_.reset();
    return Update::Snapshot;
}

// One event's effect on the mirror; false when it does not apply to this copy of the game.
struct GameMirror::Applier {
    GameMirror& m;
    bool operator()(const proto::JoinEv& e) {
        m.seats_[idx(e.side)] = proto::Seat{e.player, std::nullopt};
        if (!m.player_id_.empty() && e.player.id == m.player_id_) m.my_side_ = e.side;
        if (m.status_ == GameStatus::Open) m.status_ = GameStatus::Playing;
        return true;
    }
    bool operator()(const proto::SetupEv& e) {
        if (m.game_.apply_setup(e.side, e.setup)) return false;
        m.setups_[idx(e.side)] = e.setup;
        return true;
    }
    bool operator()(const proto::TurnEv& e) {
        Game before = m.game_;
        if (m.game_.to_move() != e.side || m.game_.apply_turn(e.turn)) return false;
        m.turns_.push_back({e.side, e.turn, proto::captures_of(before, m.game_, e.turn)});
        if (m.draw_offer_ == e.side) m.draw_offer_.reset();  // the offer lapses with the turn
        m.takeback_offer_.reset();                           // a takeback request with any
        m.stalling_.reset();
        return true;
    }
    bool operator()(const proto::StallingEv& e) {
        m.stalling_ = e.side;
        return true;
    }
    bool operator()(const proto::StallClaimEv& e) {
        if (m.stalling_ != ~e.side) return false;
        m.stalling_.reset();
        if (e.draw)
            m.game_.agree_draw(EndReason::Stalling);
        else
            m.game_.resign(~e.side, EndReason::Stalling);
        return true;
    }
    bool operator()(const proto::TakebackOfferEv& e) {
        m.takeback_offer_ = e.side;
        return true;
    }
    bool operator()(const proto::TakebackDeclineEv&) {
        m.takeback_offer_.reset();
        return true;
    }
    bool operator()(const proto::TakebackEv& e) {
        if (m.takeback_turns(e.side) != e.turns) return false;
        m.turns_.resize(m.turns_.size() - std::size_t(e.turns));
        m.takeback_offer_.reset();
        m.stalling_.reset();
        m.draw_offer_.reset();
        return m.rebuild();
    }
    bool operator()(const proto::TimeGivenEv&) { return true; }  // the event's clocks say it
    bool operator()(const proto::BerserkEv& e) {                 // the event's clocks say the time
        m.berserk_[idx(e.side)] = true;
        return true;
    }
    bool operator()(const proto::VacationEv& e) {
        m.vacation_[idx(e.side)] = e.on;
        return true;
    }
    bool operator()(const proto::PreferencesEv& e) {
        m.prefs_[idx(e.side)] = e.prefs;
        if (!e.prefs.takeback) m.takeback_offer_.reset();
        return true;
    }
    bool operator()(const proto::ResignEv& e) { return end(e.side, EndReason::Resign); }
    bool operator()(const proto::TimeoutEv& e) { return end(e.side, EndReason::Time); }
    bool operator()(const proto::AbandonEv& e) { return end(e.side, EndReason::Abandon); }
    bool operator()(const proto::DrawAcceptEv&) {
        m.draw_offer_.reset();
        m.game_.agree_draw();
        return true;
    }
    bool operator()(const proto::DrawOfferEv& e) {
        m.draw_offer_ = e.side;
        return true;
    }
    bool operator()(const proto::DrawDeclineEv&) {
        m.draw_offer_.reset();
        return true;
    }
    bool operator()(const proto::AbortEv&) {
        m.aborted_ = true;
        return true;
    }
    bool operator()(const proto::GameOverEv& e) {
        m.result_ = e.result;
        m.status_ = m.aborted_ || e.result.reason == proto::ResultReason::Aborted
                        ? GameStatus::Aborted
                        : GameStatus::Over;
        m.draw_offer_.reset();
        m.takeback_offer_.reset();
        m.stalling_.reset();
        if (m.clocks_) m.clocks_->running.reset();
        // The rules' own result must be the server's (an aborted game has none).
        return m.status_ == GameStatus::Aborted || proto::result_of(m.game_) == e.result;
    }
    bool operator()(const proto::CancelEv&) {
        m.status_ = GameStatus::Cancelled;
        return true;
    }
    bool operator()(const proto::PlayerLeftEv& e) {
        if (auto& s = m.seats_[idx(e.side)]) s->away = proto::Away{e.claim_at, e.award_at};
        return true;
    }
    bool operator()(const proto::PlayerBackEv& e) {
        if (auto& s = m.seats_[idx(e.side)]) s->away.reset();
        return true;
    }
    bool operator()(const proto::ChatEv& e) {
        m.chat_.push_back(e);
        if (m.chat_.size() > kChatKept) m.chat_.erase(m.chat_.begin());
        return true;
    }
    bool operator()(const proto::RematchOfferEv& e) {
        m.rematch_offer_ = e.side;
        m.rematch_declined_.reset();
        return true;
    }
    bool operator()(const proto::RematchDeclineEv& e) {
        m.rematch_offer_.reset();
        m.rematch_declined_ = e.side;
        return true;
    }
    bool operator()(const proto::RematchEv& e) {
        m.rematch_offer_.reset();
        m.rematch_code_ = e.code;
        return true;
    }
    bool operator()(const proto::SpectatorsEv& e) {
        m.spectators_ = e.count;
        return true;
    }
    bool operator()(const proto::RatingsEv& e) {
        m.ratings_ = e;
        return true;
    }
    bool operator()(const proto::UnknownEv&) { return true; }
    bool operator()(const proto::HiddenEv&) { return true; }  // a line not shown: its version
    bool end(Side loser, EndReason why) {
        m.game_.resign(loser, why);
        return true;
    }
};

int GameMirror::takeback_turns(Side s) const {
    if (game_.phase() != Phase::Play) return 0;
    return proto::takeback_turns(std::int64_t(turns_.size()), s);
}

bool GameMirror::rebuild() {
    Game g(game_.variant());
    if (position_) {
        auto start = game_from_position(*position_);
        if (!start) return false;
        g = std::move(*start);
    } else {
        for (Side s : {Side::Silver, Side::Bronze})
            if (!setups_[idx(s)] || g.apply_setup(s, *setups_[idx(s)])) return false;
    }
    for (const TurnEntry& t : turns_)
        if (g.apply_turn(t.turn)) return false;
    game_ = std::move(g);
    return true;
}

namespace {
bool about_rematch(const proto::EventBody& b) {
    return std::holds_alternative<proto::RematchOfferEv>(b) ||
           std::holds_alternative<proto::RematchDeclineEv>(b) ||
           std::holds_alternative<proto::RematchEv>(b);
}
}  // namespace

Update GameMirror::apply(const proto::Event& e) {
    if (!has_game() || e.game != code_) return Update::Ignored;
    // The spectator count and spectators' chat are not versioned: they carry the current
    // version without adding one.
    if (!proto::versioned(e.body)) {
        std::visit(Applier{*this}, e.body);
        if (e.clocks) clocks_ = e.clocks;
        last_ = e;
        return Update::Event;
    }
    if (e.version > version_ + 1) return Update::Gap;
    if (e.version <= version_) {
        // Rematch events are about the next game, which no snapshot describes: one is taken
        // also when it does not add a version (a server may send them without one, with the
        // game's current version; taking one twice changes nothing). Anything else older than
        // the mirror is already part of it.
        if (!about_rematch(e.body)) return Update::Ignored;
        std::visit(Applier{*this}, e.body);
        last_ = e;
        return Update::Event;
    }
    if (!std::visit(Applier{*this}, e.body)) return Update::Diverged;
    version_ = e.version;
    if (proto::changes_game(e.body)) state_version_ = e.version;
    if (e.clocks) clocks_ = e.clocks;
    last_ = e;
    return Update::Event;
}

}  // namespace tf::client
