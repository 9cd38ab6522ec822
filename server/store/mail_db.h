// The e-mail tables of the social store (schema 8; PROTOCOL.md "E-mail"): mail_settings (an
// account's address and choices) and mail_queue (the mails to send, kept until sent;
// server/mail/mailer.h sends the queue). On SocialDb's connection; blocking, one thread at a
// time; failures throw StoreError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/store/side_db.h"

namespace tf::server {

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

struct StoredNotice;

class MailDb {
  public:
    explicit MailDb(SideDb& db) : db_(&db) {}

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
    // Queues a mail for a kept notification the account wants mailed (SocialDb::add, in its
    // transaction); true when one was queued.
    bool queue_notice_mail(const StoredNotice& n);

  private:
    SideDb* db_;
    MailRules mail_rules_;
};

}  // namespace tf::server
