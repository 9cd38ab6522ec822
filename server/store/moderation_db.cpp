// The moderation tables (moderation_db.h).
#include "server/store/moderation_db.h"

#include <string_view>

namespace tf::server {

std::string ModerationDb::username_of(const std::string& player_id) {
    auto rows = db_->exec("SELECT username FROM accounts WHERE player_id = $1", {player_id});
    return rows.empty() ? std::string() : str(rows[0][0]);
}

bool ModerationDb::game_exists(const std::string& code) {
    return !db_->exec("SELECT 1 FROM games WHERE code = $1", {code}).empty();
}

Standing ModerationDb::standing(const std::string& player_id) {
    auto rows = db_->exec(
        "SELECT chat_muted_until, shadow, closed_at, warnings FROM restrictions WHERE player_id = "
        "$1",
        {player_id});
    if (rows.empty()) return {};
    return {num(rows[0][0]), num(rows[0][1]) != 0, num(rows[0][2]) != 0, int(num(rows[0][3]))};
}

std::vector<std::string> ModerationDb::roles(const std::string& player_id) {
    std::vector<std::string> out;
    for (const auto& r :
         db_->exec("SELECT role FROM roles WHERE player_id = $1 ORDER BY role", {player_id}))
        out.push_back(str(r[0]));
    return out;
}

std::vector<std::pair<std::string, std::string>> ModerationDb::role_holders() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : db_->exec(
             "SELECT a.username, r.role FROM roles r JOIN accounts a ON a.player_id = r.player_id "
             "ORDER BY a.username_key, r.role",
             {}))
        out.emplace_back(str(r[0]), str(r[1]));
    return out;
}

namespace {

void add_audit(SideDb& db, AuditEntry& e) {
    auto rows = db.exec(
        "INSERT INTO audit (at, moderator_id, moderator, action, player_id, player, report_id, "
        "minutes, note) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
        {e.at_ms, e.moderator_id.empty() ? SideDb::Value{} : SideDb::Value{e.moderator_id},
         e.moderator, e.action, e.player_id, e.player,
         e.report_id ? SideDb::Value{e.report_id} : SideDb::Value{},
         e.minutes ? SideDb::Value{e.minutes} : SideDb::Value{}, e.note});
    if (rows.empty()) throw StoreError("an audit entry was not kept");
    e.id = num(rows[0][0]);
}

constexpr const char* kReportColumns =
    "r.id, r.reporter_id, a.username, r.player_id, b.username, r.reason, r.body, r.game, r.at, "
    "r.handled_at, r.handled_by, r.outcome";
constexpr const char* kReportJoins =
    " FROM reports r JOIN accounts a ON a.player_id = r.reporter_id JOIN accounts b ON "
    "b.player_id = r.player_id";

StoredReport report_of(const SideDb::Row& r) {
    return {num(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]),  str(r[5]),
            str(r[6]), str(r[7]), num(r[8]), num(r[9]), str(r[10]), str(r[11])};
}

}  // namespace

bool ModerationDb::set_role(const std::string& player_id, const std::string& username,
                            const std::string& role, bool on, std::int64_t at_ms) {
    return db_->transaction([&] {
        const bool has =
            !db_->exec("SELECT 1 FROM roles WHERE player_id = $1 AND role = $2", {player_id, role})
                 .empty();
        if (has == on) return false;
        if (on)
            db_->exec("INSERT INTO roles (player_id, role, at) VALUES ($1, $2, $3)",
                      {player_id, role, at_ms});
        else
            db_->exec("DELETE FROM roles WHERE player_id = $1 AND role = $2", {player_id, role});
        AuditEntry e;
        e.at_ms = at_ms;
        e.moderator = "(operator)";
        e.action = (on ? "grant " : "revoke ") + role;
        e.player_id = player_id;
        e.player = username;
        add_audit(*db_, e);
        return true;
    });
}

ModerationDb::BotMark ModerationDb::make_bot(const std::string& player_id, std::int64_t at_ms,
                                             const std::string& by) {
    return db_->transaction([&] {
        if (!db_->exec("SELECT 1 FROM roles WHERE player_id = $1 AND role = 'bot'", {player_id})
                 .empty())
            return BotMark::Already;
        if (!db_->exec("SELECT 1 FROM games WHERE silver_id = $1 OR bronze_id = $1 LIMIT 1",
                       {player_id})
                 .empty())
            return BotMark::HasGames;
        db_->exec("INSERT INTO roles (player_id, role, at) VALUES ($1, 'bot', $2)",
                  {player_id, at_ms});
        AuditEntry e;
        e.at_ms = at_ms;
        e.player_id = player_id;
        e.player = username_of(player_id);
        e.moderator = by;  // "(the account)": its own act, as "(operator)" marks the operator's
        e.action = "bot account";
        add_audit(*db_, e);
        return BotMark::Marked;
    });
}

