// Session handlers for accounts (PROTOCOL.md "Accounts"): register, log in, log out, change the
// password. Each runs as a coroutine on the connection's strand (AccountFlow), awaiting its
// steps off it: a store read, a password hash or check on the hub's password threads, an
// account write. The connection waits meanwhile (later messages are held and answered in
// order, as behind a hello), so an account request is answered before anything sent after it.
// Every password check passes the login limits first (server/accounts/login_limit.h) and finds
// a place in the password threads' queue or is refused try_again
// (server/accounts/password_pool.h); a new password must pass password_weakness().
#include <spdlog/spdlog.h>

#include <utility>  // before Asio's awaitable.hpp, which uses std::exchange (Boost 1.74)

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "server/accounts/password_policy.h"
#include "server/accounts/ratings.h"
#include "server/base/metrics.h"
#include "server/base/secrets.h"
#include "server/room/room.h"
#include "server/session/session.h"

namespace tf::server {

namespace asio = boost::asio;
using proto::Err;

namespace {

template <class T>
using Task = asio::awaitable<T>;

// A note on the coroutines below (GCC 12): a temporary of a class type inside a co_await
// expression (a lambda with captures, a std::string argument) is destroyed twice there. So
// every awaitable is made first, as a named local, then awaited: `auto a = f(...); auto v =
// co_await std::move(a);`, and the helpers that make them are plain functions, not coroutines.

// A callback-style step as an awaitable: `start(done)` begins it, and whatever thread calls
// `done(value)`, the coroutine goes on with `value` on `ex` (the connection's strand).
template <class T, class Start>
Task<T> step(const Store::Executor& ex, Start start) {
    return asio::async_initiate<const asio::use_awaitable_t<>, void(T)>(
        [start = std::move(start), ex](auto handler) mutable {
            // The store's and the password pool's callbacks are std::function: copyable.
            auto h = std::make_shared<decltype(handler)>(std::move(handler));
            start([ex, h](T value) mutable {
                asio::post(ex, [h, value = std::move(value)]() mutable { (*h)(std::move(value)); });
            });
        },
        asio::use_awaitable);
}

// `job` on a password thread; nothing when the password threads' queue is full (try_again).
template <class T>
Task<std::optional<T>> on_password_thread(Hub& hub, const Store::Executor& ex,
                                          std::function<T()> job) {
    return step<std::optional<T>>(
        ex, [&hub, job = std::move(job)](std::function<void(std::optional<T>)> done) {
            const bool queued = hub.passwords.submit([job, done]() -> std::function<void()> {
                auto r = job();
                return [done, r = std::move(r)] { done(std::move(r)); };
            });
            if (!queued) done(std::nullopt);
        });
}

Task<Read<std::optional<StoredAccount>>> read_account(Hub& hub, const Store::Executor& ex,
                                                      std::string username) {
    return step<Read<std::optional<StoredAccount>>>(
        ex, [&hub, username = std::move(username),
             ex](std::function<void(Read<std::optional<StoredAccount>>)> done) {
            hub.store->read_account(username, ex, std::move(done));
        });
}

Task<AccountResult> write_account(Hub& hub, const Store::Executor& ex, AccountWrite w) {
    return step<AccountResult>(
        ex, [&hub, w = std::move(w)](std::function<void(AccountResult)> done) mutable {
            hub.store->write_account(std::move(w), std::move(done));
        });
}

// Whether a moderator closed the account (false with no social tables: --store memory).
Task<Read<bool>> read_closed(Hub& hub, const Store::Executor& ex, std::string player_id) {
    return step<Read<bool>>(ex, [&hub, ex,
                                 id = std::move(player_id)](std::function<void(Read<bool>)> done) {
        if (!hub.social) return done(Read<bool>{std::optional<bool>(false), {}});
        hub.social->run<bool>([id](SocialDb& db) { return db.moderation().standing(id).closed; },
                              ex, std::move(done), false);
    });
}

constexpr const char* kBusy = "the server is busy checking passwords; try again in a few seconds";

// A new password's hash (Argon2id); nothing when hashing failed (logged). Password threads.
std::optional<std::string> new_hash(const std::string& password) {
    try {
        return hash_password(password);
    } catch (const std::exception& e) {
        spdlog::error("password hash failed: {}", e.what());
        return std::nullopt;
    }
}

// A hash to check unknown usernames against, so that "no such account" takes as long as
// "wrong password" (made once, on the password thread).
const std::string& dummy_hash() {
    static const std::string h = hash_password("not a password anyone has");
    return h;
}

// Whether `password` is the account's (false for no account, after as long). Password threads.
bool matches(std::string_view password, const std::optional<StoredAccount>& account) {
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

// The account requests, one coroutine each, on the connection's strand. Each ends in exactly
// one answer: switch_to/welcome, or fail() (account_error, which also resumes the connection).
struct AccountFlow {
    using S = std::shared_ptr<Session>;

    static void fail(const S& s, Err code, const std::string& message,
                     const std::optional<std::string>& ref) {
        s->account_error(code, message, ref);
    }
    // Answers store_unavailable when the accounts could not be read (`read` false); true then.
    static bool unreadable(const S& s, bool read, const std::optional<std::string>& ref) {
        if (!read)
            fail(s, Err::StoreUnavailable, "accounts cannot be read right now; try again", ref);
        return !read;
    }

    static Task<void> register_account(S s, proto::Register m) {
        const Store::Executor ex = s->executor();
        // Taken already? Asked first so that a taken name costs no hash (the write checks again).
        auto read = read_account(s->hub_, ex, m.username);
        auto r = co_await std::move(read);
        if (unreadable(s, r.ok(), m.ref)) co_return;
        if (*r.value) {
            fail(s, Err::UsernameTaken, "the name " + m.username + " is taken", m.ref);
            co_return;
        }
        std::function<std::optional<std::string>()> job = [password = m.password] {
            return new_hash(password);
        };
        auto hashing = on_password_thread(s->hub_, ex, std::move(job));
        auto hash = co_await std::move(hashing);
        if (!hash) {
            fail(s, Err::TryAgain, kBusy, m.ref);
            co_return;
        }
        if (!*hash) {
            fail(s, Err::Internal, "the password could not be hashed; try again", m.ref);
            co_return;
        }
        AccountWrite w;
        w.kind = AccountWrite::Kind::Register;
        w.player_id = s->player_->id;
        w.username = m.username;
        w.pw_hash = std::move(**hash);
        auto writing = write_account(s->hub_, ex, std::move(w));
        auto res = co_await std::move(writing);
        if (res.conflict) {
            fail(s, Err::UsernameTaken, "the name " + m.username + " is taken", m.ref);
            co_return;
        }
        if (!res.ok) {
            spdlog::warn("{}: register failed: {}", s->tag(), res.error);
            fail(s, Err::StoreUnavailable, "the account could not be saved: " + res.error, m.ref);
            co_return;
        }
        Player p{s->player_->id, m.username, true};
        spdlog::info("{}: player {} registered as {}", s->tag(), p.id, p.name);
        s->hub_.identity.rename(p);
        s->switch_to(p, s->token_, m.ref);
    }

    static Task<void> login(S s, proto::Login m, std::string key) {
        const Store::Executor ex = s->executor();
        auto read = read_account(s->hub_, ex, m.username);
        auto r = co_await std::move(read);
        if (unreadable(s, r.ok(), m.ref)) co_return;
        std::function<bool()> job = [password = m.password, account = *r.value] {
            return matches(password, account);
        };
        auto checking = on_password_thread(s->hub_, ex, std::move(job));
        auto right = co_await std::move(checking);
        if (!right) {
            fail(s, Err::TryAgain, kBusy, m.ref);
            co_return;
        }
        if (!*right) {
            s->hub_.logins.failed(s->address_, key);
            spdlog::warn("{}: failed login for {}", s->tag(), key);
            fail(s, Err::BadCredentials, "wrong username or password", m.ref);
            co_return;
        }
        s->hub_.logins.succeeded(s->address_, key);
        const StoredAccount& account = **r.value;
        auto reading = read_closed(s->hub_, ex, account.player_id);
        auto closed = co_await std::move(reading);
        if (unreadable(s, closed.ok(), m.ref)) co_return;
        if (*closed.value) {
            spdlog::warn("{}: login to the closed account {}", s->tag(), account.username);
            fail(s, Err::AccountClosed, "this account was closed by a moderator", m.ref);
            co_return;
        }
        Player p{account.player_id, account.username, true};
        auto issued = s->hub_.identity.make_token(p);
        auto writing = write_account(s->hub_, ex, std::move(issued.write));
        auto res = co_await std::move(writing);
        if (!res.ok) {
            fail(s, Err::StoreUnavailable, "the login could not be saved: " + res.error, m.ref);
            co_return;
        }
        s->hub_.identity.remember(issued.token, p);
        spdlog::info("{}: {} logged in", s->tag(), p.name);
        s->switch_to(p, issued.token, m.ref);
    }

    static Task<void> logout(S s, proto::Logout m, AccountWrite w) {
        const Store::Executor ex = s->executor();
        auto writing = write_account(s->hub_, ex, std::move(w));
        auto res = co_await std::move(writing);
        if (!res.ok) {
            fail(s, Err::StoreUnavailable, "the logout could not be saved: " + res.error, m.ref);
            co_return;
        }
        spdlog::info("{}: {} logged out{}", s->tag(), s->player_->name,
                     m.everywhere ? " everywhere" : "");
        if (m.everywhere) {
            s->hub_.identity.forget_player(s->player_->id);
            s->end_others("logged out everywhere");
        } else {
            s->hub_.identity.forget(s->token_);
        }
        auto guest = s->hub_.identity.create("");
        s->switch_to(*guest.player, guest.token, m.ref);
    }

    // The current password checked and the new one hashed in one go on a password thread.
    struct Checked {
        bool right = false;
        std::optional<std::string> hash;
    };

    static Task<void> change_password(S s, proto::ChangePassword m, std::string key) {
        const Store::Executor ex = s->executor();
        auto read = read_account(s->hub_, ex, s->player_->name);
        auto r = co_await std::move(read);
        if (unreadable(s, r.ok() && *r.value, m.ref)) co_return;
        std::function<Checked()> job = [m, account = *r.value] {
            if (!matches(m.password, account)) return Checked{};
            return Checked{true, new_hash(m.new_password)};
        };
        auto checking = on_password_thread(s->hub_, ex, std::move(job));
        auto c = co_await std::move(checking);
        if (!c) {
            fail(s, Err::TryAgain, kBusy, m.ref);
            co_return;
        }
        if (!c->right) {
            s->hub_.logins.failed(s->address_, key);
            spdlog::warn("{}: failed password change for {}", s->tag(), key);
            fail(s, Err::BadCredentials, "the current password is wrong", m.ref);
            co_return;
        }
        if (!c->hash) {
            fail(s, Err::Internal, "the password could not be hashed; try again", m.ref);
            co_return;
        }
        s->hub_.logins.succeeded(s->address_, key);
        AccountWrite w;
        w.kind = AccountWrite::Kind::SetPassword;
        w.player_id = s->player_->id;
        w.pw_hash = std::move(*c->hash);
        w.selector = selector_of(s->token_);
        auto writing = write_account(s->hub_, ex, std::move(w));
        auto res = co_await std::move(writing);
        if (!res.ok) {
            fail(s, Err::StoreUnavailable, "the password could not be saved: " + res.error, m.ref);
            co_return;
        }
        spdlog::info("{}: {} changed the password", s->tag(), s->player_->name);
        s->hub_.identity.forget_player(s->player_->id, s->token_);
        s->end_others("the password was changed");
        s->welcome(*s->player_, s->token_, false, m.ref);
    }

    // Starts a flow on the connection's strand; the connection waits until it answers.
    static void start(Session& s, Task<void> flow) {
        s.wait();
        asio::co_spawn(s.executor(), std::move(flow), asio::detached);
    }
};

void Session::account_error(Err code, std::string message, const std::optional<std::string>& ref) {
    send_error(code, std::move(message), ref);
    resume();
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
    AccountFlow::start(*this, AccountFlow::register_account(self(), m));
}

void Session::handle(proto::Login& m) {
    std::string key = username_key(m.username);
    if (!may_check_password(key, m.ref)) return;
    AccountFlow::start(*this, AccountFlow::login(self(), m, std::move(key)));
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
    AccountFlow::start(*this, AccountFlow::logout(self(), m, std::move(w)));
}

void Session::handle(proto::ChangePassword& m) {
    if (!player_->account) return send_error(Err::AccountRequired, "you are not logged in", m.ref);
    if (auto weak = password_weakness(m.new_password, player_->name))
        return send_error(Err::WeakPassword, *weak, m.ref);
    std::string key = username_key(player_->name);
    if (!may_check_password(key, m.ref)) return;
    AccountFlow::start(*this, AccountFlow::change_password(self(), m, std::move(key)));
}

// Every other connection of this player ends (its token may be revoked).
void Session::end_others(const std::string& reason) {
    for (auto& c : hub_.players.connections(player_->id))
        if (c.get() != this) c->end(reason, false);
    hub_.peers->end_player(player_->id, reason, false);  // and on the other nodes
}

// This connection becomes `p`: it stops watching the rooms it watched as its previous self
// (seats are the player's, not the connection's: they stay), its quick-match request is
// withdrawn, and `welcome` tells who it is now.
void Session::switch_to(const Player& p, const std::string& token, std::optional<std::string> ref) {
    if (player_ && player_->id != p.id) {
        games_.stop();
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
