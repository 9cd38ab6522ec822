// The mails' text (server/mail/mail_text.h): which addresses are taken, a digest's subject, the
// headers and the quoted-printable body a relay gets.
#include "server/mail/mail_text.h"

#include <doctest/doctest.h>

namespace tf::server {

TEST_CASE("mail: addresses a mail can go to") {
    for (const char* ok : {"a@b.example", "first.last+tag@sub.example.org", "x_y-z@a-b.co"})
        CHECK_MESSAGE(valid_address(ok), ok);
    for (const char* bad : {"", "a", "@b.example", "a@", "a@b", "a@.b", "a@b.", "a@b..c",
                            "a b@c.example", "a@b.example\r\nBcc: x@y.example", "<a@b.example>",
                            "a@b@c.example", "a\"@b.example", "a@b_c.example", "é@b.example"})
        CHECK_MESSAGE(!valid_address(bad), bad);
    CHECK(!valid_address(std::string(65, 'a') + "@b.example"));
    CHECK(!valid_address("a@" + std::string(250, 'b') + ".example"));
}

TEST_CASE("mail: one mail of an account's due items") {
    MailSettings s;
    s.address = "ann@x.example";
    s.unsub_token = "u1";
    QueuedMail turn{1,
                    "p",
                    "your_turn",
                    "g1",
                    R"({"game":"g1","opponent":{"id":"b","name":"bob"},"move_by":1800000000000})",
                    1};
    QueuedMail ch{2,
                  "p",
                  "challenge",
                  "g2",
                  R"({"game":"g2","from":{"id":"c","name":"cy"},"rated":true,)"
                  R"("time_control":{"days_per_move":3},"side":"bronze"})",
                  1};
    auto one = compose_mail({turn}, s, "ann", "https://t.example");
    CHECK(one.subject == "Your move against bob (Trunkfield)");
    CHECK(one.text.find("https://t.example/g/g1") != std::string::npos);
    CHECK(one.text.find("move by 2027-01-15 08:00 UTC") != std::string::npos);
    CHECK(one.unsubscribe_url == "https://t.example/api/mail/unsubscribe?token=u1");
    auto both = compose_mail({turn, ch}, s, "ann", "https://t.example");
    CHECK(both.subject == "Trunkfield: 1 game waits for your move, 1 challenge");
    CHECK(both.text.find("cy challenges you: rated, 3 days per move, you play bronze") !=
          std::string::npos);
    QueuedMail v{3, "p", "verify", "", R"({"address":"ann@x.example","token":"abc"})", 1};
    auto verify = compose_mail({v}, s, "ann", "https://t.example");
    CHECK(verify.unsubscribe_url.empty());
    CHECK(verify.text.find("https://t.example/api/mail/verify?token=abc") != std::string::npos);
}

TEST_CASE("mail: the message a relay gets") {
    OutMail m{"ann@x.example", "Ton tour contre Zoé", std::string(100, 'x') + "=\nend \n",
              "https://t.example/u"};
    auto msg = render_mail(m, "games@t.example", "tf-mail-1@t.example", 0);
    CHECK(msg.find("From: Trunkfield <games@t.example>\r\n") == 0);
    CHECK(msg.find("Subject: =?UTF-8?B?VG9uIHRvdXIgY29udHJlIFpvw6k=?=\r\n") != std::string::npos);
    CHECK(msg.find("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n") != std::string::npos);
    CHECK(msg.find("Message-ID: <tf-mail-1@t.example>\r\n") != std::string::npos);
    CHECK(msg.find("List-Unsubscribe: <https://t.example/u>\r\n") != std::string::npos);
    const auto body = msg.substr(msg.find("\r\n\r\n") + 4);
    CHECK(body == std::string(75, 'x') + "=\r\n" + std::string(25, 'x') + "=3D\r\nend=20\r\n");
}

}  // namespace tf::server
