#include "server/room.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include "common/json.h"
#include "server/lobby.h"

namespace tf::server {

using nlohmann::json;
using proto::Err;

Room::Room(Executor ex, std::string code, RoomParams params, Player creator, Lobby& lobby,
           std::size_t history_limit)
    : ex_(std::move(ex)),
      code_(std::move(code)),
      params_(std::move(params)),
      lobby_(lobby),
      history_limit_(history_limit),
      game_(params_.variant) {
    seats_[idx(params_.creator_side)] = std::move(creator);
}

template <class F>
void Room::on_strand(F&& f) {
    boost::asio::post(ex_, [self = shared_from_this(), f = std::forward<F>(f)]() mutable { f(); });
}

void Room::open() {
    on_strand([this] {
        lobby_.seat(seats_[idx(params_.creator_side)]->id, code_);
        if (params_.is_public) lobby_.set_open(code_, lobby_entry());
    });
}

std::optional<Side> Room::seat_of(const std::string& player_id) const {
    for (Side s : {Side::Silver, Side::Bronze})
        if (seats_[idx(s)] && seats_[idx(s)]->id == player_id) return s;
    return std::nullopt;
}

void Room::reply(const Who& who, const json& j) {
    if (auto p = who.lock()) p->deliver(std::make_shared<const std::string>(j.dump()));
}

void Room::fail(const Who& who, Err code, std::string message, std::optional<std::string> ref,
                std::optional<std::string> rule) {
    spdlog::warn("room {}: rejected ({}): {}", code_, proto::err_name(code), message);
    reply(who, proto::to_json(proto::ErrorMsg{code, std::move(message), std::move(ref), version_,
                                              std::move(rule)}));
}

void Room::subscribe(const Player& p, const Who& who) {
    if (auto sp = who.lock()) subs_[sp.get()] = Sub{who, p.id};
}

// Serializes the event once, keeps it in the bounded history and hands it to every watcher.
void Room::emit(const char* kind, json payload, bool changes_state) {
    ++version_;
    if (changes_state) state_version_ = version_;
    auto msg = std::make_shared<const std::string>(
        proto::to_json(proto::Event{code_, version_, kind, std::move(payload), nullptr}).dump());
    history_.emplace_back(version_, msg);
    while (history_.size() > history_limit_) history_.pop_front();
    for (auto it = subs_.begin(); it != subs_.end();) {
        if (auto p = it->second.who.lock()) {
            p->deliver(msg);
            ++it;
        } else {
            it = subs_.erase(it);
        }
    }
}

void Room::join(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (seat_of(p.id)) return watch(p, who, std::nullopt);
        if (status_ != Status::Open) return fail(who, Err::GameFull, "the game is not open");
        Side s = ~params_.creator_side;
        seats_[idx(s)] = p;
        status_ = Status::Playing;
        lobby_.seat(p.id, code_);
        if (params_.is_public) lobby_.set_open(code_, nullptr);
        emit("join", {{"side", side_name(s)}, {"player", {{"id", p.id}, {"name", p.name}}}});
        subscribe(p, who);
        reply(who, proto::to_json(snapshot()));
    });
}

// A spectator, or a player coming back: missed events from the history when it reaches back
// far enough, a snapshot otherwise.
void Room::watch(Player p, Who who, std::optional<std::int64_t> since) {
    on_strand([this, p = std::move(p), who = std::move(who), since] {
        subscribe(p, who);
        bool can_replay =
            since && *since <= version_ &&
            (*since == version_ || (!history_.empty() && history_.front().first <= *since + 1));
        if (!can_replay) return reply(who, proto::to_json(snapshot()));
        if (auto sp = who.lock())
            for (auto& [v, msg] : history_)
                if (v > *since) sp->deliver(msg);
    });
}

void Room::leave(const Participant* who) {
    on_strand([this, who] { subs_.erase(who); });
}

