// The players' social tables (issue 35; proto/PROTOCOL.md "Notifications", "Follow and
// block"): each player's notifications (a challenge received, declined or accepted, a followed
// player's game, ...) with when they were read, and the relations between accounts (follow,
// block) — in SQLite (schema 5) or PostgreSQL (schema 5), on a side connection (side_db.h)
// beside the store's.
//
// Blocking, one thread at a time (server/social/social_service.h owns it); failures throw
// StoreError.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/store/side_db.h"

namespace tf::server {

struct StoredNotice {
    std::int64_t id = 0;
    std::string player_id;
    std::string kind;
    std::string body;  // canonical JSON object: the kind's own fields
    std::int64_t at_ms = 0;
    std::int64_t read_ms = 0;  // 0: unread
};

// One of a player's relations to another account: kind "follow" (told when it starts a game),
// "follow_quiet" (followed, not told), "block" or "mute" (its chat unseen).
struct Relation {
    std::string other_id, other_name;
    std::string kind;
    std::int64_t at_ms = 0;
};

// What moderators decided about an account (PROTOCOL.md "Reports and moderation").
struct Standing {
    std::int64_t chat_muted_until = 0;  // epoch ms; its chat is refused until then
    bool shadow = false;                // its chat lines are seen by itself alone
    bool closed = false;                // it cannot log in
    int warnings = 0;
    friend bool operator==(const Standing&, const Standing&) = default;
};

// What a connection of the player needs at every welcome (server/session/session.h): the
// accounts blocked either way (never paired with), those whose chat it does not show (blocked
// either way, or muted by the player), both sorted; the player's own standing and roles.
struct Screen {
    std::vector<std::string> blocked, unheard;
    Standing standing;
    std::vector<std::string> roles;
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

// A moderator's action as SocialDb::act applies it.
struct ModAction {
    std::string moderator_id, moderator;
    std::string action;  // warn, mute, unmute, shadow, unshadow, close, reopen, dismiss
    std::string player_id, player;
    std::int64_t minutes = 0;
    std::int64_t report_id = 0;
    std::string note;
    std::int64_t at_ms = 0;
};
// A game an account is playing (GET /api/playing): the stored row's fields that list it.
struct PlayingGame {
    std::string code, variant, time_control;  // variant and time control: JSON
    bool rated = false;
    std::string seat_id[2], seat_name[2];
    bool seat_bot[2] = {false, false};  // the seat's account is a bot
    std::string to_move;                // correspondence: "silver" | "bronze"; else ""
    std::int64_t move_by = 0;
};
// An account's e-mail (PROTOCOL.md "E-mail"): its address (unverified until the link mailed to
// it is opened) and what it asked to be mailed.
struct MailSettings {
    std::string address;
    bool verified = false;
    bool turns = true, challenges = true, digest = false;
    std::string unsub_token;  // in every mail's unsubscribe link
    std::int64_t last_mail_at = 0;
};
// How notifications become mails: none while `on` is false (no relay); a game's your_turn at
// most once per `turn_gap_ms`; an account with the digest at most one mail per `digest_ms`.
struct MailRules {
    bool on = false;
    std::int64_t turn_gap_ms = 3 * 3600 * 1000;
    std::int64_t digest_ms = 24 * 3600 * 1000;
};
// A mail to send (a row of the queue): kind verify (body: address, token), your_turn or
// challenge (body: the notification's fields).
struct QueuedMail {
    std::int64_t id = 0;
    std::string player_id, kind, game, body;
    int attempts = 0;  // counting this one
};
// An account's vacation (PROTOCOL.md "Vacation"): a budget of time a calendar year (UTC) during
// which its correspondence clocks stand on its move.
struct VacationState {
    bool on = false;
    std::int64_t since_ms = 0;  // on: when it began
    std::int64_t used_ms = 0;   // of this year's budget, the running vacation's time included
    std::int64_t left_ms = 0;   // what is left of it
};
struct ActResult {
    AuditEntry entry;
    std::string reporter_id;  // the handled report's reporter, or ""
};

// A personal access token as kept: `selector` names it (its id), `scopes` space-separated.
struct StoredApiToken {
    std::string player_id, selector, secret_hash, label, scopes;
    std::int64_t created_ms = 0, used_ms = 0;
};
struct ApiTokenOwner {
    StoredApiToken token;
    std::string username;
    bool bot = false, closed = false;
};

class SocialDb {
  public:
    explicit SocialDb(std::unique_ptr<SideDb> db) : db_(std::move(db)) {}

