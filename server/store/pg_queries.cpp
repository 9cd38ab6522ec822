#include "server/store/pg_queries.h"

#include "proto/ratings.h"
#include "server/store/writer_core.h"

namespace tf::server::pg {

const Conn::Statements& statements() {
    static const Conn::Statements s = {
        {"ins_player",
         "INSERT INTO players (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"},
        {"ins_token_once",
         "INSERT INTO tokens (selector, player_id, secret_hash, created_at) "
         "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING"},
        {"ins_token",
         "INSERT INTO tokens (selector, player_id, secret_hash, created_at) "
         "VALUES ($1, $2, $3, $4)"},
        {"ins_game",
         "INSERT INTO games (code, variant, time_control, is_public, quick_match, creator_side, "
         "bot_level, silver_id, silver_name, bronze_id, bronze_name, status, result, turns, "
         "version, created_at, finished_at, rated, owner, epoch, creator_addr, invitee_id, "
         "invitee_name, to_move, move_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
         "$12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)"},
        // Fencing (cluster mode): the write's first statement updates the game's row only while
        // this node still owns it at this epoch, which also locks it: a takeover (an UPDATE of
        // owner and epoch) waits for this write's transaction, and a write after the takeover
        // fails (TF001) before anything of it is applied, instead of forking the game. A write
        // without a row update (none today) share-locks the row instead (`fence`).
        {"upd_game_fenced",
         "WITH u AS (UPDATE games SET silver_id = $2, silver_name = $3, bronze_id = $4, "
         "bronze_name = $5, status = $6, result = $7, turns = $8, version = $9, "
         "finished_at = $10, creator_addr = CASE WHEN $6 = 'open' THEN creator_addr END, "
         "to_move = $13, move_by = $14 WHERE code = $1 AND owner = $11 AND epoch = $12 "
         "RETURNING 1) "
         "SELECT tf_check(count(*) = 1, '" +
             std::string(kFenced) +
             "game ' || $1::text || ' is no longer owned by node ' || $11::text || ' at epoch ' "
             "|| $12::text, 'TF001') FROM u"},
        {"fence",
         "WITH g AS (SELECT 1 FROM games WHERE code = $1 AND owner = $2 AND epoch = $3 FOR SHARE) "
         "SELECT tf_check((SELECT count(*) FROM g) = 1, '" +
             std::string(kFenced) +
             "game ' || $1::text || ' is no longer owned by node ' || $2::text || ' at epoch ' || "
             "$3::text, 'TF001')"},
        {"upd_game",
         "WITH u AS (UPDATE games SET silver_id = $2, silver_name = $3, bronze_id = $4, "
         "bronze_name = $5, status = $6, result = $7, turns = $8, version = $9, "
         "finished_at = $10, creator_addr = CASE WHEN $6 = 'open' THEN creator_addr END, "
         "to_move = $11, move_by = $12 WHERE code = $1 RETURNING 1) "
         "SELECT tf_check(count(*) = 1, 'no game ' || $1::text || ' to update') FROM u"},
        {"ins_row",
         "INSERT INTO journal (code, version, kind, event, at, format) "
         "VALUES ($1, $2, $3, $4, $5, $6)"},
        {"register",
         "WITH a AS (INSERT INTO accounts (player_id, username, username_key, pw_hash, "
         "created_at) SELECT id, $2::text, $3::text, $4::text, $5::bigint FROM players WHERE id = "
         "$1 "
         "RETURNING player_id), "
         "n AS (UPDATE players SET name = $2 WHERE id IN (SELECT player_id FROM a) RETURNING 1) "
         "SELECT tf_check((SELECT count(*) FROM a) = 1, "
         "'no player ' || $1::text || ' to register')"},
        {"revoke_others", "DELETE FROM tokens WHERE player_id = $1 AND selector <> $2"},
        {"revoke_one", "DELETE FROM tokens WHERE player_id = $1 AND selector = $2"},
        {"set_password",
         "WITH u AS (UPDATE accounts SET pw_hash = $2 WHERE player_id = $1 RETURNING 1) "
         "SELECT tf_check(count(*) = 1, 'player ' || $1::text || ' has no account') FROM u"},
        {"rating_history",
         "SELECT player_id, category, before_rating, before_deviation, before_volatility, "
         "before_games, before_last_at, rating, deviation, volatility, at FROM rating_history "
         "WHERE code = $1"},
        {"rating_of",
         "SELECT category, rating, deviation, volatility, games, last_at FROM ratings "
         "WHERE player_id = $1 AND category = $2"},
        // Written only over the rating that was read ($8 games): otherwise 40001, computed again.
        {"put_rating",
         "WITH u AS (INSERT INTO ratings (player_id, category, rating, deviation, volatility, "
         "games, last_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (player_id, category) "
         "DO UPDATE SET rating = $3, deviation = $4, volatility = $5, games = $6, last_at = $7 "
         "WHERE ratings.games = $8 RETURNING 1) "
         "SELECT tf_check(count(*) = 1, 'the rating changed meanwhile', '40001') FROM u"},
        {"put_history",
         "INSERT INTO rating_history (code, player_id, category, before_rating, "
         "before_deviation, before_volatility, before_games, before_last_at, rating, deviation, "
         "volatility, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"},
        {"probe",
         "INSERT INTO store_probe (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = $1"},
        {"player_by_selector",
         "SELECT t.player_id, p.name, t.selector, t.secret_hash, a.username FROM tokens t "
         "JOIN players p ON p.id = t.player_id "
         "LEFT JOIN accounts a ON a.player_id = t.player_id WHERE t.selector = $1"},
        {"account_by_key",
         std::string("SELECT ") + kAccountColumns + " FROM accounts WHERE username_key = $1"},
        {"ratings_of",
         "SELECT category, rating, deviation, volatility, games, last_at FROM ratings "
         "WHERE player_id = $1 ORDER BY category COLLATE \"C\""},
        {"leaderboard",
         "SELECT a.username, r.category, r.rating, r.deviation, r.volatility, r.games, "
         "r.last_at FROM ratings r JOIN accounts a ON a.player_id = r.player_id "
         "WHERE r.category = $1 AND r.last_at >= $2 AND r.deviation <= $3 AND EXISTS (SELECT 1 "
         "FROM roles WHERE roles.player_id = r.player_id AND roles.role = 'bot') = ($5::int = 1) "
         "ORDER BY r.rating DESC, a.username_key COLLATE \"C\" LIMIT $4"},
        {"profile_ratings",
         "SELECT r.category, r.rating, r.deviation, r.volatility, r.games, r.last_at "
         "FROM ratings r JOIN accounts a ON a.player_id = r.player_id "
         "WHERE a.username_key = $1 ORDER BY r.category COLLATE \"C\""},
        {"profile_history",
         "SELECT h.category, h.at, h.rating, CASE WHEN g.is_public IS NOT FALSE OR "
         "($2 <> '' AND (g.silver_id = $2 OR g.bronze_id = $2)) THEN h.code ELSE '' END "
         "FROM rating_history h JOIN accounts a ON a.player_id = h.player_id "
         "LEFT JOIN games g ON g.code = h.code WHERE a.username_key = $1 "
         "ORDER BY h.at, h.code COLLATE \"C\""},
        {"profile_totals",
         "SELECT CASE WHEN g.silver_id = a.player_id THEN 0 ELSE 1 END, "
         "g.result::json->>'winner', count(*) FROM games g JOIN accounts a "
         "ON g.silver_id = a.player_id OR g.bronze_id = a.player_id "
         "WHERE a.username_key = $1 AND g.status = 'over' GROUP BY 1, 2"},
        {"profile_recent", std::string("SELECT ") + kGameColumns +
                               " FROM games WHERE id IN (SELECT g.id FROM games g JOIN accounts a "
                               "ON g.silver_id = a.player_id OR g.bronze_id = a.player_id "
                               "WHERE a.username_key = $1 AND (g.is_public OR ($3 <> '' AND "
                               "(g.silver_id = $3 OR g.bronze_id = $3)))) "
                               "ORDER BY id DESC LIMIT $2"},
        {"open_counts",
         "SELECT count(*) FILTER (WHERE silver_id = $1 OR bronze_id = $1), "
         "count(*) FILTER (WHERE creator_addr = $2) FROM games WHERE status = 'open' AND "
         "owner IS DISTINCT FROM $3 AND (silver_id = $1 OR bronze_id = $1 OR creator_addr = $2)"},
        {"code_taken", "SELECT 1 FROM games WHERE code = $1"},
        {"unfinished", std::string("SELECT ") + kGameColumns +
                           " FROM games WHERE status IN ('open', 'playing') ORDER BY id"},
        {"game", std::string("SELECT ") + kGameColumns + " FROM games WHERE code = $1"},
        {"journal",
         "SELECT version, kind, event, at, format FROM journal WHERE code = $1 ORDER BY version"},
        {"quarantine", "UPDATE games SET status = 'quarantined', quarantine = $2 WHERE code = $1"},
    };
    return s;
}

std::vector<StoredGame> games_of(const Result& r) {
    std::vector<StoredGame> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back(game_of(Row{r, i}).second);
    return out;
}

std::vector<StoredRating> ratings_from(const Result& r) {
    std::vector<StoredRating> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back(rating_of(Row{r, i}, 0));
    return out;
}

std::vector<JournalRow> journal_of(const Result& r) {
    std::vector<JournalRow> out;
    for (int i = 0; i < r.rows(); ++i)
        out.push_back(
            {r.integer(i, 0), r.text(i, 1), r.text(i, 2), r.integer(i, 3), int(r.integer(i, 4))});
    return out;
}
Spec<std::optional<StoredPlayer>> player_spec(const std::string& selector) {
    return {{prepared("player_by_selector", {selector})},
            [](const Results& r) -> std::optional<StoredPlayer> {
                if (r[0].rows() == 0) return std::nullopt;
                return StoredPlayer{r[0].text(0, 0), r[0].text(0, 1), r[0].text(0, 2),
                                    r[0].text(0, 3), r[0].text(0, 4)};
            }};
}
Spec<OpenGameCounts> open_counts_spec(const std::string& player, const std::string& address,
                                      const std::string& node) {
    return {{prepared("open_counts", {player, address, node})}, [](const Results& r) {
                return OpenGameCounts{int(r[0].integer(0, 0)), int(r[0].integer(0, 1))};
            }};
}
Spec<bool> code_spec(const std::string& code) {
    return {{prepared("code_taken", {code})}, [](const Results& r) { return r[0].rows() > 0; }};
}
Spec<std::optional<GameRows>> game_rows_spec(const std::string& code) {
    return {{prepared("game", {code}), prepared("journal", {code})},
            [](const Results& r) -> std::optional<GameRows> {
                if (r[0].rows() == 0) return std::nullopt;
                return GameRows{game_of(Row{r[0], 0}).second, journal_of(r[1])};
            }};
}
std::optional<StoredAccount> account_of(const Result& r) {
    if (r.rows() == 0) return std::nullopt;
    return StoredAccount{r.text(0, 0), r.text(0, 1), r.text(0, 2), r.integer(0, 3),
                         r.boolean(0, 4)};
}
Spec<std::optional<StoredAccount>> account_spec(const std::string& username) {
    return {{prepared("account_by_key", {username_key(username)})},
            [](const Results& r) { return account_of(r[0]); }};
}
Spec<std::vector<StoredRating>> ratings_spec(const std::string& player_id) {
    return {{prepared("ratings_of", {player_id})},
            [](const Results& r) { return ratings_from(r[0]); }};
}
Spec<std::vector<LeaderRow>> leaderboard_spec(const std::string& category, int limit,
                                              std::int64_t since, bool bots) {
    return {{prepared("leaderboard", {category, num(since), real(proto::kProvisionalDeviation),
                                      num(std::max(limit, 0)), num(bots ? 1 : 0)})},
            [](const Results& r) {
                std::vector<LeaderRow> out;
                for (int i = 0; i < r[0].rows(); ++i)
                    out.push_back({r[0].text(i, 0), rating_of(Row{r[0], i}, 1)});
                return out;
            }};
}
Spec<std::optional<PlayerProfile>> profile_spec(const std::string& username, int recent,
                                                const std::string& viewer) {
    const std::string key = username_key(username);
    return {{prepared("account_by_key", {key}), prepared("profile_ratings", {key}),
             prepared("profile_history", {key, viewer}), prepared("profile_totals", {key}),
             prepared("profile_recent", {key, num(std::max(recent, 0)), viewer})},
            [](const Results& r) -> std::optional<PlayerProfile> {
                auto account = account_of(r[0]);
                if (!account) return std::nullopt;
                PlayerProfile p;
                p.account = *account;
                p.ratings = ratings_from(r[1]);
                for (int i = 0; i < r[2].rows(); ++i)
                    p.history[r[2].text(i, 0)].push_back(
                        {r[2].integer(i, 1), r[2].real(i, 2), r[2].text(i, 3)});
                for (int i = 0; i < r[3].rows(); ++i) {
                    const int side = int(r[3].integer(i, 0));
                    auto& t = p.as[side];
                    const std::string winner = r[3].text(i, 1);
                    const int n = int(r[3].integer(i, 2));
                    if (winner == "draw")
                        t.draws += n;
                    else if (winner == (side == 0 ? "silver" : "bronze"))
                        t.wins += n;
                    else if (!winner.empty())
                        t.losses += n;
                }
                p.recent = games_of(r[4]);
                return p;
            }};
}
Spec<GamePage> page_spec(const GameQuery& q) {
    std::vector<Param> params{
        num(q.before > 0 ? q.before : std::numeric_limits<std::int64_t>::max())};
    std::string where = "WHERE id < $1";
    if (q.status == "live") {
        where += " AND status = 'playing'";
    } else if (q.status == "finished") {
        where += " AND status IN ('over', 'aborted')";
    } else if (!q.status.empty()) {
        params.push_back(q.status);
        where += " AND status = $" + std::to_string(params.size());
    }
    if (!q.player_id.empty()) {
        params.push_back(q.player_id);
        const std::string n = std::to_string(params.size());
        where += " AND (silver_id = $" + n + " OR bronze_id = $" + n + ")";
    }
    if (q.viewer) {
        params.push_back(*q.viewer);
        const std::string n = std::to_string(params.size());
        where += " AND (is_public OR ($" + n + " <> '' AND (silver_id = $" + n +
                 " OR bronze_id = $" + n + ")))";
    }
    params.push_back(num(std::int64_t(q.limit) + 1));
    Query query{nullptr,
                std::string("SELECT ") + kGameColumns + " FROM games " + where +
                    " ORDER BY id DESC LIMIT $" + std::to_string(params.size()),
                std::move(params)};
    const int limit = q.limit;
    return {{std::move(query)}, [limit](const Results& r) {
                GamePage page;
                for (int i = 0; i < r[0].rows(); ++i) page.games.push_back(game_of(Row{r[0], i}));
                if (int(page.games.size()) > limit) {
                    page.games.pop_back();
                    page.next = page.games.back().first;
                }
                return page;
            }};
}

// Runs a Spec on the reader; `then` runs on the store's thread.

}  // namespace tf::server::pg
