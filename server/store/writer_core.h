// What the two durable stores (sqlite_store.cpp, pg_store.cpp) share around their SQL: the
// queued write operation, the report of its outcome (callback, statistics, metrics, the log),
// the players kept from failed writes, health and the fault episodes with their backoff, and
// the mapping of a game's row. Each store keeps only its threading, its SQL and its
// connections. Not thread-safe except where said: the store's writer (its thread, or its
// io_context) owns it; stats(), pending() and healthy() may be read from any thread.
#pragma once

#include "server/store/store.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tf::server {

// One queued write: a room operation's rows, a new player, or an account request.
struct WriteOp {
    using Clock = std::chrono::steady_clock;

    GameWrite write;
    std::optional<StoredPlayer> player;
    Store::Done done;
    Clock::time_point queued = Clock::now();
    std::optional<AccountWrite> account = {};
    std::function<void(AccountResult)> account_done = {};
    int attempts = 0;            // PostgreSQL: a rating written meanwhile, computed again
    bool already_rated = false;  // PostgreSQL: the rating history holds this game already

    static WriteOp game(GameWrite w, Store::Done done);
    static WriteOp new_player(StoredPlayer p, Store::Done done = {});
    static WriteOp account_request(AccountWrite w, std::function<void(AccountResult)> done);
    // "game ABCD", "player p1", ...: for the log.
    std::string what() const;
};

class WriterCore {
  public:
    using Clock = WriteOp::Clock;

    // `retrying` says in the first log line of an episode what the store does about it.
    WriterCore(std::chrono::milliseconds first_backoff, std::chrono::milliseconds max_backoff,
               std::string retrying);

    // Counts an operation in pending() until report() answers it.
    void queued() { ++pending_; }
    // One operation's outcome, to its callback; counted in stats and metrics. A failed
    // operation's new player is kept (unsaved_players) to be written with a later one. Faults
    // are logged once per episode (failed()); an operation's own error is a bug, logged every
    // time (a refused account request is no bug: it is only answered).
    void report(WriteOp& op, const std::optional<std::string>& err, bool fault);
    // One transaction committed (or, for SQLite, tried).
    void count_commit();

    // A fault: the first one of an episode is logged (naming what failed and why), the others
    // counted; the backoff grows (100 ms-ish doubling to the maximum, and it goes on growing
    // when the store fails again within a minute of recovering, logged at most once a minute).
    void failed(const std::string& what, const std::string& why, int operations);
    // A write succeeded: ends the episode, if any (true then), and logs how long it lasted.
    bool succeeded();
    std::chrono::milliseconds backoff() const { return backoff_; }
    // The error of the last fault: what an operation refused during the backoff is told.
    const std::string& last_error() const { return last_error_; }

    bool healthy() const { return healthy_.load(); }
    std::size_t pending() const { return pending_.load(); }
    Store::Stats stats();

    // Players whose insert failed, written with every later transaction until one commits.
    std::vector<StoredPlayer> unsaved_players;

  private:
    const std::chrono::milliseconds first_backoff_, max_backoff_;
    const std::string retrying_;
    std::atomic<bool> healthy_{true};
    std::atomic<std::size_t> pending_{0};
    std::chrono::milliseconds backoff_;
    Clock::time_point episode_start_, episode_end_, last_logged_;
    bool episode_logged_ = false;
    int episode_failures_ = 0;
    std::string last_error_;

    std::mutex sm_;  // stats_ and latency_
    Store::Stats stats_;
    std::deque<double> latency_;
};

// What both durable stores show of their writes: each write is one WriteOp handed to the
// store's writer (its enqueue(); the core's report() answers it), and the figures and health
// are the core's.
template <class Base>
class QueuedWrites : public Base {
  public:
    void commit(GameWrite w, Store::Done done) override {
        enqueue(WriteOp::game(std::move(w), std::move(done)));
    }
    void add_player(StoredPlayer p, Store::Done done) override {
        enqueue(WriteOp::new_player(std::move(p), std::move(done)));
    }
    void write_account(AccountWrite w, std::function<void(AccountResult)> done) override {
        enqueue(WriteOp::account_request(std::move(w), std::move(done)));
    }
    Store::Stats stats() override { return core_.stats(); }
    std::size_t pending() override { return core_.pending(); }
    bool healthy() override { return core_.healthy(); }

  protected:
    QueuedWrites(std::chrono::milliseconds first_backoff, std::chrono::milliseconds max_backoff,
                 std::string retrying)
        : core_(first_backoff, max_backoff, std::move(retrying)) {}
    // Counts `op` in pending() (core_.queued()) and hands it to the writer.
    virtual void enqueue(WriteOp op) = 0;

    WriterCore core_;
};

// A game's row as both stores select it: kGameColumns' order (the id, then StoredGame's
// fields). `Row` reads column c of the current row: text(c) ("" for NULL), integer(c),
// boolean(c), null(c).
// An account's columns as both stores select them from `accounts`: StoredAccount's order.
inline constexpr const char* kAccountColumns =
    "player_id, username, pw_hash, created_at, EXISTS (SELECT 1 FROM roles WHERE "
    "roles.player_id = accounts.player_id AND roles.role = 'bot')";

inline constexpr const char* kGameColumns =
    "id, code, variant, time_control, is_public, quick_match, creator_side, bot_level, "
    "silver_id, silver_name, bronze_id, bronze_name, status, result, turns, version, created_at, "
    "finished_at, rated, creator_addr, invitee_id, invitee_name, "
    // whether each seat is a bot account (PROTOCOL.md "Bot accounts": the role `bot`)
    "EXISTS (SELECT 1 FROM roles WHERE roles.player_id = silver_id AND roles.role = 'bot'), "
    "EXISTS (SELECT 1 FROM roles WHERE roles.player_id = bronze_id AND roles.role = 'bot')";

template <class Row>
std::pair<std::int64_t, StoredGame> game_of(const Row& r) {
    StoredGame g;
    g.code = r.text(1);
    g.variant = r.text(2);
    g.time_control = r.text(3);
    g.is_public = r.boolean(4);
    g.quick_match = r.boolean(5);
    g.creator_side = r.text(6);
    if (!r.null(7)) g.bot_level = int(r.integer(7));
    g.seat_id[0] = r.text(8);
    g.seat_name[0] = r.text(9);
    g.seat_id[1] = r.text(10);
    g.seat_name[1] = r.text(11);
    g.status = r.text(12);
    g.result = r.text(13);
    g.turns = r.integer(14);
    g.version = r.integer(15);
    g.created_ms = r.integer(16);
    g.finished_ms = r.integer(17);
    g.rated = r.boolean(18);
    g.creator_addr = r.text(19);
    g.invitee_id = r.text(20);
    g.invitee_name = r.text(21);
    g.seat_bot[0] = r.boolean(22);
    g.seat_bot[1] = r.boolean(23);
    return {r.integer(0), std::move(g)};
}

// category, rating, deviation, volatility, games, last_at from column `c` on.
template <class Row>
StoredRating rating_of(const Row& r, int c) {
    return {r.text(c),     r.real(c + 1),         r.real(c + 2),
            r.real(c + 3), int(r.integer(c + 4)), r.integer(c + 5)};
}

}  // namespace tf::server
