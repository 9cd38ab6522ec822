#include "server/store/sqlite_store.h"

#include "server/base/io_thread.h"
#include "server/base/metrics.h"
#include "server/base/time.h"
#include "server/store/record_codec.h"
#include "server/store/sqlite_checkpointer.h"
#include "server/store/sqlite_db.h"
#include "server/store/writer_core.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace tf::server {

namespace {

namespace fs = std::filesystem;
using sqlite::exec;
using sqlite::open_db;
using sqlite::Stmt;
using sqlite::try_exec;

// An unfinished game's row is not rewritten by its turns (SqliteStore::apply): its `turns` and
// `version` are read from its journal instead (the journal's key is (code, version)). The reader
// connection selects games through this view (a TEMP one: the schema does not change), in
// kGameColumns' order; games have no creator_addr here (one node: open games are counted live).
constexpr const char* kGameRowsView =
    "CREATE TEMP VIEW game_rows AS SELECT id, code, variant, time_control, is_public, "
    "quick_match, creator_side, bot_level, silver_id, silver_name, bronze_id, bronze_name, "
    "status, result, "
    "CASE WHEN status IN ('open', 'playing') THEN (SELECT count(*) FROM journal j "
    "WHERE j.code = games.code AND j.kind = 'turn') ELSE turns END AS turns, "
    "CASE WHEN status IN ('open', 'playing') THEN ifnull((SELECT max(j.version) FROM journal j "
    "WHERE j.code = games.code), version) ELSE version END AS version, "
    "created_at, finished_at, rated, NULL AS creator_addr, invitee_id, invitee_name FROM games";

class SqliteStore : public QueuedWrites<BlockingReads> {
  public:
    SqliteStore(const std::string& dir, SyncLevel sync)
        : QueuedWrites(std::chrono::milliseconds(100), std::chrono::milliseconds(5000),
                       "retrying with backoff"),
          path_((fs::path(dir) / "trunkfield.db").string()),
          sync_(sync) {
        std::error_code ec;
        const bool made = fs::create_directories(dir, ec);
        if (ec) throw StoreError("cannot create the data directory " + dir + ": " + ec.message());
        lock_ = std::make_unique<DataDirLock>(dir);
        sqlite::secure_data_files(dir, made, path_);
        checkpoints_ = std::make_unique<WalCheckpointer>(path_, sync_);
        try {
            wr_ = open_db(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
            migrate();
            open_connections();
        } catch (...) {
            close_connections();
            throw;
        }
        writer_ = std::thread([this] {
            pthread_setname_np(pthread_self(), "tf-store");  // as top and perf name it
            mark_store_thread();
            run();
        });
        boost::asio::post(reads_, [] { mark_store_thread(); });
    }

    ~SqliteStore() override {
        reads_.join();
        {
            std::lock_guard lock(qm_);
            stop_ = true;
        }
        cv_.notify_all();
        if (writer_.joinable()) writer_.join();
        checkpoints_.reset();
        close_connections();
    }

  protected:
    // The reads run on a thread of their own (BlockingReads): a slow history query can delay
    // other reads, never a network thread.
    Executor reads_on() override { return reads_.get_executor(); }

    std::optional<StoredPlayer> load_player(const std::string& selector) override {
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               "SELECT t.player_id, p.name, t.selector, t.secret_hash, a.username FROM tokens t "
               "JOIN players p ON p.id = t.player_id "
               "LEFT JOIN accounts a ON a.player_id = t.player_id WHERE t.selector = ?");
        s.bind(1, selector);
        if (s.step() != SQLITE_ROW) return std::nullopt;
        return StoredPlayer{s.text(0), s.text(1), s.text(2), s.text(3), s.text(4)};
    }

    std::optional<StoredAccount> load_account(const std::string& username) override {
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               (std::string("SELECT ") + kAccountColumns + " FROM accounts WHERE username_key = ?")
                   .c_str());
        s.bind(1, username_key(username));
        if (s.step() != SQLITE_ROW) return std::nullopt;
        return StoredAccount{s.text(0), s.text(1), s.text(2), s.integer(3), s.integer(4) != 0};
    }