std::int64_t ModerationDb::add_report(const StoredReport& r) {
    return db_->transaction([&] {
        auto same = db_->exec(
            "SELECT id FROM reports WHERE reporter_id = $1 AND player_id = $2 AND "
            "coalesce(game, '') = $3 AND handled_at IS NULL",
            {r.reporter_id, r.player_id, r.game});
        if (!same.empty()) return num(same[0][0]);
        auto rows = db_->exec(
            "INSERT INTO reports (reporter_id, player_id, reason, body, game, at) VALUES ($1, $2, "
            "$3, $4, $5, $6) RETURNING id",
            {r.reporter_id, r.player_id, r.reason, r.body,
             r.game.empty() ? SideDb::Value{} : SideDb::Value{r.game}, r.at_ms});
        if (rows.empty()) throw StoreError("a report was not kept");
        return num(rows[0][0]);
    });
}

int ModerationDb::reports_since(const std::string& reporter_id, std::int64_t since_ms) {
    auto rows = db_->exec("SELECT count(*) FROM reports WHERE reporter_id = $1 AND at >= $2",
                          {reporter_id, since_ms});
    return rows.empty() ? 0 : int(num(rows[0][0]));
}

std::vector<StoredReport> ModerationDb::reports(bool handled, int limit, std::int64_t before) {
    std::vector<StoredReport> out;
    for (const auto& r : db_->exec(
             std::string("SELECT ") + kReportColumns + kReportJoins + " WHERE r.handled_at IS " +
                 (handled ? "NOT NULL" : "NULL") +
                 " AND (CAST($1 AS bigint) = 0 OR r.id < CAST($1 AS bigint)) ORDER BY r.id DESC "
                 "LIMIT $2",
             {before, std::int64_t(limit)}))
        out.push_back(report_of(r));
    return out;
}

int ModerationDb::reports_about(const std::string& player_id) {
    auto rows = db_->exec("SELECT count(*) FROM reports WHERE player_id = $1", {player_id});
    return rows.empty() ? 0 : int(num(rows[0][0]));
}

std::optional<StoredReport> ModerationDb::report(std::int64_t id) {
    auto rows = db_->exec(
        std::string("SELECT ") + kReportColumns + kReportJoins + " WHERE r.id = $1", {id});
    if (rows.empty()) return std::nullopt;
    return report_of(rows[0]);
}

std::vector<std::pair<std::int64_t, std::string>> ModerationDb::game_chat(const std::string& code) {
    std::vector<std::pair<std::int64_t, std::string>> out;
    for (const auto& r : db_->exec("SELECT version, event FROM journal WHERE code = $1 AND kind = "
                                   "'chat' ORDER BY version",
                                   {code}))
        out.emplace_back(num(r[0]), str(r[1]));
    return out;
}

ActResult ModerationDb::act(const ModAction& a) {
    return db_->transaction([&] {
        ActResult out;
        db_->exec(
            "INSERT INTO restrictions (player_id) VALUES ($1) ON CONFLICT (player_id) DO NOTHING",
            {a.player_id});
        const char* set = nullptr;
        if (a.action == "warn") set = "warnings = warnings + 1";
        if (a.action == "mute") set = "chat_muted_until = $2";
        if (a.action == "unmute") set = "chat_muted_until = 0";
        if (a.action == "shadow") set = "shadow = 1";
        if (a.action == "unshadow") set = "shadow = 0";
        if (a.action == "close") set = "closed_at = $2";
        if (a.action == "reopen") set = "closed_at = 0";
        if (set) {
            const std::int64_t value = a.action == "mute" ? a.at_ms + a.minutes * 60'000 : a.at_ms;
            const bool valued = std::string_view(set).find("$2") != std::string_view::npos;
            db_->exec(std::string("UPDATE restrictions SET ") + set + " WHERE player_id = $1",
                      valued ? std::vector<SideDb::Value>{a.player_id, value}
                             : std::vector<SideDb::Value>{a.player_id});
        }
        if (a.action == "close")
            db_->exec("DELETE FROM tokens WHERE player_id = $1", {a.player_id});
        if (a.report_id) {
            auto rows = db_->exec(
                "UPDATE reports SET handled_at = $2, handled_by = $3, outcome = $4 WHERE id = $1 "
                "AND handled_at IS NULL RETURNING reporter_id",
                {a.report_id, a.at_ms, a.moderator,
                 std::string(a.action == "dismiss" ? "no_action" : "action_taken")});
            if (!rows.empty()) out.reporter_id = str(rows[0][0]);
        }
        AuditEntry& e = out.entry;
        e.at_ms = a.at_ms;
        e.moderator_id = a.moderator_id;
        e.moderator = a.moderator;
        e.action = a.action;
        e.player_id = a.player_id;
        e.player = a.player;
        e.report_id = a.report_id;
        e.minutes = a.action == "mute" ? a.minutes : 0;
        e.note = a.note;
        add_audit(*db_, e);
        return out;
    });
}

std::vector<AuditEntry> ModerationDb::audit(int limit, std::int64_t before) {
    std::vector<AuditEntry> out;
    for (const auto& r : db_->exec(
             "SELECT id, at, moderator_id, moderator, action, player_id, player, report_id, "
             "minutes, note FROM audit WHERE (CAST($1 AS bigint) = 0 OR id < CAST($1 AS bigint)) "
             "ORDER BY id DESC LIMIT $2",
             {before, std::int64_t(limit)}))
        out.push_back({num(r[0]), num(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), str(r[6]),
                       num(r[7]), num(r[8]), str(r[9])});
    return out;
}

}  // namespace tf::server
