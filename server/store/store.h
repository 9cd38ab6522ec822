// The durable store behind the server: players and their tokens, accounts and ratings, games
// and each game's event journal. Rooms only see this interface; server/store/sqlite_store.cpp is
// the embedded default, and a networked database for several server nodes would be another
// implementation.
//
// Writes are asynchronous and ordered: commit() queues one room operation's writes and calls
// `done` once they are durable (or failed), in the order they were queued. Implementations
// batch concurrent operations into group commits off the network threads.
//
// Reads are asynchronous only (read_*): the work runs off the caller's thread and the answer is
// posted to the executor the caller names (its strand), so no network thread ever waits for
// the disk. Store's non-virtual blocking forms (game(), unfinished(), ...) wait for them, for
// startup (recovery), tools and tests; they refuse to run on a network thread (debug builds
// assert, server/base/io_thread.h) or on a store's own thread. A read that cannot be answered
// (I/O error, unreadable file) reports it in Read::error (the blocking forms throw StoreError);
// it never answers "not found".
//
// Faults (docs/ARCHITECTURE.md "Failures"): a failed write reports its error to `done` and
// nothing of it is applied; healthy() is false from a failed write until a write succeeds again
// (the implementation retries on its own, with backoff). Players queued with add_player() are
// kept and written once writes work again.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tf::server {

// A store that cannot do what was asked. `fault` is false for errors of the request itself (a
// row that is not there, a duplicate key), true for the store's own trouble (disk full, I/O
// error, an unreadable or closed database), which makes it unhealthy.
struct StoreError : std::runtime_error {
    explicit StoreError(const std::string& what, bool is_fault = true)
        : std::runtime_error(what), fault(is_fault) {}
    bool fault;
};

// A player and one of its tokens. Only a hash of the token's secret is stored (SHA-256: the
// secret is 128 random bits, nothing to brute-force), so a copy of the database logs nobody in.
struct StoredPlayer {
    std::string id;
    std::string name;
    std::string selector;       // the token's lookup half (server/accounts/identity.h)
    std::string secret_hash;    // hex SHA-256 of the token's secret half
    std::string username = {};  // the player's account; empty for a guest (lookups fill it)
};

// An account: a player with a username and a password (Argon2id, libsodium's string format).
struct StoredAccount {
    std::string player_id;
    std::string username;  // as registered; unique ignoring letter case
    std::string pw_hash;
    std::int64_t created_ms = 0;
    bool bot = false;  // read, never written: the role `bot` (PROTOCOL.md "Bot accounts")
};

// What an account request writes, applied whole or not at all, in order with commit().
struct AccountWrite {
    enum class Kind {
        Register,      // the guest `player_id` becomes the account `username` (its name too)
        AddToken,      // a new token (selector, secret_hash) for `player_id` (a login)
        RevokeTokens,  // every token of `player_id` but `selector` ("" revokes them all)
        RevokeToken,   // the token `selector` only (a logout)
        SetPassword,   // `pw_hash`, and every token but `selector` revoked
    };
    Kind kind = Kind::AddToken;
    std::string player_id;
    std::string username, pw_hash;
    std::string selector, secret_hash;
};
struct AccountResult {
    bool ok = false;
    bool conflict = false;  // Register: the username (in any letter case) is taken
    bool fault = false;     // the store's own trouble (see StoreError)
    std::string error;
};

// One rating of a player: Glicko-2's three numbers, the rated games played in the category and
// when the last one ended (epoch ms; the deviation grows from then on).
struct StoredRating {
    std::string category;
    double rating = 1500, deviation = 500, volatility = 0.09;
    int games = 0;
    std::int64_t last_ms = 0;
};

// A rated game's end: the ratings of both players in `category` updated by the result in the
// same transaction as the game's end, at most once per game (the rating history is keyed by
// game and player: a write repeated after a crash changes nothing).
struct RateGame {
    std::string category;
    std::string player[2];      // silver, bronze
    double silver_score = 0.5;  // 1 silver won, 0.5 a draw, 0 bronze won
    std::int64_t at_ms = 0;
    struct Outcome {
        StoredRating before[2], after[2];
    };
    // Filled by the store before `done` reports success.
    std::shared_ptr<Outcome> outcome = std::make_shared<Outcome>();
    // The rating arithmetic (server/accounts/ratings.h `rate_game`), handed in by the caller:
    // the store reads both ratings, calls it and writes the outcome in one transaction.
    Outcome (*rate)(const RateGame&, const StoredRating before[2]) = nullptr;

    Outcome rated(const StoredRating before[2]) const {
        if (!rate) throw std::logic_error("a rated game without its rating arithmetic");
        return rate(*this, before);
    }
};

