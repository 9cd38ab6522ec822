#include "server/store/social_db.h"

#include <algorithm>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tf::server {

namespace {

StoredNotice notice_of(const SideDb::Row& r) {
    return {num(r[0]), str(r[1]), str(r[2]), str(r[3]), num(r[4]), num(r[5])};
}

constexpr const char* kColumns = "id, player_id, kind, body, at, read_at";

}  // namespace

StoredNotice SocialDb::add(StoredNotice n) {
    return db_->transaction([&] {
        // A newer your_turn of a game stands for the older ones still unread (PROTOCOL.md
        // "Notifications"): those are marked read.
        if (n.kind == "your_turn") {
            auto j = nlohmann::json::parse(n.body, nullptr, false);
            if (j.is_object() && j["game"].is_string())
                db_->exec(
                    "UPDATE notifications SET read_at = $3 WHERE player_id = $1 AND kind = "
                    "'your_turn' AND read_at IS NULL AND body LIKE $2",
                    {n.player_id, "%\"game\":\"" + j["game"].get<std::string>() + "\"%", n.at_ms});
        }
        auto rows = db_->exec(
            "INSERT INTO notifications (player_id, kind, body, at) VALUES ($1, $2, $3, $4) "
            "RETURNING id",
            {n.player_id, n.kind, n.body, n.at_ms});
        if (rows.empty()) throw StoreError("a notification was not kept");
        n.id = num(rows[0][0]);
        n.read_ms = 0;
        mail_.queue_notice_mail(n);
        return n;
    });
}

std::optional<StoredNotice> SocialDb::told(const std::string& player_id, const std::string& kind,
                                           const std::string& code) {
    auto rows = db_->exec(std::string("SELECT ") + kColumns +
                              " FROM notifications WHERE player_id = $1 AND kind = $2 AND body "
                              "LIKE $3 ORDER BY id LIMIT 1",
                          {player_id, kind, "%\"game\":\"" + code + "\"%"});
    if (rows.empty()) return std::nullopt;
    return notice_of(rows[0]);
}

std::vector<StoredNotice> SocialDb::list(const std::string& player_id, int limit,
                                         std::int64_t before) {
    auto rows = db_->exec(
        std::string("SELECT ") + kColumns +
            " FROM notifications WHERE player_id = $1 AND (CAST($2 AS bigint) = 0 OR id < "
            "CAST($2 AS bigint)) "
            "ORDER BY id DESC LIMIT $3",
        {player_id, before, std::int64_t(limit)});
    std::vector<StoredNotice> out;
    for (const auto& r : rows) out.push_back(notice_of(r));
    return out;
}

int SocialDb::unread(const std::string& player_id) {
    auto rows = db_->exec(
        "SELECT count(*) FROM notifications WHERE player_id = $1 AND read_at IS NULL", {player_id});
    return rows.empty() ? 0 : int(num(rows[0][0]));
}

void SocialDb::mark_read(const std::string& player_id, const std::vector<std::int64_t>& ids,
                         std::int64_t at_ms) {
    if (ids.empty()) {
        db_->exec("UPDATE notifications SET read_at = $2 WHERE player_id = $1 AND read_at IS NULL",
                  {player_id, at_ms});
        return;
    }
    db_->transaction([&] {
        for (auto id : ids)
            db_->exec(
                "UPDATE notifications SET read_at = $3 WHERE player_id = $1 AND id = $2 AND "
                "read_at IS NULL",
                {player_id, id, at_ms});
    });
}

std::optional<std::pair<std::string, std::string>> SocialDb::account(const std::string& username) {
    auto rows = db_->exec("SELECT player_id, username FROM accounts WHERE username_key = $1",
                          {username_key(username)});
    if (rows.empty()) return std::nullopt;
    return std::pair{str(rows[0][0]), str(rows[0][1])};
}

void SocialDb::relate(const std::string& player_id, const std::string& other_id,
                      const std::string& kind, std::int64_t at_ms) {
    db_->transaction([&] {
        std::int64_t since = at_ms;
        if (kind == "follow" || kind == "follow_quiet") {
            // A follow that changes whether it tells keeps the moment it began.
            auto rows = db_->exec(
                "SELECT min(at) FROM relations WHERE player_id = $1 AND other_id = $2 AND kind IN "
                "('follow', 'follow_quiet')",
                {player_id, other_id});
            if (!rows.empty() && rows[0][0]) since = num(rows[0][0]);
            db_->exec(
                "DELETE FROM relations WHERE player_id = $1 AND other_id = $2 AND kind IN "
                "('follow', 'follow_quiet') AND kind <> $3",
                {player_id, other_id, kind});
        }
        db_->exec(
            "INSERT INTO relations (player_id, other_id, kind, at) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (player_id, other_id, kind) DO NOTHING",
            {player_id, other_id, kind, since});
    });
}

void SocialDb::unrelate(const std::string& player_id, const std::string& other_id,
                        const std::vector<std::string>& kinds) {
    db_->transaction([&] {
        for (const auto& k : kinds)
            db_->exec("DELETE FROM relations WHERE player_id = $1 AND other_id = $2 AND kind = $3",
                      {player_id, other_id, k});
    });
}

std::vector<Relation> SocialDb::relations_of(const std::string& player_id) {
    std::vector<Relation> out;
    for (const auto& r : db_->exec(
             "SELECT r.other_id, a.username, r.kind, r.at FROM relations r JOIN accounts a ON "
             "a.player_id = r.other_id WHERE r.player_id = $1 ORDER BY a.username_key, r.kind",
             {player_id}))
        out.push_back({str(r[0]), str(r[1]), str(r[2]), num(r[3])});
    return out;
}

