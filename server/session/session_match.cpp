// Session handlers for the lobby's quick match and live-games list (lobby.h, lobby_match.cpp).
#include <spdlog/spdlog.h>

#include <boost/asio/strand.hpp>
#include <random>

#include "server/room/room.h"
#include "server/session/session.h"

namespace tf::server {

using proto::Err;

// Pairs with a waiting player of the same pool, or files this player's request (the pairing
// is one atomic step of the matchmaker). The player who completes a pair has the room made and
// tells both: `matched`, then the game's snapshot.
// A rated request waits in the rated pool of its category with the player's rating, and tries
// again every second as its range widens (server/lobby/matchmaker.h).
void Session::handle(proto::QuickMatch& m) {
    if (refuse_new_game()) return;
    if (player_->bot)
        return send_error(Err::BotAccount,
                          "bot accounts do not play quick matches: they play the challenges "
                          "people and bots send them");
    match_req_.reset();  // a new request replaces a waiting one
    std::optional<int> rating;
    if (m.rated) {
        if (!player_->account)
            return send_error(Err::AccountRequired, "rated games are for accounts: log in first");
        auto category = proto::rating_category(m.variant, m.time_control);
        if (!category)
            return send_error(Err::NotRatable,
                              "only the standard and the small board are rated; play this "
                              "variant casual");
        rating = match_rating(m);
    }
    std::string pool = proto::to_json(m).dump();  // canonical variant, time control, rated
    hub_.peers->seek(self(), *player_, m, pool, rating);
}

std::optional<int> Session::match_rating(const proto::QuickMatch& m) {
    auto category = proto::rating_category(m.variant, m.time_control);
    if (!m.rated || !category) return std::nullopt;
    return hub_.ratings.view(player_->id, *category).rating;
}

// The pool's answers (server/session/peers.h: this node's matchmaker, or the cluster's shared
// pool), on any thread.
void Session::match_found(const proto::QuickMatch& m, Seek opponent) {
    boost::asio::post(executor(), [self = self(), m, opponent = std::move(opponent)] {
        self->match_req_.reset();
        if (self->match_timer_) self->match_timer_->cancel();
        self->make_match(m, opponent);
    });
}

void Session::match_waiting(const proto::QuickMatch& m) {
    boost::asio::post(executor(), [self = self(), m] {
        self->send(proto::to_text(proto::QuickMatchWaiting{m.variant, m.time_control, m.rated}));
        if (m.rated) {
            self->match_req_ = m;
            self->retry_match();
        }
    });
}

void Session::match_waiting_again(const proto::QuickMatch& m) {
    boost::asio::post(executor(), [self = self(), m] {
        if (self->match_req_ && proto::to_json(*self->match_req_) == proto::to_json(m))
            self->retry_match();
    });
}

void Session::match_done() {
    boost::asio::post(executor(), [self = self()] {
        self->match_req_.reset();
        if (self->match_timer_) self->match_timer_->cancel();
    });
}

void Session::make_match(const proto::QuickMatch& m, const Seek& opponent) {
    RoomParams params{m.variant, m.time_control, true, Side::Silver, true, std::nullopt, m.rated};
    if (std::random_device{}() & 1) params.creator_side = Side::Bronze;
    hub_.directory.create(params, *player_, executor(),
                          [self = self(), opponent, params](std::shared_ptr<Room> room) {
                              self->start_match(room, opponent, params.creator_side);
                          });
}

void Session::retry_match() {
    if (!match_timer_) match_timer_.emplace(executor());
    match_timer_->expires_after(std::chrono::seconds(1));
    match_timer_->async_wait([w = weak_from_this()](boost::system::error_code ec) {
        auto s = std::static_pointer_cast<Session>(w.lock());
        if (ec || !s || !s->player_ || !s->match_req_) return;
        s->hub_.peers->retry_seek(s, *s->player_, *s->match_req_,
                                  proto::to_json(*s->match_req_).dump(),
                                  s->match_rating(*s->match_req_));
    });
}

void Session::start_match(const std::shared_ptr<Room>& room, const Seek& opponent, Side my_side) {
    if (!room) {  // the store cannot be read: the waiting player is told too
        const auto msg = "the game could not be created (the store cannot be read); ask again";
        send_error(proto::Err::StoreUnavailable, msg);
        if (auto them = opponent.who.lock())
            them->deliver(std::make_shared<const std::string>(
                proto::to_text(proto::ErrorMsg{proto::Err::StoreUnavailable, msg, {}, {}, {}})));
        return;
    }
    const std::string link = "/g/" + room->code();
    spdlog::info("quick match: {} vs {} in {}", player_->id, opponent.player.id, room->code());
    auto matched = [&](Side s) {
        return std::make_shared<const std::string>(
            proto::to_text(proto::Matched{room->code(), link, s}));
    };
    remember(room);
    room->open(weak_from_this(), matched(my_side));
    room->watch(*player_, weak_from_this(), std::nullopt);
    if (auto them = opponent.who.lock()) them->adopt(room);
    room->join(opponent.player, opponent.who, matched(~my_side));
}

void Session::handle(proto::QuickMatchCancel&) {
    hub_.peers->withdraw(player_->id);
    match_req_.reset();
    if (match_timer_) match_timer_->cancel();
    send(proto::to_text(proto::QuickMatchCancelled{}));
}

void Session::handle(proto::ListLive&) {
    lobby_sub_ = true;
    hub_.listings.subscribe_live(shared_from_this());
}

void Session::adopt(const std::shared_ptr<Room>& room) {
    {
        std::lock_guard lock(rooms_m_);
        if (!gone_) return remember_locked(room);
    }
    room->leave(this);  // closed meanwhile: the room must not count this connection
}

}  // namespace tf::server
