#include "server/store/sqlite_store.h"

#include "server/base/io_thread.h"
#include "server/base/metrics.h"
#include "server/base/secrets.h"
#include "server/store/record_codec.h"
#include "server/store/writer_core.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace tf::server {

namespace {

namespace fs = std::filesystem;

// Versioned migrations: kMigrations[i] takes the schema from version i to i + 1.
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE players (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  selector   TEXT NOT NULL UNIQUE,
  secret     TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE games (
  id            INTEGER PRIMARY KEY,
  code          TEXT NOT NULL UNIQUE,
  variant       TEXT NOT NULL,
  time_control  TEXT NOT NULL,
  is_public     INTEGER NOT NULL,
  quick_match   INTEGER NOT NULL,
  creator_side  TEXT NOT NULL,
  bot_level     INTEGER,
  silver_id     TEXT, silver_name TEXT,
  bronze_id     TEXT, bronze_name TEXT,
  status        TEXT NOT NULL,
  result        TEXT NOT NULL,
  turns         INTEGER NOT NULL,
  version       INTEGER NOT NULL,
  created_at    INTEGER NOT NULL,
  finished_at   INTEGER NOT NULL,
  quarantine    TEXT
);
CREATE INDEX games_by_status ON games(status, id);
CREATE INDEX games_by_silver ON games(silver_id, id);
CREATE INDEX games_by_bronze ON games(bronze_id, id);
CREATE TABLE journal (
  code    TEXT NOT NULL,
  version INTEGER NOT NULL,
  kind    TEXT NOT NULL,
  event   TEXT NOT NULL,
  at      INTEGER NOT NULL,
  PRIMARY KEY (code, version)
) WITHOUT ROWID;
)sql",
    // 2: the journal's storage format (server/store/record_codec.h; 1 = the protocol-v1 event
    // message, what schema 1 stored), and the row the writer rewrites to find out whether
    // writes work again after a failure.
    R"sql(
ALTER TABLE journal ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
CREATE TABLE store_probe (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at INTEGER NOT NULL,
  room BLOB
);
)sql",
    // 3: accounts and ratings (issue 19). Tokens get a table of their own (an account logs in
    // from several devices) and keep only a SHA-256 of their secret: the existing players'
    // tokens move there hashed (tf_sha256, registered by the store for the migration).
    R"sql(