    std::vector<StoredRating> load_ratings(const std::string& player_id) override {
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               "SELECT category, rating, deviation, volatility, games, last_at FROM ratings "
               "WHERE player_id = ? ORDER BY category");
        s.bind(1, player_id);
        std::vector<StoredRating> out;
        while (s.step() == SQLITE_ROW) out.push_back(rating_of(s, 0));
        return out;
    }

    std::vector<LeaderRow> load_leaderboard(const std::string& category, int limit,
                                            std::int64_t active_since_ms, bool bots) override {
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               "SELECT a.username, r.category, r.rating, r.deviation, r.volatility, r.games, "
               "r.last_at FROM ratings r JOIN accounts a ON a.player_id = r.player_id "
               "WHERE r.category = ?1 AND r.last_at >= ?2 AND r.deviation <= ?3 AND EXISTS "
               "(SELECT 1 FROM roles WHERE roles.player_id = r.player_id AND roles.role = 'bot') "
               "= ?5 ORDER BY r.rating DESC, a.username_key LIMIT ?4");
        s.bind(1, category).bind(2, active_since_ms).bind(3, proto::kProvisionalDeviation);
        s.bind(4, std::int64_t(std::max(limit, 0))).bind(5, std::int64_t(bots ? 1 : 0));
        std::vector<LeaderRow> out;
        while (s.step() == SQLITE_ROW) out.push_back({s.text(0), rating_of(s, 1)});
        return out;
    }

    std::optional<PlayerProfile> load_profile(const std::string& username, int recent,
                                              const std::string& viewer) override {
        auto account = load_account(username);
        if (!account) return std::nullopt;
        PlayerProfile p;
        p.account = *account;
        p.ratings = load_ratings(account->player_id);
        std::lock_guard lock(rm_);
        {
            // A private game's code only for a viewer seated in it.
            Stmt s(reader(),
                   "SELECT h.category, h.at, h.rating, CASE WHEN g.is_public IS NULL OR "
                   "g.is_public = 1 OR (?2 <> '' AND (g.silver_id = ?2 OR g.bronze_id = ?2)) "
                   "THEN h.code ELSE '' END FROM rating_history h LEFT JOIN games g ON "
                   "g.code = h.code WHERE h.player_id = ?1 ORDER BY h.at, h.code");
            s.bind(1, account->player_id).bind(2, viewer);
            while (s.step() == SQLITE_ROW)
                p.history[s.text(0)].push_back({s.integer(1), s.real(2), s.text(3)});
        }
        {
            // Wins, draws and losses by colour, from the finished games' results.
            Stmt s(reader(),
                   "SELECT CASE WHEN silver_id = ?1 THEN 0 ELSE 1 END, "
                   "json_extract(result, '$.winner'), count(*) FROM games "
                   "WHERE status = 'over' AND (silver_id = ?1 OR bronze_id = ?1) GROUP BY 1, 2");
            s.bind(1, account->player_id);
            while (s.step() == SQLITE_ROW) {
                auto& t = p.as[s.integer(0)];
                const std::string winner = s.text(1);
                const int n = int(s.integer(2));
                const char* mine = s.integer(0) == 0 ? "silver" : "bronze";
                if (winner == "draw")
                    t.draws += n;
                else if (winner == mine)
                    t.wins += n;
                else if (!winner.empty())
                    t.losses += n;
            }
        }
        {
            Stmt s(reader(),
                   (std::string("SELECT ") + kGameColumns +
                    " FROM game_rows WHERE (silver_id = ?1 OR bronze_id = ?1) AND "
                    "(is_public = 1 OR (?3 <> '' AND (silver_id = ?3 OR bronze_id = ?3))) "
                    "ORDER BY id DESC LIMIT ?2")
                       .c_str());
            s.bind(1, account->player_id)
                .bind(2, std::int64_t(std::max(recent, 0)))
                .bind(3, viewer);
            while (s.step() == SQLITE_ROW) p.recent.push_back(game_of(s).second);
        }
        return p;
    }

    bool load_code_taken(const std::string& code) override {
        std::lock_guard lock(rm_);
        Stmt s(reader(), "SELECT 1 FROM games WHERE code = ?");
        s.bind(1, code);
        return s.step() == SQLITE_ROW;
    }

    std::vector<StoredGame> load_unfinished() override {
        std::lock_guard lock(rm_);
        Stmt s(reader(), (std::string("SELECT ") + kGameColumns +
                          " FROM game_rows WHERE status IN ('open', 'playing') ORDER BY id")
                             .c_str());
        std::vector<StoredGame> out;
        while (s.step() == SQLITE_ROW) out.push_back(game_of(s).second);
        return out;
    }

    std::optional<GameRows> load_game(const std::string& code) override {
        std::lock_guard lock(rm_);
        Stmt g(reader(),
               (std::string("SELECT ") + kGameColumns + " FROM game_rows WHERE code = ?").c_str());
        g.bind(1, code);
        if (g.step() != SQLITE_ROW) return std::nullopt;
        GameRows out{game_of(g).second, {}};
        Stmt s(reader(),
               "SELECT version, kind, event, at, format FROM journal WHERE code = ? "
               "ORDER BY version");
        s.bind(1, code);
        while (s.step() == SQLITE_ROW)
            out.journal.push_back(
                {s.integer(0), s.text(1), s.text(2), s.integer(3), int(s.integer(4))});
        return out;
    }

    GamePage load_page(const GameQuery& q) override {
        std::string where = "WHERE id < ?1";
        if (q.status == "live")
            where += " AND status = 'playing'";
        else if (q.status == "finished")
            where += " AND status IN ('over', 'aborted')";
        else if (!q.status.empty())
            where += " AND status = ?2";
        if (!q.player_id.empty()) where += " AND (silver_id = ?3 OR bronze_id = ?3)";
        if (q.viewer)
            where += " AND (is_public = 1 OR (?5 <> '' AND (silver_id = ?5 OR bronze_id = ?5)))";
        std::string sql = std::string("SELECT ") + kGameColumns + " FROM game_rows " + where +
                          " ORDER BY id DESC LIMIT ?4";
        std::lock_guard lock(rm_);
        Stmt s(reader(), sql.c_str());
        s.bind(1, q.before > 0 ? q.before : std::numeric_limits<std::int64_t>::max());
        if (!q.status.empty() && q.status != "live" && q.status != "finished") s.bind(2, q.status);
        if (!q.player_id.empty()) s.bind(3, q.player_id);
        s.bind(4, std::int64_t(q.limit) + 1);
        if (q.viewer) s.bind(5, *q.viewer);
        GamePage page;
        while (s.step() == SQLITE_ROW) page.games.push_back(game_of(s));
        if (int(page.games.size()) > q.limit) {
            page.games.pop_back();
            page.next = page.games.back().first;
        }
        return page;
    }

    void mark_quarantined(const std::string& code, const std::string& why) override {
        std::lock_guard lock(wm_);
        if (!wr_) throw StoreError("the database is not open");
        Stmt s(wr_, "UPDATE games SET status = 'quarantined', quarantine = ? WHERE code = ?");
        s.bind(1, why).bind(2, code).run();
    }

  private:
    using Op = WriteOp;

    sqlite3* reader() {
        if (!rd_) throw StoreError("the database " + path_ + " is not open (reopening failed)");
        return rd_;
    }

    // At start, on the writer connection (sqlite_db.h).
    void migrate() { sqlite::migrate_schema(wr_, path_); }

    // Both connections and the writer's prepared statements; also after a failure (reopen()).
    void open_connections() {
        if (!wr_) wr_ = open_db(path_, SQLITE_OPEN_READWRITE);
        exec(wr_, sqlite::sync_pragma(sync_));
        checkpoints_->watch(wr_);  // replaces SQLite's automatic checkpoints
        rd_ = open_db(path_, SQLITE_OPEN_READONLY);
        exec(rd_, kGameRowsView);
        insert_player_ = std::make_unique<Stmt>(
            wr_,
            "INSERT OR IGNORE INTO players (id, name, selector, secret, created_at) "
            "VALUES (?, ?, ?, '', ?)");
        insert_token_ = std::make_unique<Stmt>(
            wr_,
            "INSERT OR IGNORE INTO tokens (selector, player_id, secret_hash, created_at) "
            "VALUES (?, ?, ?, ?)");
        insert_game_ = std::make_unique<Stmt>(
            wr_,
            "INSERT INTO games (code, variant, time_control, is_public, quick_match, creator_side, "
            "bot_level, silver_id, silver_name, bronze_id, bronze_name, status, result, turns, "
            "version, created_at, finished_at, rated, invitee_id, invitee_name, to_move, move_by) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
            "?18, ?19, ?20, ?21, ?22)");
        update_game_ = std::make_unique<Stmt>(
            wr_,
            "UPDATE games SET silver_id = ?2, silver_name = ?3, bronze_id = ?4, bronze_name = ?5, "
            "status = ?6, result = ?7, turns = ?8, version = ?9, finished_at = ?10, to_move = ?11, "
            "move_by = ?12 WHERE code = ?1");
        insert_row_ = std::make_unique<Stmt>(wr_,
                                             "INSERT INTO journal (code, version, kind, event, at, "
                                             "format) VALUES (?, ?, ?, ?, ?, ?)");
        // The probe writes as much as a busy batch would (256 KiB), so that "writes work again"
        // is not concluded from a write small enough to fit where a real one does not.
        probe_ = std::make_unique<Stmt>(
            wr_,
            "INSERT OR REPLACE INTO store_probe (id, at, room) VALUES (1, ?, zeroblob(262144))");
        // The batch's frame, prepared once rather than parsed on every operation.
        begin_ = std::make_unique<Stmt>(wr_, "BEGIN IMMEDIATE");
        savepoint_ = std::make_unique<Stmt>(wr_, "SAVEPOINT op");
        release_ = std::make_unique<Stmt>(wr_, "RELEASE op");
        commit_ = std::make_unique<Stmt>(wr_, "COMMIT");
    }

    void close_connections() {
        for (auto* st : {&insert_player_, &insert_token_, &insert_game_, &update_game_,
                         &insert_row_, &probe_, &begin_, &savepoint_, &release_, &commit_})
            st->reset();
        if (rd_) sqlite3_close(rd_);
        if (wr_) sqlite3_close(wr_);
        rd_ = wr_ = nullptr;
    }

    // After a fault: both connections are closed and opened again, so that nothing SQLite kept
    // in memory about a write that failed (its page cache, a connection left in an error
    // state) outlives the failure. Writer thread.
    bool reopen() {
        std::scoped_lock lock(wm_, rm_);
        close_connections();
        seats_.clear();
        try {
            open_connections();
        } catch (const StoreError& e) {
            close_connections();
            failed("reopening the database", e.what(), 1);
            return false;
        }
        reopen_ = false;
        return true;
    }

    void enqueue(Op op) override {
        core_.queued();
        {
            std::lock_guard lock(qm_);
            q_.push_back(std::move(op));
        }
        cv_.notify_one();
    }

    // The writer thread: everything queued meanwhile goes into one transaction (group commit);
    // each operation is a savepoint of its own, so one bad operation fails alone. While writes
    // fail, it also wakes up on its own after a backoff (100 ms doubling to 5 s) and tries a
    // probe write, so that the store becomes healthy again without anyone writing.
    void run() {
        for (;;) {
            std::deque<Op> batch;
            {
                std::unique_lock lock(qm_);
                auto ready = [&] { return stop_ || !q_.empty(); };
                if (core_.healthy())
                    cv_.wait(lock, ready);
                else
                    cv_.wait_for(lock, core_.backoff(), ready);
                if (stop_ && q_.empty()) return;  // stopping, and everything queued is written
                batch.swap(q_);
            }
            if (reopen_ && !reopen()) {
                finish(batch, {}, "the database " + path_ + " could not be reopened");
                continue;
            }
            if (batch.empty())
                probe();
            else
                write_batch(batch);
        }
    }

    // Players whose insert failed, written with every later transaction until one commits.
    void write_unsaved_players() {
        for (const auto& p : core_.unsaved_players) insert_player(p);
    }
    void insert_player(const StoredPlayer& p) {
        const std::int64_t now = epoch_ms();
        insert_player_->bind(1, p.id).bind(2, p.name).bind(3, p.selector).bind(4, now).run();
        insert_token_->bind(1, p.selector).bind(2, p.id).bind(3, p.secret_hash).bind(4, now).run();
    }

    void probe() {
        {
            std::lock_guard lock(wm_);
            try {
                sqlite::transaction(
                    wr_,
                    [&] {
                        probe_->bind(1, epoch_ms()).run();
                        write_unsaved_players();
                    },
                    begin_.get(), commit_.get());
            } catch (const StoreError& e) {
                return failed("the probe write", e.what(), 0);
            }
            core_.unsaved_players.clear();
        }
        succeeded();
    }

    // Inside the batch's transaction: each operation in a savepoint of its own, so that one bad
    // operation fails alone.
    void write_ops(std::deque<Op>& batch, std::vector<std::optional<std::string>>& errors,
                   std::vector<bool>& op_faults, bool& fault) {
        write_unsaved_players();
        for (std::size_t i = 0; i < batch.size(); ++i) {
            savepoint_->run();
            try {
                apply(batch[i]);
                release_->run();
            } catch (const StoreError& e) {
                // A fault inside a transaction may have rolled all of it back: then the whole
                // batch failed, not this operation alone.
                if (sqlite3_get_autocommit(wr_)) throw;
                errors[i] = e.what();
                op_faults[i] = e.fault;
                fault = fault || e.fault;
                seats_.erase(batch[i].write.code);
                try_exec(wr_, "ROLLBACK TO op; RELEASE op");
            }
        }
    }

    void write_batch(std::deque<Op>& batch) {
        std::vector<std::optional<std::string>> errors(batch.size());
        std::vector<bool> op_faults(batch.size(), false);
        std::optional<std::string> batch_error;
        bool fault = false;
        {
            std::lock_guard lock(wm_);
            try {
                sqlite::transaction(
                    wr_, [&] { write_ops(batch, errors, op_faults, fault); }, begin_.get(),
                    commit_.get());
                core_.unsaved_players.clear();
            } catch (const StoreError& e) {
                batch_error = e.what();
                fault = fault || e.fault;
                seats_.clear();
            }
        }
        finish(batch, errors, batch_error, fault, op_faults);
        if (checkpoints_->due()) {  // after the batch's answers went out
            std::lock_guard lock(wm_);
            if (wr_) checkpoints_->finish(wr_);
        }
        if (!fault) return succeeded();
        std::size_t first = 0;
        while (first < errors.size() && !errors[first]) ++first;
        failed(batch[first < batch.size() ? first : 0].what(),
               batch_error ? *batch_error : *errors[first], int(batch.size()));
    }

    // Reports each operation's outcome (WriterCore::report()).
    void finish(std::deque<Op>& batch, const std::vector<std::optional<std::string>>& errors,
                const std::optional<std::string>& batch_error, bool fault = true,
                const std::vector<bool>& op_faults = {}) {
        core_.count_commit();
        for (std::size_t i = 0; i < batch.size(); ++i) {
            auto err = batch_error ? batch_error : i < errors.size() ? errors[i] : std::nullopt;
            const bool op_fault = batch_error ? fault : i < op_faults.size() && op_faults[i];
            core_.report(batch[i], err, op_fault);
        }
    }

    // A fault (WriterCore::failed()): the writer retries with a growing backoff, on connections
    // opened again. Writer thread.
    void failed(const std::string& what, const std::string& why, int operations) {
        core_.failed(what, why, operations);
        reopen_ = true;
    }
    void succeeded() { core_.succeeded(); }

    void apply(const Op& op) {
        if (op.player) insert_player(*op.player);
        if (op.account) sqlite::write_account(wr_, *op.account);
        const auto& w = op.write;
        if (w.create) {
            write_game(*insert_game_, *w.create, true);
            seats_[w.code] = seat_key(*w.create);
        }
        for (const auto& r : w.rows) {
            insert_row_->bind(1, w.code).bind(2, r.version).bind(3, r.kind).bind(4, r.event);
            insert_row_->bind(5, r.at_ms).bind(6, std::int64_t(r.format)).run();
        }
        if (w.rate) sqlite::rate(wr_, w.code, *w.rate);
        if (!w.update) return;
        // Most operations are a turn: only `turns` and `version` change, and while the game is
        // unfinished those are read from its journal (kGameRowsView), so its row is left as it
        // is: one page fewer per commit (of about two; fewer pages to sync and to checkpoint).
        // The row is rewritten when its seats or status change, and at the end; a correspondence
        // game's also when the move it waits for changes (to_move, move_by: "" and 0 in others).
        const StoredGame& g = *w.update;
        std::string key = seat_key(g);
        auto it = seats_.find(w.code);
        if (it == seats_.end() || it->second != key) {
            write_game(*update_game_, g, false);
            if (g.status == "open" || g.status == "playing")
                seats_[w.code] = std::move(key);
            else
                seats_.erase(w.code);
        }
    }

    // What the last full write of a game's row said about everything but its progress.
    static std::string seat_key(const StoredGame& g) {
        std::string k;
        for (const auto* f : {&g.seat_id[0], &g.seat_name[0], &g.seat_id[1], &g.seat_name[1],
                              &g.status, &g.result}) {
            k += *f;
            k += '\x1f';
        }
        return k + std::to_string(g.finished_ms) + '\x1f' + g.to_move + '\x1f' +
               std::to_string(g.move_by);
    }

    void write_game(Stmt& s, const StoredGame& g, bool insert) {
        s.bind(1, g.code);
        if (insert) {
            s.bind(2, g.variant).bind(3, g.time_control).bind(4, std::int64_t(g.is_public));
            s.bind(5, std::int64_t(g.quick_match)).bind(6, g.creator_side);
            if (g.bot_level)
                s.bind(7, std::int64_t(*g.bot_level));
            else
                s.bind_null(7);
            s.bind_opt(8, g.seat_id[0]).bind_opt(9, g.seat_name[0]);
            s.bind_opt(10, g.seat_id[1]).bind_opt(11, g.seat_name[1]);
            s.bind(12, g.status).bind(13, g.result).bind(14, g.turns).bind(15, g.version);
            s.bind(16, g.created_ms).bind(17, g.finished_ms).bind(18, std::int64_t(g.rated));
            s.bind_opt(19, g.invitee_id).bind_opt(20, g.invitee_name);
            s.bind(21, g.to_move).bind(22, g.move_by);
        } else {
            s.bind_opt(2, g.seat_id[0]).bind_opt(3, g.seat_name[0]);
            s.bind_opt(4, g.seat_id[1]).bind_opt(5, g.seat_name[1]);
            s.bind(6, g.status).bind(7, g.result).bind(8, g.turns).bind(9, g.version);
            s.bind(10, g.finished_ms).bind(11, g.to_move).bind(12, g.move_by);
        }
        s.run();
        if (sqlite3_changes(wr_) != 1) throw StoreError("no game " + g.code + " to update", false);
    }

    const std::string path_;
    const SyncLevel sync_;
    sqlite3* wr_ = nullptr;
    sqlite3* rd_ = nullptr;
    std::unique_ptr<DataDirLock> lock_;  // released last (members are destroyed in reverse)
    std::mutex wm_, rm_;
    std::unique_ptr<Stmt> insert_player_, insert_token_, insert_game_, update_game_, insert_row_,
        probe_;
    // Per unfinished game, seat_key() of its row as committed or about to be (writer thread
    // only); forgotten when an operation fails, so that the next write is a full one.
    std::unordered_map<std::string, std::string> seats_;
    std::unique_ptr<Stmt> begin_, savepoint_, release_, commit_;

    std::mutex qm_;
    std::condition_variable cv_;
    std::deque<Op> q_;
    bool stop_ = false;
    std::thread writer_;

    std::unique_ptr<WalCheckpointer> checkpoints_;  // after the connections: stopped first

    // Faults: the connections are opened again before the next write.
    bool reopen_ = false;

    boost::asio::thread_pool reads_{1};  // last: stopped first, before the connections close
};

}  // namespace

std::unique_ptr<Store> open_sqlite_store(const std::string& dir, SyncLevel sync) {
    return std::make_unique<SqliteStore>(dir, sync);
}

}  // namespace tf::server