bool SocialDb::blocked_between(const std::string& a, const std::string& b) {
    return !db_->exec(
                   "SELECT 1 FROM relations WHERE kind = 'block' AND ((player_id = $1 AND "
                   "other_id = $2) OR (player_id = $2 AND other_id = $1))",
                   {a, b})
                .empty();
}

std::vector<std::string> SocialDb::blocked_either(const std::string& player_id) {
    std::vector<std::string> out;
    for (const auto& r :
         db_->exec("SELECT other_id FROM relations WHERE kind = 'block' AND player_id = $1 UNION "
                   "SELECT player_id FROM relations WHERE kind = 'block' AND other_id = $1",
                   {player_id}))
        out.push_back(str(r[0]));
    return out;
}

std::vector<std::string> SocialDb::followers_told(const std::string& player_id) {
    std::vector<std::string> out;
    if (!announces(player_id)) return out;
    for (const auto& r : db_->exec(
             "SELECT player_id FROM relations WHERE other_id = $1 AND kind = 'follow' ORDER BY "
             "player_id",
             {player_id}))
        out.push_back(str(r[0]));
    return out;
}

bool SocialDb::announces(const std::string& player_id) {
    auto rows =
        db_->exec("SELECT announce_games FROM account_settings WHERE player_id = $1", {player_id});
    return rows.empty() || num(rows[0][0]) != 0;
}

void SocialDb::set_announces(const std::string& player_id, bool on) {
    db_->exec(
        "INSERT INTO account_settings (player_id, announce_games) VALUES ($1, $2) ON CONFLICT "
        "(player_id) DO UPDATE SET announce_games = excluded.announce_games",
        {player_id, std::int64_t(on ? 1 : 0)});
}

std::optional<std::vector<std::string>> SocialDb::followed_online(const std::string& player_id) {
    if (!db_->shared()) return std::nullopt;
    std::vector<std::string> out;
    for (const auto& r : db_->exec(
             "SELECT DISTINCT o.player_id FROM online o JOIN nodes n ON n.id = "
             "split_part(o.node, '@', 1) WHERE n.lease_until > now() AND o.player_id IN (SELECT "
             "other_id FROM relations WHERE player_id = $1 AND kind IN ('follow', "
             "'follow_quiet'))",
             {player_id}))
        out.push_back(str(r[0]));
    return out;
}

std::string SocialDb::playing(const std::string& player_id) {
    auto rows = db_->exec(std::string("SELECT code FROM games WHERE status = 'playing' AND "
                                      "is_public = ") +
                              db_->yes() +
                              " AND (silver_id = $1 OR bronze_id = $1) ORDER BY id DESC LIMIT 1",
                          {player_id});
    return rows.empty() ? std::string() : str(rows[0][0]);
}

std::vector<PlayingGame> SocialDb::playing(const std::string& player_id, int limit) {
    std::vector<PlayingGame> out;
    for (const auto& r : db_->exec(
             "SELECT code, variant, time_control, CASE WHEN rated THEN 1 ELSE 0 END, silver_id, "
             "silver_name, bronze_id, bronze_name, to_move, move_by, "
             "(SELECT COUNT(*) FROM roles WHERE roles.player_id = silver_id AND role = 'bot'), "
             "(SELECT COUNT(*) FROM roles WHERE roles.player_id = bronze_id AND role = 'bot') "
             "FROM games WHERE status = 'playing' AND (silver_id = $1 OR bronze_id = $1) "
             "ORDER BY id DESC LIMIT $2",
             {player_id, std::int64_t(limit)})) {
        PlayingGame g;
        g.code = str(r[0]);
        g.variant = str(r[1]);
        g.time_control = str(r[2]);
        g.rated = num(r[3]) != 0;
        for (int i = 0; i < 2; ++i) {
            g.seat_id[i] = str(r[4 + 2 * i]);
            g.seat_name[i] = str(r[5 + 2 * i]);
        }
        g.to_move = str(r[8]);
        g.move_by = num(r[9]);
        g.seat_bot[0] = num(r[10]) != 0;
        g.seat_bot[1] = num(r[11]) != 0;
        out.push_back(std::move(g));
    }
    return out;
}

Screen SocialDb::screen(const std::string& player_id) {
    Screen s;
    s.blocked = blocked_either(player_id);
    std::sort(s.blocked.begin(), s.blocked.end());
    for (const auto& r : db_->exec(
             "SELECT other_id FROM relations WHERE player_id = $1 AND kind IN ('block', 'mute') "
             "UNION SELECT player_id FROM relations WHERE kind = 'block' AND other_id = $1",
             {player_id}))
        s.unheard.push_back(str(r[0]));
    std::sort(s.unheard.begin(), s.unheard.end());
    s.unheard.erase(std::unique(s.unheard.begin(), s.unheard.end()), s.unheard.end());
    s.standing = moderation_.standing(player_id);
    s.roles = moderation_.roles(player_id);
    return s;
}

std::unique_ptr<SocialDb> open_sqlite_social(const std::string& data_dir) {
    return std::make_unique<SocialDb>(open_sqlite_side(data_dir, 6, "notifications"));
}

std::unique_ptr<SocialDb> open_sqlite_social_migrating(const std::string& data_dir) {
    return std::make_unique<SocialDb>(open_sqlite_side_migrating(data_dir));
}

std::unique_ptr<SocialDb> open_pg_social_migrating(const std::string& conninfo) {
    return std::make_unique<SocialDb>(open_pg_side(conninfo, true));
}

std::unique_ptr<SocialDb> open_pg_social(const std::string& conninfo) {
    return std::make_unique<SocialDb>(open_pg_side(conninfo));
}

}  // namespace tf::server