    // Keeps `n` (its id and read_ms are the store's) and answers it as kept.
    StoredNotice add(StoredNotice n);
    // Whether the player was given a notification of `kind` about the game `code` already.
    bool told(const std::string& player_id, const std::string& kind, const std::string& code);
    // The player's newest first, at most `limit`, only ids below `before` (0: from the newest).
    std::vector<StoredNotice> list(const std::string& player_id, int limit, std::int64_t before);
    int unread(const std::string& player_id);
    // Marks the player's notifications `ids` (every unread one when empty) read at `at_ms`.
    void mark_read(const std::string& player_id, const std::vector<std::int64_t>& ids,
                   std::int64_t at_ms);

    // The games being played with `player_id` in a seat, newest first (at most `limit`).
    std::vector<PlayingGame> playing(const std::string& player_id, int limit);

    // An account by its username (any letter case): {player id, username as registered}.
    std::optional<std::pair<std::string, std::string>> account(const std::string& username);
    // Sets the relation of `kind` from player to other (replacing the other kinds of its group:
    // a follow replaces a quiet follow, and the reverse); idempotent.
    void relate(const std::string& player_id, const std::string& other_id, const std::string& kind,
                std::int64_t at_ms);
    // Removes the player's relations to other of the given kinds.
    void unrelate(const std::string& player_id, const std::string& other_id,
                  const std::vector<std::string>& kinds);
    // The player's relations, by the other's username.
    std::vector<Relation> relations_of(const std::string& player_id);
    // Whether either of the two blocked the other.
    bool blocked_between(const std::string& a, const std::string& b);
    // The accounts the player blocked or that blocked it.
    std::vector<std::string> blocked_either(const std::string& player_id);
    // The followers who asked to be told when the player starts a game (none when the player
    // does not announce its games).
    std::vector<std::string> followers_told(const std::string& player_id);
    // Whether the player's followers are told of its games (its own setting; yes by default).
    bool announces(const std::string& player_id);
    void set_announces(const std::string& player_id, bool on);
    // Of the accounts the player follows, those connected to a node whose lease holds
    // (PostgreSQL: the nodes of a cluster write `online`); nullopt for a store one node alone
    // uses. A node knows its own connections itself.
    std::optional<std::vector<std::string>> followed_online(const std::string& player_id);
    // The public game the player is playing now (the newest), or "".
    std::string playing(const std::string& player_id);

    // Moderation (PROTOCOL.md "Reports and moderation").
    // An account's username by its player id, or "".
    std::string username_of(const std::string& player_id);
    bool game_exists(const std::string& code);
    Screen screen(const std::string& player_id);
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

