// What a connection asks to make games (PROTOCOL.md "Games", "Challenges", "Quick match"):
// create_game with its checks (limits, a double click answered twice with the same game, a
// challenge's account looked up and its blocks asked), and quick match (the request filed in
// the pool, a rated one tried again every second as its range widens, the room made for a
// pair). One per connection, a part of its Session: it runs on the connection's strand and uses
// the session's player, answers (send, send_error), strand and remembered rooms.
#include "server/session/game_maker.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <random>

#include "server/accounts/display_name.h"
#include "server/accounts/house_bots.h"
#include "server/room/room.h"
#include "server/session/session.h"

namespace tf::server {

using proto::Err;

namespace {
// A player may hold this many times --max-games correspondence games besides the others.
constexpr int kCorrespondenceGamesFactor = 10;
}  // namespace

bool GameMaker::refuse_new_game(const std::optional<std::string>& ref) {
    if (s_.hub_.store->healthy()) return false;
    s_.send_error(Err::StoreUnavailable,
                  "the server cannot save games right now; try again in a moment", ref);
    return true;
}

void GameMaker::create(const proto::CreateGame& m) {
    const auto now = std::chrono::steady_clock::now();
    if (m.ref && last_create_ && last_create_->ref == *m.ref &&
        now - last_create_->at < kRepeatWindow) {
        // A double click: the same request, answered with the same game.
        if (last_create_->code.empty())
            ++last_create_->repeats;
        else
            s_.send(proto::to_text(
                proto::GameCreated{last_create_->code, "/g/" + last_create_->code, m.ref}));
        return;
    }
    if (refuse_new_game(m.ref)) return;
    // Correspondence games are counted apart, ten times as many (PROTOCOL.md "Limits").
    const bool slow = m.time_control && m.time_control->correspondence();
    const int max =
        slow ? kCorrespondenceGamesFactor * s_.hub_.cfg.max_games : s_.hub_.cfg.max_games;
    if (s_.hub_.players.count(s_.player_->id, slow) >= std::size_t(max))
        return s_.send_error(Err::TooManyGames,
                             "you already have " + std::to_string(max) +
                                 (slow ? " unfinished correspondence games" : " unfinished games") +
                                 "; finish or cancel one first",
                             m.ref);
    if (s_.player_->bot && m.is_public && !m.to && !m.bot)
        return s_.send_error(Err::BotAccount,
                             "a bot account does not open public games in the lobby: challenge a "
                             "player (\"to\") or make a private game",
                             m.ref);
    if (m.to) {
        if (!s_.player_->account)
            return s_.send_error(Err::AccountRequired, "challenges are for accounts: log in first",
                                 m.ref);
        if (m.bot)
            return s_.send_error(Err::CannotChallenge,
                                 "a challenge is for a player; play the computer without \"to\"",
                                 m.ref);
        if (username_key(*m.to) == username_key(s_.player_->name))
            return s_.send_error(Err::CannotChallenge, "you cannot challenge yourself", m.ref);
    }
    if (m.rated) {
        if (!s_.player_->account)
            return s_.send_error(Err::AccountRequired, "rated games are for accounts: log in first",
                                 m.ref);
        if (m.bot)
            return s_.send_error(Err::NotRatable, "games against the computer are never rated",
                                 m.ref);
        if (!proto::rating_category(m.variant, m.time_control))
            return s_.send_error(Err::NotRatable,
                                 "only the standard and the small board are rated; play this "
                                 "variant casual",
                                 m.ref);
    }
    RoomParams params{m.variant, m.time_control, m.is_public, Side::Silver, false, m.bot, m.rated};
    if (m.color == proto::ColorChoice::Bronze) params.creator_side = Side::Bronze;
    if (m.color == proto::ColorChoice::Random)
        params.creator_side = std::random_device{}() & 1 ? Side::Bronze : Side::Silver;
    if (m.ref) last_create_ = LastCreate{*m.ref, now, "", 0};
    if (m.to) return challenge(std::move(params), *m.to, m.ref);
    create_game(std::move(params), m.ref);
}

// The challenged account is looked up by its username; the game is private, and only it may
// take the free seat. It is told once the game is stored (Room::open).
void GameMaker::challenge(RoomParams params, const std::string& to,
                          std::optional<std::string> ref) {
    params.is_public = false;
    s_.hub_.store->read_account(
        to, s_.executor(),
        [this, keep = s_.self(), params = std::move(params), to,
         ref = std::move(ref)](Read<std::optional<StoredAccount>> r) mutable {
            if (!r.ok() || !*r.value) {
                last_create_.reset();
                if (!r.ok())
                    return s_.send_error(Err::StoreUnavailable,
                                         "the server cannot look players up right now; try "
                                         "again in a moment",
                                         ref);
                return s_.send_error(Err::UnknownPlayer, "no account is called " + to, ref);
            }
            if (auto level = house_bot_level(**r.value)) {
                // A house bot takes every challenge at once: the room's computer plays it.
                params.bot_level = level;
                params.bot_account =
                    Player{(*r.value)->player_id, (*r.value)->username, true, true};
                return create_game(std::move(params), std::move(ref));
            }
            params.invitee_id = (*r.value)->player_id;
            params.invitee_name = (*r.value)->username;
            auto& blocked = s_.hub_.services.blocked;
            if (!blocked) return create_game(std::move(params), std::move(ref));
            const std::string me = s_.player_->id, them = params.invitee_id;
            blocked(
                me, them, s_.executor(),
                [this, keep, params = std::move(params), ref = std::move(ref)](bool no) mutable {
                    if (!no) return create_game(std::move(params), std::move(ref));
                    last_create_.reset();
                    s_.send_error(Err::CannotChallenge,
                                  params.invitee_name + " does not take your challenges", ref);
                });
        });
}

// A game against the computer starts at once: it never waits open and takes no place.
void GameMaker::create_game(RoomParams params, std::optional<std::string> ref) {
    if (params.bot_level) return create_room(std::move(params), std::move(ref));
    params.creator_address = s_.address_key_;
    auto reserve = [this](RoomParams p, std::optional<std::string> r, OpenCounts elsewhere) {
        bool by_address = false;
        p.open_ticket = s_.hub_.players.reserve_open(
            s_.player_->id, p.creator_address, s_.hub_.cfg.max_open_games_per_player,
            s_.hub_.cfg.max_open_games_per_ip, elsewhere, &by_address);
        if (!p.open_ticket) {
            last_create_.reset();
            if (by_address)
                spdlog::warn("{}: create_game refused: {} open games from the address", s_.tag(),
                             s_.hub_.cfg.max_open_games_per_ip);
            return s_.send_error(
                Err::TooManyOpenGames,
                by_address
                    ? "your address has " + std::to_string(s_.hub_.cfg.max_open_games_per_ip) +
                          " games waiting for an opponent already; wait until one starts "
                          "or is cancelled"
                    : "you have " + std::to_string(s_.hub_.cfg.max_open_games_per_player) +
                          " games waiting for an opponent already; cancel one first",
                r);
        }
        create_room(std::move(p), std::move(r));
    };
    s_.hub_.peers->open_elsewhere(
        s_.player_->id, s_.address_key_, s_.executor(),
        [this, keep = s_.self(), reserve, params = std::move(params),
         ref = std::move(ref)](Read<OpenGameCounts> r) mutable {
            if (!r.ok()) {
                last_create_.reset();
                return s_.send_error(Err::StoreUnavailable,
                                     "the server cannot count open games right now; try "
                                     "again in a moment",
                                     ref);
            }
            reserve(std::move(params), std::move(ref), {r.value->player, r.value->address});
        });
}

void GameMaker::create_room(RoomParams params, std::optional<std::string> ref) {
    const std::uint64_t ticket = params.open_ticket;
    s_.hub_.directory.create(
        params, *s_.player_, s_.executor(),
        [this, keep = s_.self(), ref, ticket](std::shared_ptr<Room> room) {
            if (!room) {
                if (ticket) s_.hub_.players.release_open(ticket);
                last_create_.reset();
                return s_.send_error(Err::StoreUnavailable,
                                     "no free game code could be checked (the store cannot be "
                                     "read); try again in a moment",
                                     ref);
            }
            room->open(s_.weak_from_this(),
                       std::make_shared<const std::string>(proto::to_text(
                           proto::GameCreated{room->code(), "/g/" + room->code(), ref})));
            s_.remember(room);
            room->watch(*s_.player_, s_.weak_from_this(), std::nullopt);
            created(room->code(), ref);
        });
}

// The repeats of a create_game that waited for its code get the same answer.
void GameMaker::created(const std::string& code, const std::optional<std::string>& ref) {
    if (!ref || !last_create_ || last_create_->ref != *ref) return;
    last_create_->code = code;
    for (; last_create_->repeats > 0; --last_create_->repeats)
        s_.send(proto::to_text(proto::GameCreated{code, "/g/" + code, ref}));
}

// Pairs with a waiting player of the same pool, or files this player's request (the pairing
// is one atomic step of the matchmaker). The player who completes a pair has the room made and
// tells both: `matched`, then the game's snapshot.
// A rated request waits in the rated pool of its category with the player's rating, and tries
// again every second as its range widens (server/lobby/matchmaker.h).
void GameMaker::quick_match(const proto::QuickMatch& m) {
    if (refuse_new_game()) return;
    if (s_.player_->bot)
        return s_.send_error(Err::BotAccount,
                             "bot accounts do not play quick matches: they play the challenges "
                             "people and bots send them");
    match_req_.reset();  // a new request replaces a waiting one
    std::optional<int> rating;
    if (m.rated) {
        if (!s_.player_->account)
            return s_.send_error(Err::AccountRequired,
                                 "rated games are for accounts: log in first");
        auto category = proto::rating_category(m.variant, m.time_control);
        if (!category)
            return s_.send_error(Err::NotRatable,
                                 "only the standard and the small board are rated; play this "
                                 "variant casual");
        rating = match_rating(m);
    }
    std::string pool = proto::to_json(m).dump();  // canonical variant, time control, rated
    s_.hub_.peers->seek(s_.self(), *s_.player_, m, pool, rating);
}

std::optional<int> GameMaker::match_rating(const proto::QuickMatch& m) {
    auto category = proto::rating_category(m.variant, m.time_control);
    if (!m.rated || !category) return std::nullopt;
    return s_.hub_.ratings.view(s_.player_->id, *category).rating;
}

// The pool's answers (server/session/peers.h: this node's matchmaker, or the cluster's shared
// pool), on any thread.
void GameMaker::match_found(const proto::QuickMatch& m, Seek opponent) {
    boost::asio::post(s_.executor(), [this, keep = s_.self(), m, opponent = std::move(opponent)] {
        match_req_.reset();
        if (match_timer_) match_timer_->cancel();
        make_match(m, opponent);
    });
}

void GameMaker::match_waiting(const proto::QuickMatch& m) {
    boost::asio::post(s_.executor(), [this, keep = s_.self(), m] {
        s_.send(proto::to_text(proto::QuickMatchWaiting{m.variant, m.time_control, m.rated}));
        if (m.rated) {
            match_req_ = m;
            retry_match();
        }
    });
}

void GameMaker::match_waiting_again(const proto::QuickMatch& m) {
    boost::asio::post(s_.executor(), [this, keep = s_.self(), m] {
        if (match_req_ && proto::to_json(*match_req_) == proto::to_json(m)) retry_match();
    });
}

void GameMaker::match_done() {
    boost::asio::post(s_.executor(), [this, keep = s_.self()] {
        match_req_.reset();
        if (match_timer_) match_timer_->cancel();
    });
}

void GameMaker::make_match(const proto::QuickMatch& m, const Seek& opponent) {
    RoomParams params{m.variant, m.time_control, true, Side::Silver, true, std::nullopt, m.rated};
    if (std::random_device{}() & 1) params.creator_side = Side::Bronze;
    s_.hub_.directory.create(
        params, *s_.player_, s_.executor(),
        [this, keep = s_.self(), opponent, params](std::shared_ptr<Room> room) {
            start_match(room, opponent, params.creator_side);
        });
}

void GameMaker::retry_match() {
    if (!match_timer_) match_timer_.emplace(s_.executor());
    match_timer_->expires_after(std::chrono::seconds(1));
    match_timer_->async_wait([this, w = s_.weak_from_this()](boost::system::error_code ec) {
        const auto keep = w.lock();  // `this` lives as long as its session
        if (ec || !keep || !s_.player_ || !match_req_) return;
        s_.hub_.peers->retry_seek(s_.self(), *s_.player_, *match_req_,
                                  proto::to_json(*match_req_).dump(), match_rating(*match_req_));
    });
}

void GameMaker::start_match(const std::shared_ptr<Room>& room, const Seek& opponent, Side my_side) {
    if (!room) {  // the store cannot be read: the waiting player is told too
        const auto msg = "the game could not be created (the store cannot be read); ask again";
        s_.send_error(proto::Err::StoreUnavailable, msg);
        if (auto them = opponent.who.lock())
            them->deliver(std::make_shared<const std::string>(
                proto::to_text(proto::ErrorMsg{proto::Err::StoreUnavailable, msg, {}, {}, {}})));
        return;
    }
    const std::string link = "/g/" + room->code();
    spdlog::info("quick match: {} vs {} in {}", s_.player_->id, opponent.player.id, room->code());
    auto matched = [&](Side s) {
        return std::make_shared<const std::string>(
            proto::to_text(proto::Matched{room->code(), link, s}));
    };
    s_.remember(room);
    room->open(s_.weak_from_this(), matched(my_side));
    room->watch(*s_.player_, s_.weak_from_this(), std::nullopt);
    if (auto them = opponent.who.lock()) them->adopt(room);
    room->join(opponent.player, opponent.who, matched(~my_side));
}

void GameMaker::stop() {
    match_req_.reset();
    if (match_timer_) match_timer_->cancel();
}

void GameMaker::cancel_match() {
    s_.hub_.peers->withdraw(s_.player_->id);
    match_req_.reset();
    if (match_timer_) match_timer_->cancel();
    s_.send(proto::to_text(proto::QuickMatchCancelled{}));
}

}  // namespace tf::server