CREATE TABLE tokens (
  selector    TEXT PRIMARY KEY,
  player_id   TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX tokens_by_player ON tokens(player_id);
INSERT INTO tokens (selector, player_id, secret_hash, created_at)
  SELECT selector, id, tf_sha256(secret), created_at FROM players;
UPDATE players SET secret = '';
CREATE TABLE accounts (
  player_id    TEXT PRIMARY KEY,
  username     TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  pw_hash      TEXT NOT NULL,
  created_at   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE ratings (
  player_id  TEXT NOT NULL,
  category   TEXT NOT NULL,
  rating     REAL NOT NULL,
  deviation  REAL NOT NULL,
  volatility REAL NOT NULL,
  games      INTEGER NOT NULL,
  last_at    INTEGER NOT NULL,
  PRIMARY KEY (player_id, category)
) WITHOUT ROWID;
CREATE INDEX ratings_by_category ON ratings(category, rating);
CREATE TABLE rating_history (
  code        TEXT NOT NULL,
  player_id   TEXT NOT NULL,
  category    TEXT NOT NULL,
  before_rating REAL NOT NULL, before_deviation REAL NOT NULL, before_volatility REAL NOT NULL,
  before_games  INTEGER NOT NULL, before_last_at INTEGER NOT NULL,
  rating      REAL NOT NULL,
  deviation   REAL NOT NULL,
  volatility  REAL NOT NULL,
  at          INTEGER NOT NULL,
  PRIMARY KEY (code, player_id)
) WITHOUT ROWID;
CREATE INDEX rating_history_by_player ON rating_history(player_id, category, at);
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

// tf_sha256(text): hex SHA-256, for migration 3.
void sql_sha256(sqlite3_context* ctx, int, sqlite3_value** argv) {
    auto p = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    std::string h = sha256_hex(p ? std::string_view(p, std::size_t(sqlite3_value_bytes(argv[0])))
                                 : std::string_view());
    sqlite3_result_text(ctx, h.c_str(), int(h.size()), SQLITE_TRANSIENT);
}

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The request's own errors (a duplicate key, a type mismatch) are not the store's trouble; every
// other failure (disk full, I/O, a locked, corrupt or vanished file, no memory) is.
bool is_fault(int rc) {
    int primary = rc & 0xff;
    return primary != SQLITE_CONSTRAINT && primary != SQLITE_MISMATCH;
}

// A prepared statement, reset after each use.
class Stmt {
  public:
    Stmt(sqlite3* db, const char* sql) : db_(db) {
        if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s_, nullptr) != SQLITE_OK)
            throw StoreError(std::string("sqlite prepare: ") + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, const std::string& v) {
        sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind(int i, std::int64_t v) {
        sqlite3_bind_int64(s_, i, v);
        return *this;
    }
    Stmt& bind(int i, double v) {
        sqlite3_bind_double(s_, i, v);
        return *this;
    }
    Stmt& bind_null(int i) {
        sqlite3_bind_null(s_, i);
        return *this;
    }
    // Text bound as NULL when empty.
    Stmt& bind_opt(int i, const std::string& v) { return v.empty() ? bind_null(i) : bind(i, v); }
    // SQLITE_ROW or SQLITE_DONE; throws on errors.
    int step() {
        int rc = sqlite3_step(s_);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            std::string msg = sqlite3_errmsg(db_);
            reset();
            throw StoreError("sqlite: " + msg, is_fault(rc));
        }
        return rc;
    }
    void run() {
        step();
        reset();
    }
    void reset() {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    std::string text(int col) const {
        auto p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
        return p ? std::string(p, std::size_t(sqlite3_column_bytes(s_, col))) : std::string();
    }
    std::int64_t integer(int col) const { return sqlite3_column_int64(s_, col); }
    double real(int col) const { return sqlite3_column_double(s_, col); }
    bool boolean(int col) const { return integer(col) != 0; }
    bool null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }

  private:
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errmsg(db);
        sqlite3_free(err);
        throw StoreError("sqlite: " + msg);
    }
}

// Runs `sql` and ignores its outcome (ROLLBACK after a failure that may have ended the
// transaction already).
void try_exec(sqlite3* db, const char* sql) {
    sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
}

sqlite3* open_db(const std::string& path, int flags) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close(db);
        throw StoreError("cannot open the database " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_extended_result_codes(db, 1);
    return db;
}

int user_version(sqlite3* db) {
    Stmt s(db, "PRAGMA user_version");
    s.step();
    return int(s.integer(0));
}

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
    "created_at, finished_at, rated, NULL AS creator_addr FROM games";

// The store holds password hashes and token hashes: a data folder the server makes is its
// user's alone (0700), and the files are 0600 (SQLite gives its -wal and -shm files the
// database's mode), whatever the umask. The database file is made here, 0600, before SQLite
// opens it. A folder that exists already is left as the operator made it (a warning says when
// others may list it: its files are 0600 anyway).
void secure_data_files(const std::string& dir, bool made, const std::string& db) {
    struct stat st {};
    if (made && ::chmod(dir.c_str(), 0700) != 0)
        throw StoreError("cannot make the data directory " + dir +
                         " private (0700): " + std::strerror(errno));
    if (!made && ::stat(dir.c_str(), &st) == 0 && (st.st_mode & 007))
        spdlog::warn("store: others may list the data directory {} (mode {:o}); 0700 is advised",
                     dir, st.st_mode & 0777);
    const int fd = ::open(db.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) throw StoreError("cannot open the database " + db + ": " + std::strerror(errno));
    const int rc = ::fchmod(fd, 0600);
    ::close(fd);
    if (rc != 0)
        throw StoreError("cannot make the database " + db +
                         " private (0600): " + std::strerror(errno));
    for (const char* suffix : {"-wal", "-shm", "-journal"})
        if (::chmod((db + suffix).c_str(), 0600) != 0 && errno != ENOENT)
            throw StoreError("cannot make " + db + suffix +
                             " private (0600): " + std::strerror(errno));
}