// A username's key for uniqueness and lookups: ASCII lower case (usernames are ASCII).
std::string username_key(std::string_view username);

struct LeaderRow {
    std::string username;
    StoredRating rating;
};

// A game's metadata row. JSON-valued fields hold canonical JSON text.
struct StoredGame {
    std::string code;
    std::string variant;       // JSON
    std::string time_control;  // JSON, "null" when untimed
    bool is_public = true;
    bool quick_match = false;
    std::string creator_side;  // "silver" | "bronze"
    std::optional<int> bot_level;
    bool rated = false;
    std::string seat_id[2], seat_name[2];  // silver, bronze; empty when free
    bool seat_bot[2] = {false, false};     // read, never written: the seat's account is a bot
    std::string status;                    // open, playing, over, cancelled, aborted, quarantined
    std::string result;                    // JSON, "null" while unfinished
    std::int64_t turns = 0;
    std::int64_t version = 0;                      // last journaled event
    std::int64_t created_ms = 0, finished_ms = 0;  // epoch ms; 0 = not finished
    // While open: the creator's client address (server/net/conn_limit.h client_key), for the
    // open-game limits across nodes. Kept by the PostgreSQL store only (nodes share it), and
    // cleared there once the game is no longer open; "" elsewhere.
    std::string creator_addr = {};
    // A challenge (proto/PROTOCOL.md "Challenges"): the only player who may take the free seat;
    // empty for any other game.
    std::string invitee_id = {}, invitee_name = {};
    // A correspondence game being played: the side whose setup or turn it waits for ("silver",
    // "bronze") and the epoch ms by which it must come; "" and 0 otherwise (live games too).
    std::string to_move = {};
    std::int64_t move_by = 0;
};

// A player page's data (GET /api/players/NAME).
struct PlayerProfile {
    StoredAccount account;
    std::vector<StoredRating> ratings;
    struct Point {
        std::int64_t at_ms = 0;
        double rating = 0;
        std::string code;
    };
    // By category, oldest first; `code` is empty for a private game the viewer holds no seat in.
    std::map<std::string, std::vector<Point>> history;
    struct Totals {
        int wins = 0, draws = 0, losses = 0;
    };
    Totals as[2];  // finished games with a result, by the colour played: silver, bronze
    // Newest first: public games, and private ones the viewer holds a seat in.
    std::vector<StoredGame> recent;
};

// One event of a game's journal, in the storage format `format` (server/store/record_codec.h, which
// alone writes and reads rows).
struct JournalRow {
    std::int64_t version = 0;
    std::string kind;
    std::string event;
    std::int64_t at_ms = 0;
    int format = 1;
};

// The writes of one room operation, applied atomically.
struct GameWrite {
    std::string code;
    std::optional<StoredGame> create;  // insert this game first
    std::vector<JournalRow> rows;
    // The game row after the operation (seats, status, result, turns, version, finished).
    std::optional<StoredGame> update;
    std::optional<RateGame> rate = std::nullopt;  // the operation ends a rated game
    // Cluster mode (server/cluster/cluster.h): the node that owns the game and the epoch of its
    // ownership. A store shared by nodes applies the write only while the game is still owned
    // so (fencing): a node that lost the game fails with an error starting with kFenced. Empty
    // and 0 for a single node (SQLite, memory: nothing to check).
    std::string owner = {};
    std::int64_t epoch = 0;
};

// The start of a write's error when the game belongs to another node now (see GameWrite).
inline constexpr const char* kFenced = "fenced: ";

struct GameQuery {
    std::string status;     // "", "live" (playing), "finished" (over/aborted), or a status
    std::string player_id;  // "" for everyone
    int limit = 20;
    std::int64_t before = 0;  // cursor: only games older than this one (0: from the newest)
    // Set (the public history API): public games only, and the private games this player holds
    // a seat in ("" for an anonymous reader: public ones only). Unset: every game (the server's
    // own reads).
    std::optional<std::string> viewer = std::nullopt;
};

struct GamePage {
    std::vector<std::pair<std::int64_t, StoredGame>> games;  // (cursor, game), newest first
    std::optional<std::int64_t> next;
};

// Open games (waiting for an opponent) of one creator and of one creator's client address.
struct OpenGameCounts {
    int player = 0, address = 0;
};

// A game's row and its whole journal.
struct GameRows {
    StoredGame row;
    std::vector<JournalRow> journal;
};

// What an asynchronous read answers: a value, or why there is none.
template <class T>
struct Read {
    std::optional<T> value;
    std::string error;   // when !ok()
    bool fault = false;  // the store's trouble (StoreError::fault), not the request's
    bool ok() const { return value.has_value(); }
};

