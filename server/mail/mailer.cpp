#include "server/mail/mailer.h"

#include <curl/curl.h>
#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "server/base/time.h"

namespace tf::server {

namespace {

struct Upload {
    const std::string* text;
    std::size_t at = 0;
};

std::size_t read_upload(char* buf, std::size_t size, std::size_t n, void* user) {
    auto* u = static_cast<Upload*>(user);
    const std::size_t len = std::min(size * n, u->text->size() - u->at);
    std::memcpy(buf, u->text->data() + u->at, len);
    u->at += len;
    return len;
}

// The wait before attempt `n` + 1: 15 polls (30 s by default), doubling, at most an hour.
std::int64_t backoff_ms(int n, double poll_seconds) {
    const auto base = std::int64_t(poll_seconds * 15 * 1000);
    return std::min<std::int64_t>(base << std::min(n - 1, 12), 3'600'000);
}

}  // namespace

Mailer::Send smtp_sender(const MailConfig& cfg) {
    static const bool ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    return
        [url = cfg.smtp_url, from = cfg.from](const std::string& to, const std::string& message) {
            if (!ready) return SendResult{false, false, "libcurl could not start"};
            CURL* c = curl_easy_init();
            if (!c) return SendResult{false, false, "libcurl could not start"};
            Upload up{&message};
            const std::string mail_from = "<" + from + ">", rcpt_to = "<" + to + ">";
            curl_slist* rcpt = curl_slist_append(nullptr, rcpt_to.c_str());
            char err[CURL_ERROR_SIZE] = {0};
            curl_easy_setopt(c, CURLOPT_URL, url.c_str());
            curl_easy_setopt(c, CURLOPT_MAIL_FROM, mail_from.c_str());
            curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
            curl_easy_setopt(c, CURLOPT_READFUNCTION, read_upload);
            curl_easy_setopt(c, CURLOPT_READDATA, &up);
            curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(c, CURLOPT_USE_SSL, long(CURLUSESSL_TRY));
            curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
            curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
            curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
            curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
            const CURLcode rc = curl_easy_perform(c);
            long code = 0;
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
            curl_slist_free_all(rcpt);
            curl_easy_cleanup(c);
            if (rc == CURLE_OK) return SendResult{true, false, ""};
            std::string why = err[0] ? err : curl_easy_strerror(rc);
            if (code) why += " (relay: " + std::to_string(code) + ")";
            // 5xx: the relay refuses this mail for good (an unknown mailbox, a refused sender).
            return SendResult{false, code >= 500 && code < 600, why};
        };
}

Mailer::Mailer(MailConfig cfg, Open open, Send send)
    : cfg_(std::move(cfg)),
      open_(std::move(open)),
      send_(send ? std::move(send) : smtp_sender(cfg_)) {
    thread_ = std::thread([this] { loop(); });
}

Mailer::~Mailer() {
    {
        std::lock_guard lk(m_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void Mailer::wake() {
    {
        std::lock_guard lk(m_);
        woken_ = true;
    }
    cv_.notify_all();
}

bool Mailer::once(SocialDb& db) {
    const auto now = epoch_ms();
    auto mails = db.mail().claim_mail(now, cfg_.lease_ms);
    if (mails.empty()) return false;
    const std::string player = mails[0].player_id;
    // Read once for all of the account's mails. A closed account (a moderator closed it) or one
    // without an address any more is mailed nothing.
    const auto settings = db.mail().mail_settings(player);
    const bool mailable = settings && !db.moderation().standing(player).closed;
    std::vector<QueuedMail> keep;
    std::vector<std::int64_t> drop;
    for (auto& m : mails) {
        if (mailable && db.mail().mail_wanted(m, *settings))
            keep.push_back(std::move(m));
        else
            drop.push_back(m.id);
    }
    db.mail().mail_done(drop, "dropped", now, "no longer true or wanted");
    if (keep.empty()) return true;
    // A verification mail (the newest) goes alone, to the address it verifies; the others are
    // due again at once, for the next round.
    auto verify = std::find_if(keep.rbegin(), keep.rend(),
                               [](const QueuedMail& m) { return m.kind == "verify"; });
    std::vector<QueuedMail> batch = verify == keep.rend() ? keep : std::vector{*verify};
    std::vector<std::int64_t> ids, later;
    for (const auto& m : keep)
        (verify == keep.rend() || m.id == verify->id ? ids : later).push_back(m.id);
    db.mail().mail_done(later, "pending", now, "", now);

    const OutMail out =
        compose_mail(batch, *settings, db.moderation().username_of(player), cfg_.site);
    const std::string id = "tf-mail-" + std::to_string(batch.front().id) + "@" + cfg_.host;
    const SendResult r = send_(out.to, render_mail(out, cfg_.from, id, now));
    const int attempts = batch.front().attempts;
    if (r.sent) {
        db.mail().mail_done(ids, "sent", epoch_ms(), "");
        sent_ += 1;
        spdlog::info("mail: sent \"{}\" ({} item(s)) for {}", out.subject, batch.size(), player);
    } else if (r.permanent || attempts >= kMaxAttempts) {
        db.mail().mail_done(ids, "failed", now, r.error);
        failed_ += 1;
        spdlog::warn("mail: gave up on a mail for {} after {} attempt(s): {}", player, attempts,
                     r.error);
    } else {
        db.mail().mail_done(ids, "pending", now, r.error,
                            now + backoff_ms(attempts, cfg_.poll_seconds));
        spdlog::warn("mail: the relay did not take a mail for {} (attempt {}): {}; retried later",
                     player, attempts, r.error);
    }
    return true;
}

void Mailer::loop() {
    pthread_setname_np(pthread_self(), "tf-mail");
    std::unique_ptr<SocialDb> db;
    for (;;) {
        bool busy = false;
        try {
            if (!db) db = open_();
            busy = once(*db);
        } catch (const std::exception& e) {
            spdlog::warn("mail: the queue could not be read: {}", e.what());
            db.reset();  // a new connection next time
        }
        std::unique_lock lk(m_);
        if (stop_) return;
        if (busy) continue;
        cv_.wait_for(lk, std::chrono::duration<double>(cfg_.poll_seconds),
                     [this] { return stop_ || woken_; });
        woken_ = false;
        if (stop_) return;
    }
}

}  // namespace tf::server