class SqliteStore : public Store {
  public:
    SqliteStore(const std::string& dir, SyncLevel sync)
        : path_((fs::path(dir) / "trunkfield.db").string()), sync_(sync) {
        std::error_code ec;
        const bool made = fs::create_directories(dir, ec);
        if (ec) throw StoreError("cannot create the data directory " + dir + ": " + ec.message());
        lock_ = std::make_unique<DataDirLock>(dir);
        secure_data_files(dir, made, path_);
        try {
            wr_ = open_db(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
            sqlite3_create_function(wr_, "tf_sha256", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                    nullptr, sql_sha256, nullptr, nullptr);
            migrate();
            open_connections();
        } catch (...) {
            close_connections();
            throw;
        }
        writer_ = std::thread([this] {
            pthread_setname_np(pthread_self(), "tf-store");  // as top and perf name it
            run();
        });
        checkpointer_ = std::thread([this] {
            pthread_setname_np(pthread_self(), "tf-checkpoint");
            checkpoint_run();
        });
    }

    ~SqliteStore() override {
        reads_.join();
        {
            std::lock_guard lock(qm_);
            stop_ = true;
        }
        cv_.notify_all();
        if (writer_.joinable()) writer_.join();
        {
            std::lock_guard lock(ckm_);
            ck_stop_ = true;
        }
        ckcv_.notify_all();
        if (checkpointer_.joinable()) checkpointer_.join();
        close_connections();
    }

    void commit(GameWrite w, Done done) override {
        enqueue(WriteOp::game(std::move(w), std::move(done)));
    }
    void add_player(StoredPlayer p) override { enqueue(WriteOp::new_player(std::move(p))); }
    void write_account(AccountWrite w, std::function<void(AccountResult)> done) override {
        enqueue(WriteOp::account_request(std::move(w), std::move(done)));
    }

    std::optional<StoredPlayer> player_by_selector(const std::string& selector) override {
        assert_off_io_thread();
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               "SELECT t.player_id, p.name, t.selector, t.secret_hash, a.username FROM tokens t "
               "JOIN players p ON p.id = t.player_id "
               "LEFT JOIN accounts a ON a.player_id = t.player_id WHERE t.selector = ?");
        s.bind(1, selector);
        if (s.step() != SQLITE_ROW) return std::nullopt;
        return StoredPlayer{s.text(0), s.text(1), s.text(2), s.text(3), s.text(4)};
    }

