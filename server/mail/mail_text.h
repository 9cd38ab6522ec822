// The text of the mails (PROTOCOL.md "E-mail"): one mail from one account's due rows of the
// queue (a digest when there are several), and the message as an SMTP relay takes it (RFC 5322,
// UTF-8, an unsubscribe link in the text and in List-Unsubscribe, RFC 8058).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/store/social_db.h"

namespace tf::server {

struct OutMail {
    std::string to, subject, text;
    std::string unsubscribe_url;  // "": none (the verification mail)
};

// `site`: the server's public address, without a trailing slash (--public-url); `name`: the
// account's username.
OutMail compose_mail(const std::vector<QueuedMail>& mails, const MailSettings& settings,
                     const std::string& name, const std::string& site);

// The message: headers (From, To, Subject, Date, Message-ID <`id`>, MIME, List-Unsubscribe)
// and the text as quoted-printable, lines ending CRLF.
std::string render_mail(const OutMail& m, const std::string& from, const std::string& id,
                        std::int64_t now_ms);

// Whether `s` is an address a mail can go to: local@domain, printable ASCII without spaces,
// quotes or angle brackets, a dotted domain, 254 characters at most.
bool valid_address(const std::string& s);

}  // namespace tf::server