class Store {
  public:
    using Done = std::function<void(std::optional<std::string> error)>;
    using Executor = boost::asio::any_io_executor;
    template <class T>
    using Then = std::function<void(Read<T>)>;
    virtual ~Store() = default;

    // Reads: `then` runs on `ex` with the answer or why there is none.
    // The player a token selector belongs to, with its secret's hash and its account's name.
    virtual void read_player(std::string selector, Executor ex,
                             Then<std::optional<StoredPlayer>> then) = 0;
    virtual void read_code_taken(std::string code, Executor ex, Then<bool> then) = 0;
    // A game's row and journal; nullopt when there is no such game.
    virtual void read_game(std::string code, Executor ex, Then<std::optional<GameRows>> then) = 0;
    virtual void read_page(GameQuery q, Executor ex, Then<GamePage> then) = 0;
    // By username in any letter case.
    virtual void read_account(std::string username, Executor ex,
                              Then<std::optional<StoredAccount>> then) = 0;
    virtual void read_ratings(std::string player_id, Executor ex,
                              Then<std::vector<StoredRating>> then) = 0;
    // The best rated players of a category who played it since `active_since_ms`, whose
    // ratings are no longer provisional; best first.
    // `bots`: the bot accounts' board (PROTOCOL.md "Bot accounts"), else the people's.
    virtual void read_leaderboard(std::string category, int limit, std::int64_t active_since_ms,
                                  bool bots, Executor ex, Then<std::vector<LeaderRow>> then) = 0;
    // An account's page as `viewer` (a player id, "" for anyone) may see it (PlayerProfile).
    virtual void read_profile(std::string username, int recent, std::string viewer, Executor ex,
                              Then<std::optional<PlayerProfile>> then) = 0;
    // The games still open or being played, oldest first (recovery at start).
    virtual void read_unfinished(Executor ex, Then<std::vector<StoredGame>> then) = 0;
    // The open games of `player_id` and created from `address` that nodes other than `node`
    // hold (cluster mode: the open-game limits across nodes). Stores that serve one node know
    // no other: zero.
    virtual void read_open_counts(std::string player_id, std::string address, std::string node,
                                  Executor ex, Then<OpenGameCounts> then);
    // True when a committed game can be read back (read_game) as it was written; false for a
    // store that keeps nothing (NullStore, --store memory). A finished game is kept in memory as
    // a summary only when its state can be read back (server/room/room_recovery.h).
    virtual bool keeps_games() { return true; }

    // Queues writes; `done` runs on the store's thread once they are durable or have failed.
    virtual void commit(GameWrite w, Done done) = 0;
    // Queues a new player (fire and forget: any later commit() that needs it commits after it).
    // `done` (on the writer's thread) once the player's row is durable, or its write failed (the
    // row is then kept and written with a later operation).
    virtual void add_player(StoredPlayer p, Done done = {}) = 0;
    // Queues an account write, in order with commits; `done` runs on the store's thread.
    virtual void write_account(AccountWrite w, std::function<void(AccountResult)> done) = 0;
    // Marks a game that cannot be replayed; it is kept as it is, never changed otherwise.
    // `done` runs on the store's thread.
    virtual void write_quarantine(std::string code, std::string why, Done done) = 0;

    // Operations queued or being written (0 when everything handed over is durable).
    virtual std::size_t pending() = 0;
    // False while writes fail; true again once one succeeds. Thread-safe, cheap.
    virtual bool healthy() = 0;

    struct Stats {
        std::uint64_t commits = 0, operations = 0, failures = 0;
        std::vector<double> latency_ms;  // queue to durable, one per operation (recent window)
    };
    virtual Stats stats() = 0;

    // The same reads, waited for: for startup (recovery), tools and tests, never on a network
    // thread nor on a store's own thread (server/base/io_thread.h). Each throws StoreError when
    // the read fails.
    std::optional<StoredPlayer> player_by_selector(const std::string& selector);
    std::optional<StoredAccount> account_by_name(const std::string& username);
    std::vector<StoredRating> ratings_of(const std::string& player_id);
    std::vector<LeaderRow> leaderboard(const std::string& category, int limit,
                                       std::int64_t active_since_ms, bool bots = false);
    std::optional<PlayerProfile> profile(const std::string& username, int recent,
                                         const std::string& viewer);
    bool code_taken(const std::string& code);
    std::vector<StoredGame> unfinished();
    std::optional<GameRows> game_rows(const std::string& code);
    std::optional<StoredGame> game(const std::string& code);
    std::vector<JournalRow> journal(const std::string& code);
    GamePage list(const GameQuery& q);
    OpenGameCounts open_counts(const std::string& player_id, const std::string& address,
                               const std::string& node);
    void quarantine(const std::string& code, const std::string& why);