    std::optional<StoredAccount> account_by_name(const std::string& username) override {
        assert_off_io_thread();
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               "SELECT player_id, username, pw_hash, created_at FROM accounts "
               "WHERE username_key = ?");
        s.bind(1, username_key(username));
        if (s.step() != SQLITE_ROW) return std::nullopt;
        return StoredAccount{s.text(0), s.text(1), s.text(2), s.integer(3)};
    }

    std::vector<StoredRating> ratings_of(const std::string& player_id) override {
        assert_off_io_thread();
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               "SELECT category, rating, deviation, volatility, games, last_at FROM ratings "
               "WHERE player_id = ? ORDER BY category");
        s.bind(1, player_id);
        std::vector<StoredRating> out;
        while (s.step() == SQLITE_ROW) out.push_back(rating_of(s, 0));
        return out;
    }

    std::vector<LeaderRow> leaderboard(const std::string& category, int limit,
                                       std::int64_t active_since_ms) override {
        assert_off_io_thread();
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               "SELECT a.username, r.category, r.rating, r.deviation, r.volatility, r.games, "
               "r.last_at FROM ratings r JOIN accounts a ON a.player_id = r.player_id "
               "WHERE r.category = ?1 AND r.last_at >= ?2 AND r.deviation <= ?3 "
               "ORDER BY r.rating DESC, a.username_key LIMIT ?4");
        s.bind(1, category).bind(2, active_since_ms).bind(3, proto::kProvisionalDeviation);
        s.bind(4, std::int64_t(std::max(limit, 0)));
        std::vector<LeaderRow> out;
        while (s.step() == SQLITE_ROW) out.push_back({s.text(0), rating_of(s, 1)});
        return out;
    }

    std::optional<PlayerProfile> profile(const std::string& username, int recent,
                                         const std::string& viewer) override {
        auto account = account_by_name(username);
        if (!account) return std::nullopt;
        PlayerProfile p;
        p.account = *account;
        p.ratings = ratings_of(account->player_id);
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

    bool code_taken(const std::string& code) override {
        assert_off_io_thread();
        std::lock_guard lock(rm_);
        Stmt s(reader(), "SELECT 1 FROM games WHERE code = ?");
        s.bind(1, code);
        return s.step() == SQLITE_ROW;
    }

    std::vector<StoredGame> unfinished() override {
        assert_off_io_thread();
        std::lock_guard lock(rm_);
        Stmt s(reader(), (std::string("SELECT ") + kGameColumns +
                          " FROM game_rows WHERE status IN ('open', 'playing') ORDER BY id")
                             .c_str());
        std::vector<StoredGame> out;
        while (s.step() == SQLITE_ROW) out.push_back(game_of(s).second);
        return out;
    }

    std::optional<StoredGame> game(const std::string& code) override {
        assert_off_io_thread();
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               (std::string("SELECT ") + kGameColumns + " FROM game_rows WHERE code = ?").c_str());
        s.bind(1, code);
        if (s.step() != SQLITE_ROW) return std::nullopt;
        return game_of(s).second;
    }

    std::vector<JournalRow> journal(const std::string& code) override {
        assert_off_io_thread();
        std::lock_guard lock(rm_);
        Stmt s(reader(),
               "SELECT version, kind, event, at, format FROM journal WHERE code = ? "
               "ORDER BY version");
        s.bind(1, code);
        std::vector<JournalRow> out;
        while (s.step() == SQLITE_ROW)
            out.push_back({s.integer(0), s.text(1), s.text(2), s.integer(3), int(s.integer(4))});
        return out;
    }

    GamePage list(const GameQuery& q) override {
        assert_off_io_thread();
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

    void quarantine(const std::string& code, const std::string& why) override {
        assert_off_io_thread();
        std::lock_guard lock(wm_);
        if (!wr_) throw StoreError("the database is not open");
        Stmt s(wr_, "UPDATE games SET status = 'quarantined', quarantine = ? WHERE code = ?");
        s.bind(1, why).bind(2, code).run();
    }

    Stats stats() override { return core_.stats(); }
    std::size_t pending() override { return core_.pending(); }
    bool healthy() override { return core_.healthy(); }
    // The asynchronous reads run on a thread of their own: a slow history query can delay
    // other reads, never a network thread.
    Executor read_executor() override { return reads_.get_executor(); }

  private:
    using Op = WriteOp;

    sqlite3* reader() {
        if (!rd_) throw StoreError("the database " + path_ + " is not open (reopening failed)");
        return rd_;
    }

    // At start, on the writer connection: refuses an unreadable file or a newer schema, applies
    // the migrations this file lacks.
    void migrate() {
        int have = 0;
        try {
            have = user_version(wr_);
            exec(wr_, "SELECT count(*) FROM sqlite_schema");  // reads the file: corrupt -> error
        } catch (const StoreError& e) {
            throw StoreError("the database " + path_ + " is unreadable (" + e.what() +
                             "); it was left untouched");
        }
        if (have > kSchemaVersion)
            throw StoreError("the database " + path_ + " has schema version " +
                             std::to_string(have) + ", newer than this server's " +
                             std::to_string(kSchemaVersion) + "; refusing to start");
        {
            Stmt s(wr_, "PRAGMA journal_mode = WAL");
            s.step();
            if (s.text(0) != "wal")
                throw StoreError("the database " + path_ + " cannot use WAL mode");
        }
        for (int v = have; v < kSchemaVersion; ++v) {
            exec(wr_, "BEGIN IMMEDIATE");
            try {
                exec(wr_, kMigrations[v]);
                exec(wr_, ("PRAGMA user_version = " + std::to_string(v + 1)).c_str());
                exec(wr_, "COMMIT");
            } catch (const StoreError& e) {
                try_exec(wr_, "ROLLBACK");
                throw StoreError("migrating " + path_ + " to schema version " +
                                 std::to_string(v + 1) + " failed: " + e.what());
            }
            spdlog::info("store: migrated {} to schema version {}", path_, v + 1);
        }
    }

    // Both connections and the writer's prepared statements; also after a failure (reopen()).
    void open_connections() {
        if (!wr_) wr_ = open_db(path_, SQLITE_OPEN_READWRITE);
        exec(wr_, sync_ == SyncLevel::Full     ? "PRAGMA synchronous = FULL"
                  : sync_ == SyncLevel::Normal ? "PRAGMA synchronous = NORMAL"
                                               : "PRAGMA synchronous = OFF");
        // Checkpoints: see checkpoint_run() (this hook replaces SQLite's automatic ones).
        sqlite3_wal_hook(wr_, &SqliteStore::on_wal, this);
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
            "version, created_at, finished_at, rated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
            "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)");
        update_game_ = std::make_unique<Stmt>(
            wr_,
            "UPDATE games SET silver_id = ?2, silver_name = ?3, bronze_id = ?4, bronze_name = ?5, "
            "status = ?6, result = ?7, turns = ?8, version = ?9, finished_at = ?10 "
            "WHERE code = ?1");
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

    void enqueue(Op op) {
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
        const std::int64_t now = now_ms();
        insert_player_->bind(1, p.id).bind(2, p.name).bind(3, p.selector).bind(4, now).run();
        insert_token_->bind(1, p.selector).bind(2, p.id).bind(3, p.secret_hash).bind(4, now).run();
    }

    void probe() {
        {
            std::lock_guard lock(wm_);
            try {
                begin_->run();
                probe_->bind(1, now_ms()).run();
                write_unsaved_players();
                commit_->run();
            } catch (const StoreError& e) {
                try_exec(wr_, "ROLLBACK");
                return failed("the probe write", e.what(), 0);
            }
            core_.unsaved_players.clear();
        }
        succeeded();
    }

    void write_batch(std::deque<Op>& batch) {
        std::vector<std::optional<std::string>> errors(batch.size());
        std::vector<bool> op_faults(batch.size(), false);
        std::optional<std::string> batch_error;
        bool fault = false;
        {
            std::lock_guard lock(wm_);
            try {
                begin_->run();
                write_unsaved_players();
                for (std::size_t i = 0; i < batch.size(); ++i) {
                    savepoint_->run();
                    try {
                        apply(batch[i]);
                        release_->run();
                    } catch (const StoreError& e) {
                        // A fault inside a transaction may have rolled all of it back: then
                        // the whole batch failed, not this operation alone.
                        if (sqlite3_get_autocommit(wr_)) throw;
                        errors[i] = e.what();
                        op_faults[i] = e.fault;
                        fault = fault || e.fault;
                        seats_.erase(batch[i].write.code);
                        try_exec(wr_, "ROLLBACK TO op; RELEASE op");
                    }
                }
                commit_->run();
                core_.unsaved_players.clear();
            } catch (const StoreError& e) {
                batch_error = e.what();
                fault = fault || e.fault;
                seats_.clear();
                try_exec(wr_, "ROLLBACK");
            }
        }
        finish(batch, errors, batch_error, fault, op_faults);
        checkpoint_rest();  // after the batch's answers went out
        if (!fault) return succeeded();
        std::size_t first = 0;
        while (first < errors.size() && !errors[first]) ++first;
        failed(batch[first < batch.size() ? first : 0].what(),
               batch_error ? *batch_error : *errors[first], int(batch.size()));
    }

    // WAL checkpoints, out of the commits' way. SQLite's automatic checkpoint copies the log's
    // pages into the database file and fdatasyncs it inside the commit that takes the log past
    // 1,000 pages: a 3-5 ms stall every ~300 commits at 2,000 moves/s, the durable p99's tail.
    // A checkpoint on a thread of its own alone never lets the log restart under a steady load
    // (a write lands during every checkpoint, so the log is never wholly copied: tried earlier,
    // the checkpoints ran back to back). So the work is split: past kCheckpointPages the
    // checkpointer copies everything committed so far on its own connection (PASSIVE: it waits
    // for nobody); once it is done, the writer copies the few pages committed meanwhile, after
    // its batch's answers went out, and the next transaction restarts the log from its start.
    // Past kCheckpointCap pages (the checkpointer failing or far behind) the writer copies all
    // of it itself, as SQLite would. A longer log means fewer checkpoints (each copies a page
    // once however often it changed) and fewer commits whose fdatasync queues behind one: the
    // durable p99 at 2,000 moves/s was ~2.0 ms at 1,000 pages, ~1.5 at 4,000, ~1.1 at 8,000
    // (32 MB of log at most, before the cap's 128 MB).
    static constexpr int kCheckpointPages = 8000;
    static constexpr int kCheckpointCap = 32000;
    enum class Ck { Idle, Running, Done };

    // After each commit (writer thread, inside the commit): the log's size in pages.
    static int on_wal(void* self, sqlite3*, const char*, int pages) {
        auto* store = static_cast<SqliteStore*>(self);
        store->wal_pages_ = pages;
        if (pages >= kCheckpointPages && store->ck_ == Ck::Idle) {
            store->ck_ = Ck::Running;
            {
                std::lock_guard lock(store->ckm_);
                store->ck_wanted_ = true;
            }
            store->ckcv_.notify_one();
        }
        return SQLITE_OK;
    }

    void checkpoint_rest() {
        if (ck_ != Ck::Done && wal_pages_ < kCheckpointCap) return;
        std::lock_guard lock(wm_);
        if (!wr_) return;
        int log = 0, copied = 0;
        int rc = sqlite3_wal_checkpoint_v2(wr_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
        if (rc == SQLITE_BUSY) return raise_checkpointer();  // still at it: after the next batch
        if (rc != SQLITE_OK) spdlog::debug("store: checkpoint: {}", sqlite3_errmsg(wr_));
        wal_pages_ = 0;
        ck_raised_ = false;
        ck_ = Ck::Idle;
    }

    // The log is at the cap and the checkpointer still holds the checkpoint: it may be starved
    // of CPU at SCHED_IDLE (checkpoint_run()), so it goes back to the normal policy until its
    // next checkpoint. Lifting a thread out of SCHED_IDLE needs CAP_SYS_NICE (root, as in the
    // Docker image) or an RLIMIT_NICE of 20; without them it stays idle, and the log grows past
    // the cap until the checkpointer gets the CPU. Writer thread.
    void raise_checkpointer() {
        if (wal_pages_ < kCheckpointCap || ck_raised_) return;
        ck_raised_ = true;
        sched_param normal{};
        int err = ck_tid_ ? sched_setscheduler(ck_tid_, SCHED_OTHER, &normal) : 0;
        spdlog::debug("store: the log is at {} pages and the checkpointer is behind: {}",
                      wal_pages_,
                      err ? std::string("cannot raise it: ") + std::strerror(errno)
                          : std::string("raised to the normal policy"));
    }

    // The checkpointer thread: its own connection, opened when first needed. It runs at
    // SCHED_IDLE: a checkpoint takes 1.5-4 ms of CPU at 2,000 moves/s, and a thread of the normal
    // policy keeps the CPU for its whole slice even when the connections' thread wakes up
    // (measured: about 60 moves in 16,000 delayed past 0.8 ms around checkpoints, 30 at
    // SCHED_IDLE; docs/BENCHMARKS.md "The third step: the durable tail, move by move"). It goes
    // back to SCHED_IDLE before each checkpoint, in case the writer raised it for the last one.
    // On a machine with a core to spare it runs there anyway.
    void checkpoint_run() {
        ck_tid_ = pid_t(::syscall(SYS_gettid));
        auto to_idle = [] {
            sched_param idle{};
            if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) != 0)
                spdlog::debug("store: the checkpointer stays at the normal policy");
        };
        to_idle();
        sqlite3* db = nullptr;
        for (;;) {
            {
                std::unique_lock lock(ckm_);
                ckcv_.wait(lock, [&] { return ck_stop_ || ck_wanted_; });
                if (ck_stop_) break;
                ck_wanted_ = false;
            }
            to_idle();
            try {
                if (!db) {
                    db = open_db(path_, SQLITE_OPEN_READWRITE);
                    exec(db, sync_ == SyncLevel::Full     ? "PRAGMA synchronous = FULL"
                             : sync_ == SyncLevel::Normal ? "PRAGMA synchronous = NORMAL"
                                                          : "PRAGMA synchronous = OFF");
                }
                int log = 0, copied = 0;
                if (sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log,
                                              &copied) != SQLITE_OK)
                    spdlog::debug("store: background checkpoint: {}", sqlite3_errmsg(db));
            } catch (const StoreError& e) {
                spdlog::debug("store: background checkpoint: {}", e.what());
            }
            ck_ = Ck::Done;  // even after a failure: the writer then does it all, as before
        }
        if (db) sqlite3_close(db);
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
        if (op.account) apply_account(*op.account);
        const auto& w = op.write;
        if (w.create) {
            write_game(*insert_game_, *w.create, true);
            seats_[w.code] = seat_key(*w.create);
        }
        for (const auto& r : w.rows) {
            insert_row_->bind(1, w.code).bind(2, r.version).bind(3, r.kind).bind(4, r.event);
            insert_row_->bind(5, r.at_ms).bind(6, std::int64_t(r.format)).run();
        }
        if (w.rate) rate(w.code, *w.rate);
        if (!w.update) return;
        // Most operations are a turn: only `turns` and `version` change, and while the game is
        // unfinished those are read from its journal (kGameRowsView), so its row is left as it
        // is: one page fewer per commit (of about two; fewer pages to sync and to checkpoint).
        // The row is rewritten when its seats or status change, and at the end.
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

    // An account request (writer thread, inside the operation's savepoint). A username taken in
    // any letter case breaks the UNIQUE key: the request's own error, not the store's.
    void apply_account(const AccountWrite& a) {
        using K = AccountWrite::Kind;
        auto revoke = [&](const std::string& keep) {
            Stmt s(wr_, "DELETE FROM tokens WHERE player_id = ? AND selector != ?");
            s.bind(1, a.player_id).bind(2, keep).run();
        };
        switch (a.kind) {
            case K::Register: {
                Stmt s(wr_,
                       "INSERT INTO accounts (player_id, username, username_key, pw_hash, "
                       "created_at) SELECT id, ?2, ?3, ?4, ?5 FROM players WHERE id = ?1");
                s.bind(1, a.player_id).bind(2, a.username).bind(3, username_key(a.username));
                s.bind(4, a.pw_hash).bind(5, now_ms()).run();
                if (sqlite3_changes(wr_) != 1)
                    throw StoreError("no player " + a.player_id + " to register", false);
                Stmt n(wr_, "UPDATE players SET name = ? WHERE id = ?");
                n.bind(1, a.username).bind(2, a.player_id).run();
                break;
            }
            case K::AddToken: {
                Stmt s(wr_,
                       "INSERT INTO tokens (selector, player_id, secret_hash, created_at) "
                       "VALUES (?, ?, ?, ?)");
                s.bind(1, a.selector).bind(2, a.player_id).bind(3, a.secret_hash);
                s.bind(4, now_ms()).run();
                break;
            }
            case K::RevokeTokens:
                revoke(a.selector);
                break;
            case K::RevokeToken: {
                Stmt s(wr_, "DELETE FROM tokens WHERE player_id = ? AND selector = ?");
                s.bind(1, a.player_id).bind(2, a.selector).run();
                break;
            }
            case K::SetPassword: {
                Stmt s(wr_, "UPDATE accounts SET pw_hash = ? WHERE player_id = ?");
                s.bind(1, a.pw_hash).bind(2, a.player_id).run();
                if (sqlite3_changes(wr_) != 1)
                    throw StoreError("player " + a.player_id + " has no account", false);
                revoke(a.selector);
                break;
            }
        }
    }

    // A rated game's end (writer thread, in the operation's savepoint with the game's last
    // rows). A game already in the history was rated: its recorded outcome is reported again.
    void rate(const std::string& code, const RateGame& g) {
        {
            Stmt h(wr_,
                   "SELECT player_id, category, before_rating, before_deviation, "
                   "before_volatility, before_games, before_last_at, rating, deviation, "
                   "volatility, at FROM rating_history WHERE code = ?");
            h.bind(1, code);
            bool seen = false;
            while (h.step() == SQLITE_ROW) {
                const int i = h.text(0) == g.player[0] ? 0 : 1;
                const std::string category = h.text(1);
                g.outcome->before[i] = {category,  h.real(2),         h.real(3),
                                        h.real(4), int(h.integer(5)), h.integer(6)};
                g.outcome->after[i] = {
                    category,     h.real(7), h.real(8), h.real(9), int(h.integer(5)) + 1,
                    h.integer(10)};
                seen = true;
            }
            if (seen) return;
        }
        StoredRating before[2];
        for (int i = 0; i < 2; ++i) {
            Stmt s(wr_,
                   "SELECT category, rating, deviation, volatility, games, last_at FROM ratings "
                   "WHERE player_id = ? AND category = ?");
            s.bind(1, g.player[i]).bind(2, g.category);
            if (s.step() == SQLITE_ROW) before[i] = rating_of(s, 0);
            before[i].category = g.category;
        }
        *g.outcome = g.rated(before);
        for (int i = 0; i < 2; ++i) {
            const StoredRating& b = g.outcome->before[i];
            const StoredRating& a = g.outcome->after[i];
            Stmt u(wr_,
                   "INSERT INTO ratings (player_id, category, rating, deviation, volatility, "
                   "games, last_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                   "ON CONFLICT (player_id, category) DO UPDATE SET rating = ?3, deviation = ?4, "
                   "volatility = ?5, games = ?6, last_at = ?7");
            u.bind(1, g.player[i]).bind(2, g.category).bind(3, a.rating).bind(4, a.deviation);
            u.bind(5, a.volatility).bind(6, std::int64_t(a.games)).bind(7, a.last_ms).run();
            Stmt h(wr_,
                   "INSERT INTO rating_history (code, player_id, category, before_rating, "
                   "before_deviation, before_volatility, before_games, before_last_at, rating, "
                   "deviation, volatility, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                   "?11, ?12)");
            h.bind(1, code).bind(2, g.player[i]).bind(3, g.category).bind(4, b.rating);
            h.bind(5, b.deviation).bind(6, b.volatility).bind(7, std::int64_t(b.games));
            h.bind(8, b.last_ms).bind(9, a.rating).bind(10, a.deviation).bind(11, a.volatility);
            h.bind(12, a.last_ms).run();
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
        return k + std::to_string(g.finished_ms);
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
        } else {
            s.bind_opt(2, g.seat_id[0]).bind_opt(3, g.seat_name[0]);
            s.bind_opt(4, g.seat_id[1]).bind_opt(5, g.seat_name[1]);
            s.bind(6, g.status).bind(7, g.result).bind(8, g.turns).bind(9, g.version);
            s.bind(10, g.finished_ms);
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

    // Checkpoints (checkpoint_run()).
    std::atomic<Ck> ck_{Ck::Idle};
    std::atomic<pid_t> ck_tid_{0};  // the checkpointer's thread id, for raise_checkpointer()
    bool ck_raised_ = false;        // writer thread: raised during this checkpoint
    std::atomic<int> wal_pages_{0};
    std::mutex ckm_;
    std::condition_variable ckcv_;
    bool ck_wanted_ = false, ck_stop_ = false;
    std::thread checkpointer_;

    // Faults: the connections are opened again before the next write.
    bool reopen_ = false;
    WriterCore core_{std::chrono::milliseconds(100), std::chrono::milliseconds(5000),
                     "retrying with backoff"};

    boost::asio::thread_pool reads_{1};  // last: stopped first, before the connections close
};

}  // namespace

DataDirLock::DataDirLock(const std::string& dir) : path_((fs::path(dir) / kFile).string()) {
    created_ = !fs::exists(path_);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0)
        throw StoreError("the data directory " + dir + " is not writable: " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd_);
        throw StoreError("the data directory " + dir + " is in use by another server", false);
    }
}

DataDirLock::~DataDirLock() {
    ::close(fd_);
}

std::unique_ptr<Store> open_sqlite_store(const std::string& dir, SyncLevel sync) {
    return std::make_unique<SqliteStore>(dir, sync);
}

}  // namespace tf::server
