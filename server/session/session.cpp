#include "server/session/session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <random>

#include "server/accounts/display_name.h"
#include "server/accounts/house_bots.h"
#include "server/base/metrics.h"
#include "server/base/time.h"
#include "server/room/room.h"

namespace tf::server {

using proto::Err;

namespace {
std::atomic<std::uint64_t> next_conn_id{1};
}  // namespace

Session::Session(Hub& hub, std::string address)
    : hub_(hub),
      conn_id_(next_conn_id++),
      address_(std::move(address)),
      address_key_(client_key(address_)),
      credits_(hub.cfg.rate_burst, std::chrono::steady_clock::now()) {}

std::string Session::tag() const {
    return fmt::format("{}#{} [{}]", transport(), conn_id_, address_);
}

// Another connection of this player revoked the tokens: this one is told, then closed.
void Session::end(std::string reason, bool closed) {
    send(proto::to_text(proto::ErrorMsg{closed ? Err::AccountClosed : Err::BadToken,
                                        "signed out: " + reason + (closed ? "" : "; sign in again"),
                                        {},
                                        std::nullopt,
                                        {}}));
    close(std::move(reason), false);
}

void Session::send(std::string text) {
    deliver(std::make_shared<const std::string>(std::move(text)));
}

void Session::send_error(Err code, std::string message, std::optional<std::string> ref,
                         std::optional<std::string> rule) {
    metrics().reject(code);
    send(proto::to_text(
        proto::ErrorMsg{code, std::move(message), std::move(ref), std::nullopt, std::move(rule)}));
}

// Token bucket, checked before parsing. A client that keeps sending while out of credits
// is disconnected.
bool Session::take_credit() {
    if (!credits_.take(hub_.cfg.rate_per_second, hub_.cfg.rate_burst,
                       std::chrono::steady_clock::now()))
        return false;
    floods_ = 0;
    return true;
}

// A message (or ping) that found no credit: rate_limited, and a connection that goes on
// sending without credits is closed.
void Session::refuse_uncredited() {
    if (++floods_ > int(hub_.cfg.rate_burst) + 1) return;  // closing: read and dropped
    spdlog::warn("{}: rate limited", tag());
    send_error(Err::RateLimited, "too many messages; slow down");
    if (floods_ > hub_.cfg.rate_burst) {
        spdlog::warn("{}: flooding, disconnecting", tag());
        send_error(Err::Flooding, "kept sending without credits; disconnecting");
        close("flood", false);
    }
}

bool Session::pay_for_control() {
    if (take_credit()) return true;
    refuse_uncredited();
    return false;
}

void Session::on_text(std::string_view text) {
    ++metrics().messages_in;
    if (!take_credit()) return refuse_uncredited();
    // While a hello waits for its token to be looked up (or an account request for the store
    // or the password hash), what follows waits with it (it was paid for with credits
    // already): answered in order once the hello is.
    if (hello_pending_) {
        if (held_.size() >= kMaxHeld) {
            spdlog::warn("{}: {} messages behind a pending hello, disconnecting", tag(),
                         held_.size());
            return close("flood", false);
        }
        held_.emplace_back(text);
        return;
    }
    dispatch(text);
}

void Session::dispatch(std::string_view text) {
    auto parsed = proto::parse_client(text);
    if (auto* e = std::get_if<proto::Error>(&parsed)) {
        spdlog::warn("{}: bad message ({}): {}", tag(), proto::err_name(e->code), e->message);
        return send_error(e->code, e->message, e->ref, e->rule);
    }
    auto& msg = std::get<proto::ClientMsg>(parsed);
    if (!player_ && !std::holds_alternative<proto::Hello>(msg) &&
        !std::holds_alternative<proto::Ping>(msg))
        return send_error(Err::HelloRequired, "send hello first");
    // A turn carries the lag this connection credits (the measure of the origin node, when
    // another node holds the game).
    std::string with_lag;
    if (auto* t = std::get_if<proto::TurnMsg>(&msg)) {
        if (auto lag = turn_lag_ms(t->lag_ms); lag != t->lag_ms) {
            t->lag_ms = lag;
            with_lag = proto::to_json(*t).dump();
            text = with_lag;
        }
    }
    // A request about a game another node holds goes to that node as it came.
    if (may_forward())
        if (auto code = proto::game_of(msg);
            code && hub_.peers->forward(self(), *player_, *code, std::string(text), msg))
            return;
    std::visit([this](auto& m) { handle(m); }, msg);
}

void Session::handle_here(std::vector<std::string> texts) {
    boost::asio::post(executor(), [self = self(), texts = std::move(texts)] {
        for (const auto& t : texts) self->dispatch(t);
    });
}

void Session::moved(const std::string& code) {
    spdlog::info("{}: game {} moved to another node; closing so the client reconnects", tag(),
                 code);
    close("moved", false);
}

void Session::on_closed() {
    hub_.peers->closed(*this, player_ ? player_->id : std::string());
    games_.stop();
    if (lobby_sub_) hub_.listings.unsubscribe(this);
    if (player_) {
        auto other = hub_.players.disconnected(player_->id, this);
        hub_.matchmaker.closed(player_->id, this, other);
    }
    std::vector<std::weak_ptr<Room>> rooms;
    {
        std::lock_guard lock(rooms_m_);
        gone_ = true;
        rooms.swap(rooms_);
    }
    for (auto& w : rooms)
        if (auto r = w.lock()) r->leave(this);
}

void Session::handle(proto::Hello& m) {
    if (player_) return send_error(Err::AlreadyHello, "hello was already accepted");
    if (m.version != proto::kProtocolVersion)
        return send_error(Err::UnsupportedVersion,
                          "unsupported protocol version; supported versions: [1]");
    if (!m.token) return hello_guest(m.name.value_or(""));
    wait();
    hub_.identity.restore(*m.token, executor(),
                          [self = self(), token = *m.token](Read<std::shared_ptr<const Player>> r) {
                              self->restored(r, token);
                          });
}

// A new guest. Its name is cleaned (server/accounts/display_name.h); one that a reserved name or an
// account's username has (compared by key: NFKC, case-folded) is refused, bad_name, and the
// connection may send another hello. The account's existence is read from the store meanwhile
// (the connection waits as behind a token).
void Session::hello_guest(const std::string& raw) {
    std::string why;
    auto name = clean_display_name(raw, why);
    if (!name) return send_error(Err::BadName, why);
    const std::string key = name_key(*name);
    if (!name->empty() && reserved_guest_name(key))
        return send_error(Err::BadName, "the name " + *name + " is reserved; choose another");
    if (name->empty() || !proto::is_username(key)) return welcome_new_guest(*name);
    wait();
    hub_.store->read_account(
        key, executor(), [self = self(), name = *name](Read<std::optional<StoredAccount>> r) {
            if (!r.ok()) {
                self->send_error(Err::StoreUnavailable,
                                 "names cannot be checked right now; try again in a moment");
                return self->resume();
            }
            if (*r.value) {
                self->send_error(Err::BadName, "the name " + name +
                                                   " belongs to an account: log in, or choose "
                                                   "another name");
                return self->resume();
            }
            self->welcome_new_guest(name);
        });
}

void Session::welcome_new_guest(const std::string& name) {
    if (!hub_.store->healthy()) {
        auto issued = hub_.identity.create(name);
        return welcome(*issued.player, issued.token, false);
    }
    wait();
    // The store may answer before create() returns: the welcome is posted to this connection's
    // executor, after `issued` is filled.
    auto issued = std::make_shared<Identity::Issued>();
    *issued =
        hub_.identity.create(name, [self = self(), issued](const std::optional<std::string>&) {
            boost::asio::post(self->executor(), [self, issued] {
                self->welcome(*issued->player, issued->token, false);
            });
        });
}

void Session::wait() {
    hello_pending_ = true;
}

// The connection stops waiting: the messages held meanwhile are answered in order, until one
// of them makes it wait again.
void Session::resume() {
    hello_pending_ = false;
    auto held = std::move(held_);
    held_.clear();
    for (auto& text : held) {
        if (hello_pending_) {
            held_.push_back(std::move(text));
            continue;
        }
        dispatch(text);
    }
}

// The token's lookup came back (on this connection's strand).
void Session::restored(const Read<std::shared_ptr<const Player>>& r, const std::string& token) {
    if (!r.ok()) {
        spdlog::warn("{}: token lookup failed: {}", tag(), r.error);
        send_error(Err::StoreUnavailable,
                   "your session token cannot be checked right now (the server's store is "
                   "failing); keep it and try again in a moment");
    } else if (!*r.value) {
        spdlog::warn("{}: bad token", tag());
        send_error(Err::BadToken, "unknown or expired session token");
    } else {
        return welcome(**r.value, token, true);  // resumes once sent
    }
    resume();
}

void Session::welcome(const Player& p, const std::string& token, bool restored,
                      std::optional<std::string> ref) {
    {
        // Closed while the welcome waited (a token read, a new guest's row): nobody to welcome,
        // and nothing to put in the player index that on_closed() would never take out.
        std::lock_guard lock(rooms_m_);
        if (gone_) return;
    }
    player_ = p;
    token_ = token;
    spdlog::info("{}: hello from {} {}{}", tag(), p.account ? "account" : "player",
                 p.account ? p.name : p.id, restored ? " (token restored)" : "");
    hub_.players.connected(player_->id, self());
    if (!p.account) {
        wait();
        return seated_games([self = self(), ref](std::vector<std::string> games) {
            self->send_welcome(std::nullopt, ref, std::move(games));
            self->resume();
        });
    }
    wait();
    hub_.store->read_ratings(
        p.id, executor(),
        [self = self(), id = p.id, ref = std::move(ref)](Read<std::vector<StoredRating>> r) {
            if (!self->player_ || self->player_->id != id) return self->resume();
            if (r.ok()) self->hub_.ratings.set(id, *r.value);
            // Unreadable ratings: the last ones seen (the store's trouble is not the login's).
            self->seated_games([self, id, ref](std::vector<std::string> games) {
                if (!self->player_ || self->player_->id != id) return self->resume();
                // Its blocks before anything it asks is answered (its chat is screened).
                self->read_screen([self, id, ref, games = std::move(games)]() mutable {
                    if (!self->player_ || self->player_->id != id) return self->resume();
                    self->send_welcome(
                        proto::AccountInfo{self->player_->name, self->hub_.ratings.views(id),
                                           self->screen_.roles},
                        ref, std::move(games));
                    self->resume();
                });
            });
        });
}

// The unfinished games the player holds a seat in (every node's).
void Session::seated_games(std::function<void(std::vector<std::string>)> then) {
    hub_.peers->seated_games(player_->id, executor(), std::move(then));
}

void Session::send_welcome(const std::optional<proto::AccountInfo>& account,
                           const std::optional<std::string>& ref, std::vector<std::string> games) {
    proto::Welcome w{player_->id, token_, player_->name, std::move(games)};
    w.account = account;
    w.ref = ref;
    send(proto::to_text(w));
    if (!account) screen_ = {};  // a guest now (a logout)
}

void Session::read_screen(std::function<void()> then) {
    if (!player_ || !player_->account || !hub_.social) {
        screen_ = {};
        if (then) then();
        return;
    }
    hub_.social->run<Screen>(
        [id = player_->id](SocialDb& db) { return db.screen(id); }, executor(),
        [w = weak_from_this(), id = player_->id, then](Read<Screen> r) {
            auto self = std::static_pointer_cast<Session>(w.lock());
            if (!self) return;
            if (self->player_ && self->player_->id == id) {
                if (r.ok()) {
                    self->screen_ = std::move(*r.value);
                    const auto& roles = self->screen_.roles;
                    self->player_->bot =
                        std::find(roles.begin(), roles.end(), "bot") != roles.end();
                } else
                    spdlog::warn("{}: the player's blocks and standing cannot be read: {}",
                                 self->tag(), r.error);
            }
            if (then) then();
        },
        false);
}

void Session::relations_changed() {
    boost::asio::post(executor(), [self = self()] { self->read_screen({}); });
}

Msg Session::screen(Msg m) const {
    if (!m) return m;
    const bool flagged = m->find(R"("hidden":true)") != std::string::npos;
    if (screen_.unheard.empty() && !flagged) return m;
    const bool chat_event = m->find(R"("kind":"chat")") != std::string::npos;
    const bool snapshot_chat = m->rfind(R"({"chat":[{)", 0) == 0;
    if (!chat_event && !snapshot_chat) return m;
    auto j = nlohmann::json::parse(*m, nullptr, false);
    const std::string me = player_ ? player_->id : std::string();
    auto author = [](const nlohmann::json& line) {
        const auto* from = line.is_object() && line.contains("from") ? &line["from"] : nullptr;
        return from && from->is_object() && from->contains("id") && (*from)["id"].is_string()
                   ? (*from)["id"].get<std::string>()
                   : std::string();
    };
    // A line this connection does not see; its own shadowed lines lose the flag.
    auto unseen = [&](nlohmann::json& line) {
        const std::string from = author(line);
        if (line.is_object() && line.value("hidden", false)) {
            if (from != me) return true;
            line.erase("hidden");
        }
        return std::binary_search(screen_.unheard.begin(), screen_.unheard.end(), from);
    };
    if (j.is_object() && j.value("type", "") == "event" && j.value("kind", "") == "chat") {
        auto& line = j["payload"];
        if (!unseen(line)) return flagged ? std::make_shared<const std::string>(j.dump()) : m;
        if (line.value("room", "players") == "spectators") return nullptr;
        j["kind"] = "hidden";
        j["payload"] = nlohmann::json::object();
        return std::make_shared<const std::string>(j.dump());
    }
    if (j.is_object() && j.value("type", "") == "snapshot" && j.contains("chat") &&
        j["chat"].is_array()) {
        auto& lines = j["chat"];
        const auto before = lines.size();
        lines.erase(std::remove_if(lines.begin(), lines.end(), unseen), lines.end());
        if (lines.size() != before || flagged) return std::make_shared<const std::string>(j.dump());
    }
    return m;
}

std::shared_ptr<Room> Session::find_room(const std::string& code,
                                         const std::optional<std::string>& ref) {
    auto room = hub_.directory.find(code);
    if (!room && !missing(code)) send_error(Err::NoSuchGame, "no game with code " + code, ref);
    return room;
}

void Session::remember(const std::shared_ptr<Room>& room) {
    std::lock_guard lock(rooms_m_);
    remember_locked(room);
}

// rooms_ is only for leave() when the connection closes: a room that no longer exists (removed
// after its retention period) is dropped here, so a connection that plays game after game keeps
// a short list. Compared by owner, which needs no lock() (no reference count taken per entry).
void Session::remember_locked(const std::shared_ptr<Room>& room) {
    bool known = false;
    std::erase_if(rooms_, [&](const std::weak_ptr<Room>& w) {
        if (w.expired()) return true;
        if (!w.owner_before(room) && !room.owner_before(w)) known = true;
        return false;
    });
    if (!known) rooms_.push_back(room);
}

// New games are refused while the store cannot write: they would be accepted and then lost.
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

void Session::handle(proto::JoinGame& m) {
    if (auto room = find_room(m.code)) {
        remember(room);
        room->join(*player_, weak_from_this());
    }
}

void Session::handle(proto::CancelGame& m) {
    if (auto room = find_room(m.code)) room->cancel(*player_, weak_from_this());
}

void Session::handle(proto::ListGames&) {
    lobby_sub_ = true;
    hub_.listings.subscribe_open(shared_from_this());
}

void Session::handle(proto::Watch& m) {
    if (auto room = find_room(m.code)) {
        remember(room);
        room->watch(*player_, weak_from_this(), m.since_version);
    }
}

void Session::handle(proto::SetupMsg& m) {
    if (auto room = find_room(m.game, m.ref)) room->setup(*player_, weak_from_this(), std::move(m));
}

void Session::handle(proto::TurnMsg& m) {
    if (auto room = find_room(m.game, m.ref)) room->turn(*player_, weak_from_this(), std::move(m));
}

void Session::handle(proto::Resign& m) {
    if (auto room = find_room(m.game, m.ref)) room->resign(*player_, weak_from_this(), m.ref);
}

// An account's line waits for its standing, read fresh from the store: a moderator's mute or
// shadow holds from the moment it is answered, also for a line another node forwarded here
// (its stand-in session has no screen of its own). When the social thread has too many
// requests waiting, the connection's own copy decides.
void Session::handle(proto::Chat& m) {
    auto said = [this, game = m.game, text = std::move(m.text),
                 ref = m.ref](const Standing& standing) {
        if (standing.chat_muted_until > epoch_ms())
            return send_error(Err::ChatMuted,
                              "a moderator muted your chat until " +
                                  utc_minute(standing.chat_muted_until) + " UTC",
                              ref);
        if (auto room = find_room(game, ref))
            room->chat(*player_, weak_from_this(), text, standing.shadow, ref);
    };
    if (!player_->account || !hub_.social) return said(Standing{});
    const bool queued = hub_.social->run<Standing>(
        [id = player_->id](SocialDb& db) { return db.moderation().standing(id); }, executor(),
        [self = self(), id = player_->id, said](Read<Standing> r) {
            if (!self->player_ || self->player_->id != id) return;
            said(r.ok() ? *r.value : self->screen_.standing);
        });
    if (!queued) said(screen_.standing);
}

void Session::handle(proto::DrawOffer& m) {
    if (auto room = find_room(m.game, m.ref))
        room->draw(*player_, weak_from_this(), Room::DrawAct::Offer, m.ref);
}

void Session::handle(proto::DrawAccept& m) {
    if (auto room = find_room(m.game, m.ref))
        room->draw(*player_, weak_from_this(), Room::DrawAct::Accept, m.ref);
}

void Session::handle(proto::DrawDecline& m) {
    if (auto room = find_room(m.game, m.ref))
        room->draw(*player_, weak_from_this(), Room::DrawAct::Decline, m.ref);
}

void Session::handle(proto::ClaimWin& m) {
    if (auto room = find_room(m.game)) room->claim_win(*player_, weak_from_this());
}

void Session::handle(proto::ClaimDraw& m) {
    if (auto room = find_room(m.game)) room->claim_draw(*player_, weak_from_this());
}

void Session::handle(proto::Abort& m) {
    if (auto room = find_room(m.game)) room->abort(*player_, weak_from_this());
}

void Session::handle(proto::TakebackOffer& m) {
    if (auto room = find_room(m.game))
        room->takeback(*player_, weak_from_this(), Room::DrawAct::Offer);
}

void Session::handle(proto::TakebackAccept& m) {
    if (auto room = find_room(m.game))
        room->takeback(*player_, weak_from_this(), Room::DrawAct::Accept);
}

void Session::handle(proto::TakebackDecline& m) {
    if (auto room = find_room(m.game))
        room->takeback(*player_, weak_from_this(), Room::DrawAct::Decline);
}

void Session::handle(proto::Berserk& m) {
    if (auto room = find_room(m.game)) room->berserk(*player_, weak_from_this());
}

void Session::handle(proto::GiveTime& m) {
    if (auto room = find_room(m.game)) room->give_time(*player_, weak_from_this());
}

void Session::handle(proto::Preferences& m) {
    if (auto room = find_room(m.game)) room->preferences(*player_, weak_from_this(), m);
}

void Session::handle(proto::Rematch& m) {
    if (auto room = find_room(m.game)) room->rematch(*player_, weak_from_this(), false);
}

void Session::handle(proto::DeclineChallenge& m) {
    if (auto room = find_room(m.game)) room->decline(*player_, weak_from_this(), m.reason);
}

void Session::handle(proto::RematchDecline& m) {
    if (auto room = find_room(m.game)) room->rematch(*player_, weak_from_this(), true);
}

void Session::handle(proto::Ping&) {
    send(proto::to_text(proto::Pong{}));
}

}  // namespace tf::server