    // E-mail (PROTOCOL.md "E-mail"; server/mail/mailer.h sends the queue).
    void set_mail_rules(const MailRules& r) { mail_rules_ = r; }
    std::optional<MailSettings> mail_settings(const std::string& player_id);
    // A new address, unverified, with the hash of its verification token; the mails still queued
    // for the account are dropped and a verification mail (`verify_body`) is queued.
    void set_mail_address(const std::string& player_id, const std::string& address,
                          const std::string& verify_hash, const std::string& verify_body,
                          std::int64_t now_ms);
    // No address any more: nothing is mailed (queued mails dropped).
    void remove_mail(const std::string& player_id, std::int64_t now_ms);
    void set_mail_prefs(const std::string& player_id, std::optional<bool> turns,
                        std::optional<bool> challenges, std::optional<bool> digest);
    // Queues the verification mail again.
    void requeue_verify(const std::string& player_id, const std::string& verify_hash,
                        const std::string& verify_body, std::int64_t now_ms);
    int verify_mails_since(const std::string& player_id, std::int64_t since_ms);
    // The address whose verification token hashes to `hash`, now verified; nullopt: no such.
    std::optional<std::string> verify_mail(const std::string& hash, std::int64_t now_ms);
    // The address of the unsubscribe token, now mailed nothing; nullopt: no such token.
    std::optional<std::string> unsubscribe(const std::string& token);
    // One account's mails that are due (or whose sender's lease ran out), taken for `lease_ms`;
    // empty: none due.
    std::vector<QueuedMail> claim_mail(std::int64_t now_ms, std::int64_t lease_ms);
    // Whether the mail still says something true: the account (its `settings`) still wants it
    // and has a verified address, the game still waits for its move or its challenge is open.
    bool mail_wanted(const QueuedMail& m, const MailSettings& settings);
    // The mails end in `state` (sent, dropped, failed), or (`retry_ms` > 0) wait until then.
    void mail_done(const std::vector<std::int64_t>& ids, const std::string& state,
                   std::int64_t now_ms, const std::string& error, std::int64_t retry_ms = 0);
    // Mails in the queue by state (for the metrics page and tests).
    std::vector<std::pair<std::string, std::int64_t>> mail_counts();

    // Vacation (schema 9; PROTOCOL.md "Vacation"), with `budget_ms` of it a year.
    VacationState vacation(const std::string& player_id, std::int64_t now_ms,
                           std::int64_t budget_ms);
    // Starts (`on`) or ends the player's vacation at `now_ms`; the state after. Nullopt: no time
    // left this year to start one. Starting a vacation already on (or ending one that is not)
    // changes nothing.
    std::optional<VacationState> set_vacation(const std::string& player_id, bool on,
                                              std::int64_t now_ms, std::int64_t budget_ms);
    // The players on vacation at `now_ms`, sorted, once those whose budget ran out are back (any
    // node may do it: the end is written once).
    std::vector<std::string> vacationers(std::int64_t now_ms, std::int64_t budget_ms);

    // Personal access tokens (schema 10; PROTOCOL.md "Access tokens"): at most kMaxApiTokens
    // an account. Only the secret's hash is kept.
    static constexpr int kMaxApiTokens = 20;
    // Keeps `t` (its player_id, selector, secret_hash, label, scopes, created_ms); false when
    // the account holds kMaxApiTokens already.
    bool add_api_token(const StoredApiToken& t);
    // The account's tokens, newest first (secret_hash left empty).
    std::vector<StoredApiToken> api_tokens(const std::string& player_id);
    // Deletes the account's token `selector`; false when it has none of that name.
    bool revoke_api_token(const std::string& player_id, const std::string& selector);
    // The token `selector` with its account's username, bot flag and standing, its use noted
    // (at most once a minute); nullopt when there is none.
    std::optional<ApiTokenOwner> api_token(const std::string& selector, std::int64_t now_ms);

  private:
    // Queues a mail for a kept notification the account wants mailed; true when one was queued.
    bool queue_notice_mail(const StoredNotice& n);

    std::unique_ptr<SideDb> db_;
    MailRules mail_rules_;
};

std::unique_ptr<SocialDb> open_sqlite_social(const std::string& data_dir);
std::unique_ptr<SocialDb> open_pg_social(const std::string& conninfo);
// For the operator's command line: the store made or migrated first when no server runs on it.
std::unique_ptr<SocialDb> open_sqlite_social_migrating(const std::string& data_dir);
std::unique_ptr<SocialDb> open_pg_social_migrating(const std::string& conninfo);

}  // namespace tf::server
