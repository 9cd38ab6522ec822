// The moderation tables of the social store (PROTOCOL.md "Reports and moderation"): each
// account's standing (restrictions), roles, reports and the moderators' audit log. Reads the
// accounts, games and journal tables too (names, a report's game, a game's chat).
// On SocialDb's connection; blocking, one thread at a time; failures throw StoreError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/store/side_db.h"

namespace tf::server {

// What moderators decided about an account (PROTOCOL.md "Reports and moderation").
struct Standing {
    std::int64_t chat_muted_until = 0;  // epoch ms; its chat is refused until then
    bool shadow = false;                // its chat lines are seen by itself alone
    bool closed = false;                // it cannot log in
    int warnings = 0;
    friend bool operator==(const Standing&, const Standing&) = default;
};

struct StoredReport {
    std::int64_t id = 0;
    std::string reporter_id, reporter, player_id, player;  // ids and usernames
    std::string reason, body, game;
    std::int64_t at_ms = 0;
    std::int64_t handled_ms = 0;  // 0: open
    std::string handled_by, outcome;
};

struct AuditEntry {
    std::int64_t id = 0;
    std::int64_t at_ms = 0;
    std::string moderator_id;  // "": the operator (a role granted or revoked)
    std::string moderator;     // username, or "(operator)"
    std::string action;
    std::string player_id, player;
    std::int64_t report_id = 0;  // 0: none
    std::int64_t minutes = 0;    // mute only
    std::string note;
};

// A moderator's action as ModerationDb::act applies it.
struct ModAction {
    std::string moderator_id, moderator;
    std::string action;  // warn, mute, unmute, shadow, unshadow, close, reopen, dismiss
    std::string player_id, player;
    std::int64_t minutes = 0;
    std::int64_t report_id = 0;
    std::string note;
    std::int64_t at_ms = 0;
};
struct ActResult {
    AuditEntry entry;
    std::string reporter_id;  // the handled report's reporter, or ""
};

class ModerationDb {
  public:
    explicit ModerationDb(SideDb& db) : db_(&db) {}

    // An account's username by its player id, or "".
    std::string username_of(const std::string& player_id);
    bool game_exists(const std::string& code);
    Standing standing(const std::string& player_id);
    std::vector<std::string> roles(const std::string& player_id);
    // Every account with a role: {username, role}, by username.
    std::vector<std::pair<std::string, std::string>> role_holders();
    // Gives (`on`) or takes back the role, logged in the audit as the operator's; false when it
    // was so already (nothing logged).
    bool set_role(const std::string& player_id, const std::string& username,
                  const std::string& role, bool on, std::int64_t at_ms);
    // Marks the account a bot for good (PROTOCOL.md "Bot accounts"), logged in the audit as the
    // act of `by` (the account's own; "(the server)" for a house bot). Refused (HasGames) once
    // the account has held a seat in any game.
    enum class BotMark { Marked, Already, HasGames };
    BotMark make_bot(const std::string& player_id, std::int64_t at_ms,
                     const std::string& by = "(the account)");
    // A report kept (its id), or the open one the reporter made already about the same account
    // and game.
    std::int64_t add_report(const StoredReport& r);
    // How many reports the reporter made since `since_ms`.
    int reports_since(const std::string& reporter_id, std::int64_t since_ms);
    std::vector<StoredReport> reports(bool handled, int limit, std::int64_t before);
    int reports_about(const std::string& player_id);
    std::optional<StoredReport> report(std::int64_t id);
    // The players' chat lines of a game (journal order): {version, the event's JSON}.
    std::vector<std::pair<std::int64_t, std::string>> game_chat(const std::string& code);
    // Applies the action in one transaction: the account's restrictions, the audit entry, the
    // report handled (when given and open); `close` also revokes the account's tokens.
    ActResult act(const ModAction& a);
    std::vector<AuditEntry> audit(int limit, std::int64_t before);

  private:
    SideDb* db_;
};

}  // namespace tf::server
