// The mail sender (PROTOCOL.md "E-mail"; OPERATING.md "E-mail"): a thread of its own, on a
// store connection of its own, takes one account's due mails from the queue (every node of a
// cluster may: a taken mail is leased), checks that they still say something true and wanted,
// composes one mail of them (server/mail/mail_text.h) and hands it to the operator's SMTP relay
// (--smtp-url) with libcurl. Sent: marked sent. The relay refused for good (5xx): failed. Any
// other trouble: retried later, with a growing wait, up to kMaxAttempts times. A mail is marked
// sent only once the relay took it; a node that stops between the two leaves its lease to run
// out and the mail is sent again (same Message-ID): the only case of a second copy.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/mail/mail_text.h"
#include "server/store/social_db.h"

namespace tf::server {

struct MailConfig {
    std::string smtp_url;  // smtp://[user:password@]host[:port] or smtps://...
    std::string from;      // the envelope and From: address
    std::string site;      // the links' base (--public-url), no trailing slash
    std::string host;      // Message-IDs' right side
    double poll_seconds = 2;
    std::int64_t lease_ms = 120'000;
};

// What the relay said: sent, or a refusal for good (`permanent`), or trouble worth a retry.
struct SendResult {
    bool sent = false;
    bool permanent = false;
    std::string error;
};

class Mailer {
  public:
    using Open = std::function<std::unique_ptr<SocialDb>()>;
    // Hands the message to the relay (blocking).
    using Send = std::function<SendResult(const std::string& to, const std::string& message)>;
    static constexpr int kMaxAttempts = 8;

    Mailer(MailConfig cfg, Open open, Send send = {});
    ~Mailer();
    Mailer(const Mailer&) = delete;
    Mailer& operator=(const Mailer&) = delete;

    // A mail was queued: look now rather than at the next poll.
    void wake();

    std::int64_t sent() const { return sent_; }
    std::int64_t failed() const { return failed_; }

  private:
    void loop();
    // One account's due mails, sent; false when none was due.
    bool once(SocialDb& db);

    MailConfig cfg_;
    Open open_;
    Send send_;
    std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false, woken_ = false;
    std::atomic<std::int64_t> sent_{0}, failed_{0};
    std::thread thread_;  // last: started once the rest is ready
};

// libcurl's SMTP: STARTTLS when the relay offers it (smtp://), TLS from the start (smtps://),
// AUTH from the URL's user and password.
Mailer::Send smtp_sender(const MailConfig& cfg);

}  // namespace tf::server