void Room::cancel(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        if (seat_of(p.id) != params_.creator_side)
            return fail(who, Err::NotCreator, "only the creator may cancel");
        if (status_ != Status::Open)
            return fail(who, Err::AlreadyStarted, "the game has already started");
        status_ = Status::Cancelled;
        emit("cancel", json::object());
        lobby_.unseat(p.id, code_);
        lobby_.remove(code_);
    });
}

std::optional<Side> Room::check_mover(const Player& p, const Who& who,
                                      const std::optional<std::string>& ref,
                                      std::optional<std::int64_t> version) {
    auto side = seat_of(p.id);
    if (!side) return fail(who, Err::NotSeated, "you hold no seat in this game", ref), std::nullopt;
    if (status_ == Status::Open)
        return fail(who, Err::NotStarted, "waiting for an opponent", ref), std::nullopt;
    if (status_ != Status::Playing)
        return fail(who, Err::GameOver, "the game is over", ref), std::nullopt;
    if (game_.to_move() != *side)
        return fail(who, Err::NotYourTurn, "it is the opponent's turn", ref), std::nullopt;
    if (version && *version < state_version_)
        return fail(who, Err::StaleVersion, "the game has moved on since that version", ref),
               std::nullopt;
    return side;
}

void Room::setup(Player p, Who who, proto::SetupMsg m) {
    on_strand([this, p = std::move(p), who = std::move(who), m = std::move(m)] {
        auto side = check_mover(p, who, m.ref, m.version);
        if (!side) return;
        if (game_.phase() != Phase::SetupSilver && game_.phase() != Phase::SetupBronze)
            return fail(who, Err::WrongPhase, "the setup phase is over", m.ref);
        if (auto e = game_.apply_setup(*side, m.setup))
            return fail(who, Err::IllegalSetup, e->message, m.ref,
                        std::string(error_code_name(e->code)));
        setups_[idx(*side)] = m.setup;
        reply(who, proto::to_json(proto::Ack{m.ref, version_ + 1}));
        emit("setup", {{"side", side_name(*side)}, {"setup", to_json(m.setup)}});
    });
}

void Room::turn(Player p, Who who, proto::TurnMsg m) {
    on_strand([this, p = std::move(p), who = std::move(who), m = std::move(m)] {
        auto side = check_mover(p, who, m.ref, m.version);
        if (!side) return;
        if (game_.phase() != Phase::Play)
            return fail(who, Err::WrongPhase, "setups are not complete", m.ref);
        if (auto e = game_.apply_turn(m.turn))
            return fail(who, Err::IllegalTurn, e->message, m.ref,
                        std::string(error_code_name(e->code)));
        turns_.push_back(m.turn);
        reply(who, proto::to_json(proto::Ack{m.ref, version_ + 1}));
        emit("turn", {{"side", side_name(*side)}, {"turn", to_json(m.turn)}});
        if (game_.over()) finish();
    });
}

void Room::resign(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = seat_of(p.id);
        if (!side) return fail(who, Err::NotSeated, "you hold no seat in this game");
        if (status_ == Status::Open) return fail(who, Err::NotStarted, "cancel an open game");
        if (status_ != Status::Playing) return fail(who, Err::GameOver, "the game is over");
        game_.resign(*side);
        emit("resign", {{"side", side_name(*side)}});
        finish();
    });
}

void Room::finish() {
    status_ = Status::Over;
    emit("game_over", result_to_json(game_));
    for (auto& s : seats_)
        if (s) lobby_.unseat(s->id, code_);
}

void Room::chat(Player p, Who who, std::string text) {
    on_strand([this, p = std::move(p), who = std::move(who), text = std::move(text)] {
        auto sp = who.lock();
        if (!seat_of(p.id) && (!sp || !subs_.count(sp.get())))
            return fail(who, Err::NotSeated, "watch the game before chatting in it");
        emit("chat", {{"from", {{"id", p.id}, {"name", p.name}}}, {"text", text}}, false);
    });
}

}  // namespace tf::server
