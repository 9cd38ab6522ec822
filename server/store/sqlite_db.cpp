#include "server/store/sqlite_db.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>

#include "server/base/secrets.h"
#include "server/store/sqlite_store.h"

namespace tf::server {

namespace sqlite {

namespace {

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
    // 4: puzzles (issue 37; server/store/puzzle_db.h): the puzzles with their own Glicko-2
    // rating, each player's finished attempts (the first one per puzzle), the puzzle of each
    // day, and the finished games already mined for puzzles.
    R"sql(
CREATE TABLE puzzles (
  id           TEXT PRIMARY KEY,
  position     TEXT NOT NULL,
  body         TEXT NOT NULL,
  themes       TEXT NOT NULL,
  source_game  TEXT,
  source_turn  INTEGER NOT NULL,
  solver_turns INTEGER NOT NULL,
  margin       REAL NOT NULL,
  rating       REAL NOT NULL,
  deviation    REAL NOT NULL,
  volatility   REAL NOT NULL,
  games        INTEGER NOT NULL,
  last_at      INTEGER NOT NULL,
  plays        INTEGER NOT NULL,
  solved       INTEGER NOT NULL,
  added_at     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX puzzles_by_rating ON puzzles(rating);
CREATE TABLE puzzle_attempts (
  player_id TEXT NOT NULL,
  puzzle_id TEXT NOT NULL,
  solved    INTEGER NOT NULL,
  rated     INTEGER NOT NULL,
  at        INTEGER NOT NULL,
  rating    REAL,
  PRIMARY KEY (player_id, puzzle_id)
) WITHOUT ROWID;
CREATE INDEX puzzle_attempts_by_player ON puzzle_attempts(player_id, at);
CREATE TABLE puzzle_days (
  day       TEXT PRIMARY KEY,
  puzzle_id TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE puzzle_mined (
  code  TEXT PRIMARY KEY,
  at    INTEGER NOT NULL,
  found INTEGER NOT NULL
) WITHOUT ROWID;
)sql",
    // 5: challenges and notifications (issue 35; server/store/social_db.h): a challenge is an
    // open game with the one account invited to join it; each player's notifications; the
    // players' relations to others (follow, block).
    R"sql(
ALTER TABLE games ADD COLUMN invitee_id TEXT;
ALTER TABLE games ADD COLUMN invitee_name TEXT;
CREATE TABLE notifications (
  id        INTEGER PRIMARY KEY,
  player_id TEXT NOT NULL,
  kind      TEXT NOT NULL,
  body      TEXT NOT NULL,
  at        INTEGER NOT NULL,
  read_at   INTEGER
);
CREATE INDEX notifications_by_player ON notifications(player_id, id);
CREATE TABLE relations (
  player_id TEXT NOT NULL,
  other_id  TEXT NOT NULL,
  kind      TEXT NOT NULL,
  at        INTEGER NOT NULL,
  PRIMARY KEY (player_id, other_id, kind)
) WITHOUT ROWID;
CREATE INDEX relations_by_other ON relations(other_id, kind);
)sql",
    // 6: moderation (issue 35; server/store/social_db.h): roles given by the operator, the
    // restrictions moderators put on accounts, players' reports, and the audit log of every
    // moderator's action, which nobody can change (the triggers refuse it); and an account's
    // own settings (whether its followers are told of its games).
    R"sql(
CREATE TABLE roles (
  player_id TEXT NOT NULL,
  role      TEXT NOT NULL,
  at        INTEGER NOT NULL,
  PRIMARY KEY (player_id, role)
) WITHOUT ROWID;
CREATE TABLE restrictions (
  player_id        TEXT PRIMARY KEY,
  chat_muted_until INTEGER NOT NULL DEFAULT 0,
  shadow           INTEGER NOT NULL DEFAULT 0,
  closed_at        INTEGER NOT NULL DEFAULT 0,
  warnings         INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE reports (
  id          INTEGER PRIMARY KEY,
  reporter_id TEXT NOT NULL,
  player_id   TEXT NOT NULL,
  reason      TEXT NOT NULL,
  body        TEXT NOT NULL,
  game        TEXT,
  at          INTEGER NOT NULL,
  handled_at  INTEGER,
  handled_by  TEXT,
  outcome     TEXT
);
CREATE INDEX reports_by_reporter ON reports(reporter_id, at);
CREATE INDEX reports_by_player ON reports(player_id);
CREATE TABLE audit (
  id           INTEGER PRIMARY KEY,
  at           INTEGER NOT NULL,
  moderator_id TEXT,
  moderator    TEXT NOT NULL,
  action       TEXT NOT NULL,
  player_id    TEXT NOT NULL,
  player       TEXT NOT NULL,
  report_id    INTEGER,
  minutes      INTEGER,
  note         TEXT NOT NULL
);
CREATE TABLE account_settings (
  player_id      TEXT PRIMARY KEY,
  announce_games INTEGER NOT NULL DEFAULT 1
) WITHOUT ROWID;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log cannot be changed'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log cannot be changed'); END;
)sql",
    // 7: correspondence games (issue 35): whose move a game waits for and until when, for each
    // player's list of games where it is their move (GET /api/playing).
    R"sql(
ALTER TABLE games ADD COLUMN to_move TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN move_by INTEGER NOT NULL DEFAULT 0;
)sql",
    // 8: e-mail (issue 35): an account's address and what it wants mailed, and the mails to send
    // (server/mail/mailer.h), kept until sent so that a restart loses none.
    R"sql(
CREATE TABLE mail_settings (
  player_id    TEXT PRIMARY KEY,
  address      TEXT NOT NULL,
  verified_at  INTEGER NOT NULL DEFAULT 0,
  verify_hash  TEXT NOT NULL DEFAULT '',
  unsub_token  TEXT NOT NULL UNIQUE,
  turns        INTEGER NOT NULL DEFAULT 1,
  challenges   INTEGER NOT NULL DEFAULT 1,
  digest       INTEGER NOT NULL DEFAULT 0,
  last_mail_at INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE mail_queue (
  id          INTEGER PRIMARY KEY,
  player_id   TEXT NOT NULL,
  kind        TEXT NOT NULL,
  game        TEXT NOT NULL DEFAULT '',
  body        TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  send_after  INTEGER NOT NULL,
  state       TEXT NOT NULL,
  attempts    INTEGER NOT NULL DEFAULT 0,
  lease_until INTEGER NOT NULL DEFAULT 0,
  sent_at     INTEGER NOT NULL DEFAULT 0,
  error       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX mail_queue_due ON mail_queue(state, send_after);
CREATE INDEX mail_queue_by_player ON mail_queue(player_id, kind, game);
)sql",
    // 9: vacation (issue 35): an account's budget year, the time used of it, and when the
    // running vacation began (0: none runs).
    R"sql(
CREATE TABLE vacations (
  player_id TEXT PRIMARY KEY,
  year      INTEGER NOT NULL,
  used_ms   INTEGER NOT NULL DEFAULT 0,
  since_ms  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX vacations_on ON vacations(since_ms) WHERE since_ms > 0;
)sql",
    // 10: personal access tokens for the HTTP API (issue 36): the secret's SHA-256 only, the
    // scopes space-separated, when it was made and last used (0: never).
    R"sql(
CREATE TABLE api_tokens (
  selector    TEXT PRIMARY KEY,
  player_id   TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  label       TEXT NOT NULL,
  scopes      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  used_at     INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX api_tokens_by_player ON api_tokens(player_id);
)sql",
    // 11: tournaments (issue 38; server/store/tournament_db.h): each with its settings, phase
    // and director's lease; its entrants; the games it paired, with their results; its byes.
    R"sql(
CREATE TABLE tournaments (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  name          TEXT NOT NULL,
  created_by    TEXT NOT NULL,
  creator_name  TEXT NOT NULL,
  settings      TEXT NOT NULL,
  is_public     INTEGER NOT NULL,
  password_hash TEXT NOT NULL DEFAULT '',
  starts_at     INTEGER NOT NULL,
  phase         TEXT NOT NULL,
  round         INTEGER NOT NULL DEFAULT 0,
  director      TEXT NOT NULL DEFAULT '',
  epoch         INTEGER NOT NULL DEFAULT 0,
  lease_until   INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL,
  finished_at   INTEGER NOT NULL DEFAULT 0,
  schedule_key  TEXT UNIQUE
) WITHOUT ROWID;
CREATE INDEX tournaments_by_phase ON tournaments(phase, starts_at);
CREATE TABLE tournament_players (
  tournament TEXT NOT NULL,
  player_id  TEXT NOT NULL,
  name       TEXT NOT NULL,
  rating     INTEGER NOT NULL,
  active     INTEGER NOT NULL,
  bot        INTEGER NOT NULL DEFAULT 0,
  seq        INTEGER NOT NULL,
  PRIMARY KEY (tournament, player_id)
) WITHOUT ROWID;
CREATE INDEX tournament_players_by_player ON tournament_players(player_id);
CREATE TABLE tournament_games (
  tournament     TEXT NOT NULL,
  seq            INTEGER NOT NULL,
  round          INTEGER NOT NULL,
  code           TEXT NOT NULL UNIQUE,
  silver         TEXT NOT NULL,
  bronze         TEXT NOT NULL,
  ended          INTEGER NOT NULL DEFAULT 0,
  result         TEXT NOT NULL DEFAULT '',
  turns          INTEGER NOT NULL DEFAULT 0,
  silver_berserk INTEGER NOT NULL DEFAULT 0,
  bronze_berserk INTEGER NOT NULL DEFAULT 0,
  paired_at      INTEGER NOT NULL,
  ended_at       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tournament, seq)
) WITHOUT ROWID;
CREATE TABLE tournament_byes (
  tournament TEXT NOT NULL,
  round      INTEGER NOT NULL,
  player_id  TEXT NOT NULL,
  PRIMARY KEY (tournament, round)
) WITHOUT ROWID;
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

}  // namespace

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

