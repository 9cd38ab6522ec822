// The transport-independent half of a connection: message credits, strict parsing and the
// dispatch of each client message to the lobby or a room. WebSocket and TCP sessions derive
// from it; they call on_text() on their strand with every complete text message and
// on_closed() once when the connection ends.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/messages.h"
#include "server/base/participant.h"
#include "server/lobby/matchmaker.h"
#include "server/net/credit_bucket.h"
#include "server/session/game_maker.h"
#include "server/session/hub.h"

namespace tf::server {

class Room;
struct RoomParams;

class Session : public Member, public std::enable_shared_from_this<Session> {
  public:
    // `address`: the client's, for the login limits (server/accounts/login_limit.h).
    Session(Hub& hub, std::string address);
    // Thread-safe: ends the connection after the queued messages (or at once when `now`).
    virtual void close(std::string reason, bool now) = 0;
    // Thread-safe: remembers a room this connection was seated in by quick match.
    void adopt(const std::shared_ptr<Room>& room) override;
    void end(std::string reason, bool closed) override;
    // Cluster mode: a game this connection watched moved to another node; the connection
    // closes so that the client reconnects and watches it there (Participant::moved).
    void moved(const std::string& code) override;
    std::uint64_t conn_id() const { return conn_id_; }
    // "ws#12 [203.0.113.5]": how log lines name this connection (its client's address included,
    // for forensics and fail2ban).
    std::string tag() const;
    // Cluster mode: requests that were forwarded for a game that turned out to live here after
    // all (this node claimed it meanwhile): handled here, in order, on this connection's strand.
    void handle_here(std::vector<std::string> texts);
    // A quick-match pairing or a waiting request, as the pool answered (game_maker.h).
    GameMaker& games() { return games_; }
    void relations_changed() override;
    // The accounts blocked either way (see screen_), on the connection's strand.
    const std::vector<std::string>& blocked() const { return screen_.blocked; }

  protected:
    // A message for this connection with the chat lines it may not see taken out (PROTOCOL.md
    // "Follow and block", "Reports and moderation"): those of accounts blocked either way or
    // muted, and a shadow-restricted author's unless it is this player's own. The message
    // itself; one without those lines (a snapshot); a players' line as an event of kind
    // `hidden` (its version kept); null for a spectators' line. On the connection's strand.
    Msg screen(Msg m) const;
    // This connection's strand: where asynchronous answers (store reads) come back to.
    virtual Store::Executor executor() = 0;
    void on_text(std::string_view text);
    // A control message of the transport (a WebSocket ping) costs a credit like a message:
    // false when there was none (answered rate_limited, as a message would be; not answered).
    bool pay_for_control();
    void on_closed();
    void send(std::string text);
    void send_error(proto::Err code, std::string message,
                    std::optional<std::string> ref = std::nullopt,
                    std::optional<std::string> rule = std::nullopt);
    virtual const char* transport() const = 0;
    // The client's address once a trusted proxy named it (before the first message).
    void set_address(std::string address) {
        address_ = std::move(address);
        address_key_ = client_key(address_);
    }
    const std::string& address() const { return address_; }
    // A connection of another node, through the cluster's bus (server/cluster/cluster.cpp): the
    // player is the origin's, requests come already paid for and parsed once there.
    void assume(const Player& p) { player_ = p; }
    // A connection whose player was authenticated otherwise (an access token of the HTTP API):
    // welcomed as a hello with a token would be, with no token to give back.
    void hello_as(const Player& p) { welcome(p, std::string(), true); }
    void forwarded(std::string_view text) { dispatch(text); }
    // A request about a game this node does not hold: true when the connection handled it
    // (a forwarded request tells its origin), false to answer no_such_game.
    virtual bool missing(const std::string& code) {
        (void)code;
        return false;
    }
    // False for connections of other nodes: their requests are never forwarded again.
    virtual bool may_forward() const { return true; }
    // The round trip in ms credited to a turn sent on this connection (PROTOCOL.md "Lag"):
    // what the client reported (`claimed`, TCP), or the server's own measure (WebSocket).
    virtual std::optional<std::int64_t> turn_lag_ms(std::optional<std::int64_t> claimed) const {
        return claimed;
    }
    Hub& hub_;
    const std::uint64_t conn_id_;  // in log lines as transport#id

