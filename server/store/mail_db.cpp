// The e-mail tables (schema 8): mail_settings (an account's address and choices)
// and mail_queue (the mails to send, kept until sent: PROTOCOL.md "E-mail").
#include <algorithm>
#include <nlohmann/json.hpp>

#include "server/base/secrets.h"
#include "server/store/mail_db.h"
#include "server/store/social_db.h"

namespace tf::server {

namespace {

// The states of a queued mail: pending (waiting for send_after), sending (a node took it until
// lease_until), and the ends: sent, dropped (no longer true or wanted), failed.
constexpr const char* kDue =
    "((state = 'pending' AND send_after <= $1) OR (state = 'sending' AND lease_until <= $1))";

}  // namespace

std::optional<MailSettings> MailDb::mail_settings(const std::string& player_id) {
    auto rows = db_->exec(
        "SELECT address, verified_at, turns, challenges, digest, unsub_token, last_mail_at FROM "
        "mail_settings WHERE player_id = $1",
        {player_id});
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    return MailSettings{str(r[0]),      num(r[1]) != 0, num(r[2]) != 0, num(r[3]) != 0,
                        num(r[4]) != 0, str(r[5]),      num(r[6])};
}

void MailDb::set_mail_address(const std::string& player_id, const std::string& address,
                              const std::string& verify_hash, const std::string& verify_body,
                              std::int64_t now_ms) {
    db_->transaction([&] {
        // The unsubscribe token stays with the account: links in mails already sent still work.
        db_->exec(
            "INSERT INTO mail_settings (player_id, address, verify_hash, unsub_token) VALUES ($1, "
            "$2, $3, $4) ON CONFLICT (player_id) DO UPDATE SET address = excluded.address, "
            "verified_at = 0, verify_hash = excluded.verify_hash",
            {player_id, address, verify_hash, random_hex(16)});
        db_->exec(
            "UPDATE mail_queue SET state = 'dropped', error = 'the address changed' WHERE "
            "player_id = $1 AND state IN ('pending', 'sending')",
            {player_id});
        db_->exec(
            "INSERT INTO mail_queue (player_id, kind, body, created_at, send_after, state) "
            "VALUES ($1, 'verify', $2, $3, $3, 'pending')",
            {player_id, verify_body, now_ms});
    });
}

void MailDb::requeue_verify(const std::string& player_id, const std::string& verify_hash,
                            const std::string& verify_body, std::int64_t now_ms) {
    db_->transaction([&] {
        db_->exec("UPDATE mail_settings SET verify_hash = $2 WHERE player_id = $1",
                  {player_id, verify_hash});
        db_->exec(
            "UPDATE mail_queue SET state = 'dropped', error = 'sent again' WHERE player_id = $1 "
            "AND kind = 'verify' AND state = 'pending'",
            {player_id});
        db_->exec(
            "INSERT INTO mail_queue (player_id, kind, body, created_at, send_after, state) "
            "VALUES ($1, 'verify', $2, $3, $3, 'pending')",
            {player_id, verify_body, now_ms});
    });
}

void MailDb::remove_mail(const std::string& player_id, std::int64_t) {
    db_->transaction([&] {
        db_->exec("DELETE FROM mail_settings WHERE player_id = $1", {player_id});
        db_->exec(
            "UPDATE mail_queue SET state = 'dropped', error = 'the address was removed' WHERE "
            "player_id = $1 AND state IN ('pending', 'sending')",
            {player_id});
    });
}

void MailDb::set_mail_prefs(const std::string& player_id, std::optional<bool> turns,
                            std::optional<bool> challenges, std::optional<bool> digest) {
    auto flag = [](std::optional<bool> b) { return b ? std::int64_t(*b) : std::int64_t(-1); };
    db_->exec(
        "UPDATE mail_settings SET turns = CASE WHEN $2 < 0 THEN turns ELSE $2 END, challenges = "
        "CASE WHEN $3 < 0 THEN challenges ELSE $3 END, digest = CASE WHEN $4 < 0 THEN digest "
        "ELSE $4 END WHERE player_id = $1",
        {player_id, flag(turns), flag(challenges), flag(digest)});
}

int MailDb::verify_mails_since(const std::string& player_id, std::int64_t since_ms) {
    auto rows = db_->exec(
        "SELECT count(*) FROM mail_queue WHERE player_id = $1 AND kind = 'verify' AND "
        "created_at >= $2",
        {player_id, since_ms});
    return rows.empty() ? 0 : int(num(rows[0][0]));
}

std::optional<std::string> MailDb::verify_mail(const std::string& hash, std::int64_t now_ms) {
    if (hash.empty()) return std::nullopt;
    auto rows = db_->exec(
        "UPDATE mail_settings SET verified_at = $2, verify_hash = '' WHERE verify_hash = $1 "
        "RETURNING address",
        {hash, now_ms});
    if (rows.empty()) return std::nullopt;
    return str(rows[0][0]);
}

std::optional<std::string> MailDb::unsubscribe(const std::string& token) {
    if (token.empty()) return std::nullopt;
    return db_->transaction([&]() -> std::optional<std::string> {
        auto rows = db_->exec(
            "UPDATE mail_settings SET turns = 0, challenges = 0 WHERE unsub_token = $1 RETURNING "
            "address, player_id",
            {token});
        if (rows.empty()) return std::nullopt;
        db_->exec(
            "UPDATE mail_queue SET state = 'dropped', error = 'unsubscribed' WHERE player_id = $1 "
            "AND kind <> 'verify' AND state = 'pending'",
            {str(rows[0][1])});
        return str(rows[0][0]);
    });
}

bool MailDb::queue_notice_mail(const StoredNotice& n) {
    if (!mail_rules_.on || (n.kind != "your_turn" && n.kind != "challenge")) return false;
    auto s = mail_settings(n.player_id);
    if (!s || !s->verified || !(n.kind == "your_turn" ? s->turns : s->challenges)) return false;
    auto j = nlohmann::json::parse(n.body, nullptr, false);
    const std::string game =
        j.is_object() && j["game"].is_string() ? j["game"].get<std::string>() : std::string();
    std::int64_t send_after = n.at_ms;
    if (n.kind == "your_turn") {
        // One mail of a game's turn waiting is enough: it is written when sent, from the game
        // as it is then.
        if (!db_->exec("SELECT 1 FROM mail_queue WHERE player_id = $1 AND kind = 'your_turn' AND "
                       "game = $2 AND state IN ('pending', 'sending')",
                       {n.player_id, game})
                 .empty())
            return false;
        auto last = db_->exec(
            "SELECT max(sent_at) FROM mail_queue WHERE player_id = $1 AND kind = 'your_turn' AND "
            "game = $2 AND state = 'sent'",
            {n.player_id, game});
        if (!last.empty() && num(last[0][0]) > 0)
            send_after = std::max(send_after, num(last[0][0]) + mail_rules_.turn_gap_ms);
    }
    if (s->digest && s->last_mail_at > 0)
        send_after = std::max(send_after, s->last_mail_at + mail_rules_.digest_ms);
    db_->exec(
        "INSERT INTO mail_queue (player_id, kind, game, body, created_at, send_after, state) "
        "VALUES ($1, $2, $3, $4, $5, $6, 'pending')",
        {n.player_id, n.kind, game, n.body, n.at_ms, send_after});
    return true;
}

std::vector<QueuedMail> MailDb::claim_mail(std::int64_t now_ms, std::int64_t lease_ms) {
    return db_->transaction([&] {
        std::vector<QueuedMail> out;
        auto first = db_->exec(std::string("SELECT player_id FROM mail_queue WHERE ") + kDue +
                                   " ORDER BY send_after LIMIT 1" + db_->lock(),
                               {now_ms});
        if (first.empty()) return out;
        // Every mail of the account that is due goes in one: a digest when there are several.
        auto rows = db_->exec(std::string("UPDATE mail_queue SET state = 'sending', lease_until = "
                                          "$2, attempts = attempts + 1 WHERE player_id = $3 AND ") +
                                  kDue + " RETURNING id, player_id, kind, game, body, attempts",
                              {now_ms, now_ms + lease_ms, str(first[0][0])});
        for (const auto& r : rows)
            out.push_back({num(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), int(num(r[5]))});
        std::sort(out.begin(), out.end(),
                  [](const QueuedMail& a, const QueuedMail& b) { return a.id < b.id; });
        return out;
    });
}

bool MailDb::mail_wanted(const QueuedMail& m, const MailSettings& s) {
    if (m.kind == "verify") {
        // Still the account's address, not yet verified.
        auto j = nlohmann::json::parse(m.body, nullptr, false);
        return !s.verified && j.is_object() && j.value("address", "") == s.address;
    }
    if (!s.verified || !(m.kind == "your_turn" ? s.turns : s.challenges)) return false;
    if (m.kind == "your_turn")
        return !db_->exec(
                       "SELECT 1 FROM games WHERE code = $1 AND status = 'playing' AND ((to_move "
                       "= 'silver' AND silver_id = $2) OR (to_move = 'bronze' AND bronze_id = $2))",
                       {m.game, m.player_id})
                    .empty();
    return !db_->exec("SELECT 1 FROM games WHERE code = $1 AND status = 'open' AND invitee_id = $2",
                      {m.game, m.player_id})
                .empty();
}

void MailDb::mail_done(const std::vector<std::int64_t>& ids, const std::string& state,
                       std::int64_t now_ms, const std::string& error, std::int64_t retry_ms) {
    if (ids.empty()) return;
    db_->transaction([&] {
        std::string player;
        for (auto id : ids) {
            auto rows =
                retry_ms > 0
                    ? db_->exec(
                          "UPDATE mail_queue SET state = 'pending', send_after = $2, error = $3 "
                          "WHERE id = $1 RETURNING player_id",
                          {id, retry_ms, error})
                    : db_->exec(
                          "UPDATE mail_queue SET state = $2, sent_at = CASE WHEN $2 = 'sent' THEN "
                          "$3 ELSE sent_at END, error = $4 WHERE id = $1 RETURNING player_id",
                          {id, state, now_ms, error});
            if (!rows.empty()) player = str(rows[0][0]);
        }
        if (state == "sent" && retry_ms == 0 && !player.empty())
            db_->exec("UPDATE mail_settings SET last_mail_at = $2 WHERE player_id = $1",
                      {player, now_ms});
    });
}

std::vector<std::pair<std::string, std::int64_t>> MailDb::mail_counts() {
    std::vector<std::pair<std::string, std::int64_t>> out;
    for (const auto& r : db_->exec("SELECT state, count(*) FROM mail_queue GROUP BY state", {}))
        out.emplace_back(str(r[0]), num(r[1]));
    return out;
}

}  // namespace tf::server