  protected:
    // Runs `blocking` on `on` (inline when empty) and posts its value, or the StoreError it
    // threw, to `ex`.
    template <class T, class F>
    static void answer(Executor on, Executor ex, F blocking, Then<T> then) {
        auto job = [blocking = std::move(blocking), ex, then = std::move(then)]() mutable {
            Read<T> r;
            try {
                r.value.emplace(blocking());
            } catch (const StoreError& e) {
                r.error = e.what();
                r.fault = e.fault;
            } catch (const std::exception& e) {
                r.error = e.what();
                r.fault = true;
            }
            boost::asio::post(
                ex, [then = std::move(then), r = std::move(r)]() mutable { then(std::move(r)); });
        };
        if (on)
            boost::asio::post(on, std::move(job));
        else
            job();
    }
};

// A store whose reads block (an embedded database, memory): it writes each read once, as a
// blocking load_*, and gets the asynchronous reads from it, run on reads_on() so that the
// caller's thread never waits.
class BlockingReads : public Store {
  public:
    void read_player(std::string selector, Executor ex,
                     Then<std::optional<StoredPlayer>> then) final;
    void read_code_taken(std::string code, Executor ex, Then<bool> then) final;
    void read_game(std::string code, Executor ex, Then<std::optional<GameRows>> then) final;
    void read_page(GameQuery q, Executor ex, Then<GamePage> then) final;
    void read_account(std::string username, Executor ex,
                      Then<std::optional<StoredAccount>> then) final;
    void read_ratings(std::string player_id, Executor ex,
                      Then<std::vector<StoredRating>> then) final;
    void read_leaderboard(std::string category, int limit, std::int64_t active_since_ms, bool bots,
                          Executor ex, Then<std::vector<LeaderRow>> then) final;
    void read_profile(std::string username, int recent, std::string viewer, Executor ex,
                      Then<std::optional<PlayerProfile>> then) final;
    void read_unfinished(Executor ex, Then<std::vector<StoredGame>> then) final;
    void write_quarantine(std::string code, std::string why, Done done) final;

  protected:
    // Where the loads run; empty: on the caller's thread (memory, which never waits).
    virtual Executor reads_on() { return {}; }
    virtual std::optional<StoredPlayer> load_player(const std::string& selector) = 0;
    virtual std::optional<StoredAccount> load_account(const std::string& username) = 0;
    virtual std::vector<StoredRating> load_ratings(const std::string& player_id) = 0;
    virtual std::vector<LeaderRow> load_leaderboard(const std::string& category, int limit,
                                                    std::int64_t active_since_ms, bool bots) = 0;
    virtual std::optional<PlayerProfile> load_profile(const std::string& username, int recent,
                                                      const std::string& viewer) = 0;
    virtual bool load_code_taken(const std::string& code) = 0;
    virtual std::vector<StoredGame> load_unfinished() = 0;
    virtual std::optional<GameRows> load_game(const std::string& code) = 0;
    virtual GamePage load_page(const GameQuery& q) = 0;
    virtual void mark_quarantined(const std::string& code, const std::string& why) = 0;
};

// A store that keeps nothing and commits at once (room tests, and the server's --store memory
// for benchmarks).
class NullStore : public BlockingReads {
  public:
    void commit(GameWrite, Done done) override { done(std::nullopt); }
    void add_player(StoredPlayer, Done done) override {
        if (done) done(std::nullopt);
    }
    // No accounts: nothing would remember them.
    void write_account(AccountWrite, std::function<void(AccountResult)> done) override {
        done({false, false, true, "this server keeps no accounts (--store memory)"});
    }
    Stats stats() override { return {}; }
    std::size_t pending() override { return 0; }
    bool healthy() override { return true; }
    bool keeps_games() override { return false; }

  protected:
    std::optional<StoredPlayer> load_player(const std::string&) override { return {}; }
    std::optional<StoredAccount> load_account(const std::string&) override { return {}; }
    std::vector<StoredRating> load_ratings(const std::string&) override { return {}; }
    std::vector<LeaderRow> load_leaderboard(const std::string&, int, std::int64_t, bool) override {
        return {};
    }
    std::optional<PlayerProfile> load_profile(const std::string&, int,
                                              const std::string&) override {
        return {};
    }
    bool load_code_taken(const std::string&) override { return false; }
    std::vector<StoredGame> load_unfinished() override { return {}; }
    std::optional<GameRows> load_game(const std::string&) override { return {}; }
    GamePage load_page(const GameQuery&) override { return {}; }
    void mark_quarantined(const std::string&, const std::string&) override {}
};

}  // namespace tf::server