void migrate_schema(sqlite3* db, const std::string& path) {
    sqlite3_create_function(db, "tf_sha256", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                            sql_sha256, nullptr, nullptr);
    int have = 0;
    try {
        have = user_version(db);
        exec(db, "SELECT count(*) FROM sqlite_schema");  // reads the file: corrupt -> error
    } catch (const StoreError& e) {
        throw StoreError("the database " + path + " is unreadable (" + e.what() +
                         "); it was left untouched");
    }
    if (have > kSchemaVersion)
        throw StoreError("the database " + path + " has schema version " + std::to_string(have) +
                         ", newer than this server's " + std::to_string(kSchemaVersion) +
                         "; refusing to start");
    {
        Stmt s(db, "PRAGMA journal_mode = WAL");
        s.step();
        if (s.text(0) != "wal") throw StoreError("the database " + path + " cannot use WAL mode");
    }
    for (int v = have; v < kSchemaVersion; ++v) {
        try {
            transaction(db, [&] {
                exec(db, kMigrations[v]);
                exec(db, ("PRAGMA user_version = " + std::to_string(v + 1)).c_str());
            });
        } catch (const StoreError& e) {
            throw StoreError("migrating " + path + " to schema version " + std::to_string(v + 1) +
                             " failed: " + e.what());
        }
        spdlog::info("store: migrated {} to schema version {}", path, v + 1);
    }
}

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

}  // namespace sqlite

namespace fs = std::filesystem;

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

}  // namespace tf::server