  private:
    bool take_credit();
    void refuse_uncredited();
    void dispatch(std::string_view text);
    void restored(const Read<std::shared_ptr<const Player>>& r, const std::string& token);
    // This connection is now `p` (token `token`): `welcome`, with the account's ratings for an
    // account (read first, the connection waiting meanwhile).
    void welcome(const Player& p, const std::string& token, bool restored,
                 std::optional<std::string> ref = std::nullopt);
    void send_welcome(const std::optional<proto::AccountInfo>& account,
                      const std::optional<std::string>& ref, std::vector<std::string> games);
    void seated_games(std::function<void(std::vector<std::string>)> then);
    // Messages wait while the connection waits (hello, account requests); this answers them.
    void wait();
    void resume();
    std::shared_ptr<Session> self() {
        return std::static_pointer_cast<Session>(shared_from_this());
    }
    // The room, or no_such_game (with the request's ref) and null.
    std::shared_ptr<Room> find_room(const std::string& code,
                                    const std::optional<std::string>& ref = std::nullopt);
    void remember(const std::shared_ptr<Room>& room);
    void remember_locked(const std::shared_ptr<Room>& room);  // rooms_m_ held

    void handle(proto::Hello& m);
    void hello_guest(const std::string& raw_name);
    // A new guest, welcomed once its row is durable (a token that a crash right after the
    // welcome would forget is no token: PROTOCOL.md "hello"); at once while the store fails.
    void welcome_new_guest(const std::string& name);
    // game_maker.h makes the games.
    friend class GameMaker;
    void handle(proto::CreateGame& m) { games_.create(m); }
    void handle(proto::QuickMatch& m) { games_.quick_match(m); }
    void handle(proto::QuickMatchCancel&) { games_.cancel_match(); }
    void handle(proto::JoinGame& m);
    void handle(proto::CancelGame& m);
    void handle(proto::ListGames& m);
    void handle(proto::Watch& m);
    void handle(proto::SetupMsg& m);
    void handle(proto::TurnMsg& m);
    void handle(proto::Resign& m);
    void handle(proto::Chat& m);
    void handle(proto::Ping& m);
    void handle(proto::ListLive& m);
    void handle(proto::DrawOffer& m);
    void handle(proto::DrawAccept& m);
    void handle(proto::DrawDecline& m);
    void handle(proto::ClaimWin& m);
    void handle(proto::Abort& m);
    void handle(proto::ClaimDraw& m);
    void handle(proto::TakebackOffer& m);
    void handle(proto::TakebackAccept& m);
    void handle(proto::TakebackDecline& m);
    void handle(proto::GiveTime& m);
    void handle(proto::Berserk& m);
    void handle(proto::Preferences& m);
    void handle(proto::Rematch& m);
    void handle(proto::RematchDecline& m);
    void handle(proto::DeclineChallenge& m);
    // session_account.cpp: each request runs as a coroutine (AccountFlow) while the connection
    // waits.
    friend struct AccountFlow;
    void handle(proto::Register& m);
    void handle(proto::Login& m);
    void handle(proto::Logout& m);
    void handle(proto::ChangePassword& m);
    void switch_to(const Player& p, const std::string& token, std::optional<std::string> ref);
    void account_error(proto::Err code, std::string message, const std::optional<std::string>& ref);
    bool may_check_password(const std::string& account, const std::optional<std::string>& ref);
    void end_others(const std::string& reason);

    std::optional<Player> player_;
    std::string token_;  // the token player_ was welcomed with
    // The account's blocks (quick match never pairs it with them), whose chat it does not see,
    // what moderators decided about it (its chat muted or shadowed) and its roles; empty for a
    // guest. Read at every welcome and again when they change (relations_changed); on the
    // connection's strand.
    Screen screen_;
    void read_screen(std::function<void()> then);
    std::string address_;
    std::string address_key_;  // what the per-address limits count it under (conn_limit.h)
    GameMaker games_{*this};
    CreditBucket credits_;
    int floods_ = 0;
    bool lobby_sub_ = false;
    bool hello_pending_ = false;     // a token or an account is being looked up
    std::vector<std::string> held_;  // messages received meanwhile
    static constexpr std::size_t kMaxHeld = 64;
    std::mutex rooms_m_;  // rooms_ and gone_: adopt() comes from other connections' strands
    bool gone_ = false;
    std::vector<std::weak_ptr<Room>> rooms_;  // rooms this connection watches
};

}  // namespace tf::server
