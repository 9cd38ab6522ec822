// The SQLite store's account and rating writes (sqlite_db.h), inside the writer's transaction.
#include "server/base/time.h"
#include "server/store/sqlite_db.h"
#include "server/store/writer_core.h"

namespace tf::server::sqlite {

void write_account(sqlite3* db, const AccountWrite& a) {
    using K = AccountWrite::Kind;
    auto revoke = [&](const std::string& keep) {
        Stmt s(db, "DELETE FROM tokens WHERE player_id = ? AND selector != ?");
        s.bind(1, a.player_id).bind(2, keep).run();
    };
    switch (a.kind) {
        case K::Register: {
            Stmt s(db,
                   "INSERT INTO accounts (player_id, username, username_key, pw_hash, "
                   "created_at) SELECT id, ?2, ?3, ?4, ?5 FROM players WHERE id = ?1");
            s.bind(1, a.player_id).bind(2, a.username).bind(3, username_key(a.username));
            s.bind(4, a.pw_hash).bind(5, epoch_ms()).run();
            if (sqlite3_changes(db) != 1)
                throw StoreError("no player " + a.player_id + " to register", false);
            Stmt n(db, "UPDATE players SET name = ? WHERE id = ?");
            n.bind(1, a.username).bind(2, a.player_id).run();
            break;
        }
        case K::AddToken: {
            Stmt s(db,
                   "INSERT INTO tokens (selector, player_id, secret_hash, created_at) "
                   "VALUES (?, ?, ?, ?)");
            s.bind(1, a.selector).bind(2, a.player_id).bind(3, a.secret_hash);
            s.bind(4, epoch_ms()).run();
            break;
        }
        case K::RevokeTokens:
            revoke(a.selector);
            break;
        case K::RevokeToken: {
            Stmt s(db, "DELETE FROM tokens WHERE player_id = ? AND selector = ?");
            s.bind(1, a.player_id).bind(2, a.selector).run();
            break;
        }
        case K::SetPassword: {
            Stmt s(db, "UPDATE accounts SET pw_hash = ? WHERE player_id = ?");
            s.bind(1, a.pw_hash).bind(2, a.player_id).run();
            if (sqlite3_changes(db) != 1)
                throw StoreError("player " + a.player_id + " has no account", false);
            revoke(a.selector);
            break;
        }
    }
}

void rate(sqlite3* db, const std::string& code, const RateGame& g) {
    {
        Stmt h(db,
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
                category, h.real(7), h.real(8), h.real(9), int(h.integer(5)) + 1, h.integer(10)};
            seen = true;
        }
        if (seen) return;
    }
    StoredRating before[2];
    for (int i = 0; i < 2; ++i) {
        Stmt s(db,
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
        Stmt u(db,
               "INSERT INTO ratings (player_id, category, rating, deviation, volatility, "
               "games, last_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
               "ON CONFLICT (player_id, category) DO UPDATE SET rating = ?3, deviation = ?4, "
               "volatility = ?5, games = ?6, last_at = ?7");
        u.bind(1, g.player[i]).bind(2, g.category).bind(3, a.rating).bind(4, a.deviation);
        u.bind(5, a.volatility).bind(6, std::int64_t(a.games)).bind(7, a.last_ms).run();
        Stmt h(db,
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

}  // namespace tf::server::sqlite
