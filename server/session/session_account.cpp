// Session handlers for accounts (PROTOCOL.md "Accounts"): register, log in, log out, change the
// password. Each runs in steps off the connection's strand (a store read, a password hash on
// the hub's password threads, an account write) and comes back to it; the connection waits
// meanwhile (later messages are held and answered in order, as behind a hello), so an account
// request is answered before anything sent after it. Every password check passes the login
// limits first (server/accounts/login_limit.h) and finds a place in the password threads' queue or
// is refused try_again (server/accounts/password_pool.h); a new password must pass
// password_weakness().
#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include "server/accounts/password_policy.h"
#include "server/accounts/ratings.h"
#include "server/base/metrics.h"
#include "server/base/secrets.h"
#include "server/room/room.h"
#include "server/session/session.h"

namespace tf::server {

using proto::Err;

namespace {

// Runs `f` on a password thread, then `back` with its result on `ex`; false (nothing runs)
// when the password threads' queue is full.
template <class F, class B>
bool off_thread(Hub& hub, Store::Executor ex, F f, B back) {
    return hub.passwords.submit([f = std::move(f), back = std::move(back),
                                 ex]() mutable -> std::function<void()> {
        auto r = f();
        return [ex, back = std::move(back), r = std::move(r)]() mutable {
            boost::asio::post(
                ex, [back = std::move(back), r = std::move(r)]() mutable { back(std::move(r)); });
        };
    });
}

constexpr const char* kBusy = "the server is busy checking passwords; try again in a few seconds";

// A hash to check unknown usernames against, so that "no such account" takes as long as
// "wrong password" (made once, on the password thread).
const std::string& dummy_hash() {
    static const std::string h = hash_password("not a password anyone has");
    return h;
}

bool check(std::string_view password, const std::optional<StoredAccount>& account) {
    try {
        if (!account) {
            check_password(password, dummy_hash());
            return false;
        }
        return check_password(password, account->pw_hash);
    } catch (const std::exception& e) {
        spdlog::error("password check failed: {}", e.what());
        return false;
    }
}

std::string wait_text(std::int64_t ms) {
    auto minutes = (ms + 59'999) / 60'000;
    return "too many failed attempts; try again in " + std::to_string(minutes) +
           (minutes == 1 ? " minute" : " minutes");
}

}  // namespace

void Session::account_error(Err code, std::string message, const std::optional<std::string>& ref) {
    send_error(code, std::move(message), ref);
    resume();
}

// The store's answer to an account write comes on the store's thread.
static std::function<void(AccountResult)> on(Store::Executor ex,
                                             std::function<void(AccountResult)> back) {
    return [ex, back = std::move(back)](AccountResult r) mutable {
        boost::asio::post(
            ex, [back = std::move(back), r = std::move(r)]() mutable { back(std::move(r)); });
    };
}

// The login limits' word before a password check (logged, with the client's address, for
// fail2ban); true when the check may go ahead.
bool Session::may_check_password(const std::string& account,
                                 const std::optional<std::string>& ref) {
    auto r = hub_.logins.begin(address_, account);
    if (!r) return true;
    spdlog::warn("{}: password check for {} refused: {}", tag(),
                 account.empty() ? std::string("a new account") : account, r->why);
    send_error(Err::TooManyAttempts, wait_text(r->wait_ms), ref);
    return false;
}

void Session::handle(proto::Register& m) {
    if (player_->account)
        return send_error(Err::AlreadyRegistered,
                          "you are logged in as " + player_->name + "; log out to register another",
                          m.ref);
    if (reserved_username(m.username))
        return send_error(Err::BadUsername, "the name " + m.username + " is reserved", m.ref);
    if (auto weak = password_weakness(m.password, m.username))
        return send_error(Err::WeakPassword, *weak, m.ref);
    if (!may_check_password("", m.ref)) return;
    wait();
    // Taken already? Asked first so that a taken name costs no hash (the write checks again).
    hub_.store->read_account(
        m.username, executor(), [self = self(), m](Read<std::optional<StoredAccount>> r) {
            if (!r.ok())
                return self->account_error(Err::StoreUnavailable,
                                           "accounts cannot be read right now; try again", m.ref);
            if (*r.value)
                return self->account_error(Err::UsernameTaken,
                                           "the name " + m.username + " is taken", m.ref);
            auto hashed = [self, m](std::optional<std::string> hash) {
                if (!hash)
                    return self->account_error(
                        Err::Internal, "the password could not be hashed; try again", m.ref);
                AccountWrite w;
                w.kind = AccountWrite::Kind::Register;
                w.player_id = self->player_->id;
                w.username = m.username;
                w.pw_hash = std::move(*hash);
                self->hub_.store->write_account(
                    std::move(w), on(self->executor(), [self, m](AccountResult res) {
                        if (res.conflict)
                            return self->account_error(
                                Err::UsernameTaken, "the name " + m.username + " is taken", m.ref);
                        if (!res.ok) {
                            spdlog::warn("{}: register failed: {}", self->tag(), res.error);
                            return self->account_error(
                                Err::StoreUnavailable,
                                "the account could not be saved: " + res.error, m.ref);
                        }
                        Player p{self->player_->id, m.username, true};
                        spdlog::info("{}: player {} registered as {}", self->tag(), p.id, p.name);
                        self->hub_.identity.rename(p);
                        self->switch_to(p, self->token_, m.ref);
                    }));
            };
            auto hash = [password = m.password]() -> std::optional<std::string> {
                try {
                    return hash_password(password);
                } catch (const std::exception& e) {
                    spdlog::error("password hash failed: {}", e.what());
                    return std::nullopt;
                }
            };
            if (!off_thread(self->hub_, self->executor(), std::move(hash), std::move(hashed)))
                self->account_error(Err::TryAgain, kBusy, m.ref);
        });
}

void Session::handle(proto::Login& m) {
    const std::string key = username_key(m.username);
    if (!may_check_password(key, m.ref)) return;
    wait();
    hub_.store->read_account(
        m.username, executor(), [self = self(), m, key](Read<std::optional<StoredAccount>> r) {
            if (!r.ok())
                return self->account_error(Err::StoreUnavailable,
                                           "accounts cannot be read right now; try again", m.ref);
            auto checked = [self, m, key](std::optional<StoredAccount> account) {
                if (!account) {
                    self->hub_.logins.failed(self->address_, key);
                    spdlog::warn("{}: failed login for {}", self->tag(), key);
                    return self->account_error(Err::BadCredentials, "wrong username or password",
                                               m.ref);
                }
                self->hub_.logins.succeeded(self->address_, key);
                Player p{account->player_id, account->username, true};
                auto issued = self->hub_.identity.make_token(p);
                self->hub_.store->write_account(
                    std::move(issued.write),
                    on(self->executor(), [self, m, p, token = issued.token](AccountResult res) {
                        if (!res.ok)
                            return self->account_error(Err::StoreUnavailable,
                                                       "the login could not be saved: " + res.error,
                                                       m.ref);
                        self->hub_.identity.remember(token, p);
                        spdlog::info("{}: {} logged in", self->tag(), p.name);
                        self->switch_to(p, token, m.ref);
                    }));
            };
            auto check_it = [password = m.password, account = *r.value] {
                return check(password, account) ? account : std::nullopt;
            };
            if (!off_thread(self->hub_, self->executor(), std::move(check_it), std::move(checked)))
                self->account_error(Err::TryAgain, kBusy, m.ref);
        });
}

void Session::handle(proto::Logout& m) {
    if (!player_->account) return send_error(Err::AccountRequired, "you are not logged in", m.ref);
    AccountWrite w;
    w.player_id = player_->id;
    if (m.everywhere) {
        w.kind = AccountWrite::Kind::RevokeTokens;  // every one: selector ""
    } else {
        w.kind = AccountWrite::Kind::RevokeToken;
        w.selector = selector_of(token_);
    }
    wait();
    hub_.store->write_account(
        std::move(w), on(executor(), [self = self(), m](AccountResult res) {
            if (!res.ok)
                return self->account_error(Err::StoreUnavailable,
                                           "the logout could not be saved: " + res.error, m.ref);
            spdlog::info("{}: {} logged out{}", self->tag(), self->player_->name,
                         m.everywhere ? " everywhere" : "");
            if (m.everywhere) {
                self->hub_.identity.forget_player(self->player_->id);
                self->end_others("logged out everywhere");
            } else {
                self->hub_.identity.forget(self->token_);
            }
            auto guest = self->hub_.identity.create("");
            self->switch_to(*guest.player, guest.token, m.ref);
        }));
}

void Session::handle(proto::ChangePassword& m) {
    if (!player_->account) return send_error(Err::AccountRequired, "you are not logged in", m.ref);
    if (auto weak = password_weakness(m.new_password, player_->name))
        return send_error(Err::WeakPassword, *weak, m.ref);
    const std::string key = username_key(player_->name);
    if (!may_check_password(key, m.ref)) return;
    wait();
    hub_.store->read_account(
        player_->name, executor(), [self = self(), m, key](Read<std::optional<StoredAccount>> r) {
            if (!r.ok() || !*r.value)
                return self->account_error(Err::StoreUnavailable,
                                           "accounts cannot be read right now; try again", m.ref);
            auto hashed = [self, m, key](std::optional<std::string> hash) {
                if (!hash) {
                    self->hub_.logins.failed(self->address_, key);
                    spdlog::warn("{}: failed password change for {}", self->tag(), key);
                    return self->account_error(Err::BadCredentials, "the current password is wrong",
                                               m.ref);
                }
                if (hash->empty())
                    return self->account_error(
                        Err::Internal, "the password could not be hashed; try again", m.ref);
                self->hub_.logins.succeeded(self->address_, key);
                AccountWrite w;
                w.kind = AccountWrite::Kind::SetPassword;
                w.player_id = self->player_->id;
                w.pw_hash = std::move(*hash);
                w.selector = selector_of(self->token_);
                self->hub_.store->write_account(
                    std::move(w), on(self->executor(), [self, m](AccountResult res) {
                        if (!res.ok)
                            return self->account_error(
                                Err::StoreUnavailable,
                                "the password could not be saved: " + res.error, m.ref);
                        spdlog::info("{}: {} changed the password", self->tag(),
                                     self->player_->name);
                        self->hub_.identity.forget_player(self->player_->id, self->token_);
                        self->end_others("the password was changed");
                        self->welcome(*self->player_, self->token_, false, m.ref);
                    }));
            };
            // Checks the current password, then hashes the new one: "" when that failed.
            auto rehash = [m, account = *r.value]() -> std::optional<std::string> {
                if (!check(m.password, account)) return std::nullopt;
                try {
                    return hash_password(m.new_password);
                } catch (const std::exception& e) {
                    spdlog::error("password hash failed: {}", e.what());
                    return std::string();
                }
            };
            if (!off_thread(self->hub_, self->executor(), std::move(rehash), std::move(hashed)))
                self->account_error(Err::TryAgain, kBusy, m.ref);
        });
}

// Every other connection of this player ends (its token may be revoked).
void Session::end_others(const std::string& reason) {
    for (auto& c : hub_.players.connections(player_->id))
        if (c.get() != this) c->end(reason);
    hub_.peers->end_player(player_->id, reason);  // and on the other nodes
}

// This connection becomes `p`: it stops watching the rooms it watched as its previous self
// (seats are the player's, not the connection's: they stay), its quick-match request is
// withdrawn, and `welcome` tells who it is now.
void Session::switch_to(const Player& p, const std::string& token, std::optional<std::string> ref) {
    if (player_ && player_->id != p.id) {
        if (match_timer_) match_timer_->cancel();
        auto other = hub_.players.disconnected(player_->id, this);
        hub_.matchmaker.closed(player_->id, this, other);
        std::vector<std::weak_ptr<Room>> rooms;
        {
            std::lock_guard lock(rooms_m_);
            rooms.swap(rooms_);
        }
        for (auto& w : rooms)
            if (auto r = w.lock()) r->leave(this);
    }
    welcome(p, token, false, std::move(ref));
}

}  // namespace tf::server
