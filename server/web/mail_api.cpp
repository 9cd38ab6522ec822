#include "server/web/mail_api.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "server/base/secrets.h"
#include "server/base/time.h"
#include "server/mail/mail_text.h"
#include "server/social/social_service.h"

namespace tf::server {

namespace {

using json = nlohmann::json;

constexpr int kVerifyMailsPerHour = 5;

json settings_json(const SocialService& svc, const std::optional<MailSettings>& s) {
    if (!s)
        return {{"available", svc.mail() != nullptr},
                {"address", nullptr},
                {"verified", false},
                {"turns", true},
                {"challenges", true},
                {"digest", false}};
    return {{"available", svc.mail() != nullptr},
            {"address", s->address},
            {"verified", s->verified},
            {"turns", s->turns},
            {"challenges", s->challenges},
            {"digest", s->digest}};
}

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '&':
                out += "&amp;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

// A small page for the links in mails (no script, no inline style: the site's CSP).
ApiResponse page(unsigned status, const std::string& title, const std::string& body_html) {
    return {status, "text/html; charset=utf-8",
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta "
            "name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" +
                escape(title) +
                " · Trunkfield</title><meta name=\"color-scheme\" content=\"light dark\"><link "
                "rel=\"stylesheet\" "
                "href=\"/api/mail/page.css\"></head><body><main><h1>" +
                escape(title) + "</h1>" + body_html +
                "<p><a href=\"/\">Trunkfield</a></p></main></body></html>",
            ""};
}

// The pages' look: the site's stylesheet has a hashed name, and the CSP refuses inline styles.
constexpr const char* kPageCss =
    "body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f3ef;color:#1d1d1f}"
    "main{max-width:34rem;margin:4rem auto;padding:1.5rem 2rem;background:#fff;border:1px solid "
    "#d9d6cc;border-radius:10px}h1{font-size:1.4rem;margin:0 0 .75rem}"
    "button{font:inherit;padding:.45rem 1rem;border-radius:6px;border:1px solid #b42318;"
    "background:#b42318;color:#fff;cursor:pointer}a{color:#2453a6}"
    "@media (prefers-color-scheme:dark){body{background:#151515;color:#eee}main{background:#222;"
    "border-color:#444}a{color:#8ab4ff}}";

// A verification token and the body of its mail.
std::pair<std::string, std::string> verify_token(const std::string& address) {
    const std::string token = random_hex(16);
    return {token, json{{"address", address}, {"token", token}}.dump()};
}

}  // namespace

bool is_mail_target(const std::string& path) {
    return path == "/api/account/mail" || path == "/api/mail/verify" ||
           path == "/api/mail/unsubscribe" || path == "/api/mail/page.css";
}

void mail_api(SocialService* svc, bool post, const std::string& path,
              const std::map<std::string, std::string>& query, const std::string& body,
              const SocialReader& reader, Store::Executor ex,
              std::function<void(ApiResponse)> done) {
    auto reply = [&](ApiResponse r) { boost::asio::post(ex, [done, r] { done(r); }); };
    if (!svc)
        return reply(
            api_error(503, "store_unavailable", "this server keeps no accounts (--store memory)"));
    if (path == "/api/mail/page.css") return reply({200, "text/css; charset=utf-8", kPageCss, ""});
    if (path != "/api/account/mail") {
        // The links in mails: the token is the only key.
        auto t = query.find("token");
        if (query.size() != 1 || t == query.end() || t->second.empty() || t->second.size() > 64)
            return reply(
                page(400, "Not a link from our mails", "<p>This address lacks its token.</p>"));
        const std::string token = t->second;
        if (path == "/api/mail/verify") {
            if (post) return reply(api_error(405, "method_not_allowed", "open the link (GET)"));
            return run_social(
                *svc,
                [token](SocialDb& db) {
                    auto address = db.mail().verify_mail(sha256_hex(token), epoch_ms());
                    if (!address)
                        return page(404, "This link is no longer valid",
                                    "<p>The address may be verified already, or changed since. "
                                    "Your account's settings say which.</p>");
                    return page(200, "Address verified",
                                "<p>Trunkfield will mail <strong>" + escape(*address) +
                                    "</strong> about your games, as your settings say.</p>");
                },
                ex, done);
        }
        if (!post)
            return reply(page(200, "Stop the mails",
                              "<p>Trunkfield will send no more mails about your games to this "
                              "address (you can turn them on again in your account's "
                              "settings).</p><form method=\"post\" action=\"/api/mail/"
                              "unsubscribe?token=" +
                                  escape(token) +
                                  "\"><button type=\"submit\">Stop the mails</button></form>"));
        return run_social(
            *svc,
            [token](SocialDb& db) {
                auto address = db.mail().unsubscribe(token);
                if (!address)
                    return page(404, "This link is no longer valid",
                                "<p>No address has this link any more.</p>");
                return page(200, "No more mails",
                            "<p>Trunkfield will mail <strong>" + escape(*address) +
                                "</strong> nothing more about your games.</p>");
            },
            ex, done);
    }

    if (reader.player_id.empty())
        return reply(
            api_error(401, "unauthorized", "send your token: Authorization: Bearer TOKEN"));
    if (!reader.account)
        return reply(api_error(403, "account_required", "e-mail is for accounts: log in first"));
    if (!query.empty()) return reply(api_error(400, "bad_request", "no parameters here"));
    const std::string me = reader.player_id;
    if (!post)
        return run_social(
            *svc,
            [svc, me](SocialDb& db) {
                return ApiResponse{200, "application/json",
                                   settings_json(*svc, db.mail().mail_settings(me)).dump(), ""};
            },
            ex, done);

    auto j = json::parse(body, nullptr, false);
    std::optional<std::optional<std::string>> address;  // set: a new address, or none
    std::optional<bool> turns, challenges, digest;
    bool resend = false, valid = j.is_object() && !j.empty();
    for (auto it = valid ? j.begin() : json::iterator(); valid && it != j.end(); ++it) {
        const auto& k = it.key();
        const auto& v = it.value();
        if (k == "address" && (v.is_string() || v.is_null()))
            address = v.is_null() ? std::optional<std::string>() : v.get<std::string>();
        else if ((k == "turns" || k == "challenges" || k == "digest") && v.is_boolean())
            (k == "turns" ? turns : k == "challenges" ? challenges : digest) = v.get<bool>();
        else if (k == "resend" && v == true)
            resend = true;
        else
            valid = false;
    }
    if (!valid)
        return reply(api_error(400, "bad_request",
                               "send an object of: \"address\" (an e-mail address, or null), "
                               "\"turns\", \"challenges\", \"digest\" (true or false), "
                               "\"resend\": true"));
    if (address && *address && !valid_address(**address))
        return reply(api_error(400, "bad_address", "that is not an e-mail address"));
    if ((resend || (address && *address)) && !svc->mail())
        return reply(api_error(503, "mail_unavailable", "this server sends no e-mail"));
    run_social(
        *svc,
        [svc, me, address, turns, challenges, digest, resend](SocialDb& db) {
            const auto now = epoch_ms();
            auto s = db.mail().mail_settings(me);
            const bool sends = resend || (address && *address && (!s || s->address != **address));
            if (sends && db.mail().verify_mails_since(me, now - 3600 * 1000) >= kVerifyMailsPerHour)
                return api_error(429, "too_many",
                                 "too many verification mails in an hour; try again later");
            if (address && !*address) {
                db.mail().remove_mail(me, now);
            } else if (address && (!s || s->address != **address)) {
                auto [token, mail] = verify_token(**address);
                db.mail().set_mail_address(me, **address, sha256_hex(token), mail, now);
            } else if (resend) {
                if (!s) return api_error(400, "bad_request", "there is no address to verify");
                if (s->verified) return api_error(400, "bad_request", "the address is verified");
                auto [token, mail] = verify_token(s->address);
                db.mail().requeue_verify(me, sha256_hex(token), mail, now);
            }
            if (turns || challenges || digest) {
                if (!db.mail().mail_settings(me))
                    return api_error(400, "bad_request", "give an address first");
                db.mail().set_mail_prefs(me, turns, challenges, digest);
            }
            if (sends && svc->mailer()) svc->mailer()->wake();
            return ApiResponse{200, "application/json",
                               settings_json(*svc, db.mail().mail_settings(me)).dump(), ""};
        },
        ex, done);
}

}  // namespace tf::server
