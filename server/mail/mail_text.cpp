#include "server/mail/mail_text.h"

#include <ctime>
#include <nlohmann/json.hpp>

namespace tf::server {

namespace {

using json = nlohmann::json;

std::string name_of(const json& j, const char* key) {
    const json& p = j.is_object() && j.contains(key) ? j[key] : json();
    if (p.is_object() && p["name"].is_string()) return p["name"].get<std::string>();
    return "your opponent";
}

std::string game_of(const json& j) {
    return j.is_object() && j["game"].is_string() ? j["game"].get<std::string>() : "";
}

// "2026-12-09 14:05 UTC"
std::string utc(std::int64_t ms) {
    std::time_t t = std::time_t(ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

std::string clock_text(const json& tc) {
    if (!tc.is_object()) return "no clock";
    if (tc["days_per_move"].is_number_integer()) {
        const auto d = tc["days_per_move"].get<int>();
        return std::to_string(d) + (d == 1 ? " day" : " days") + " per move";
    }
    if (tc["initial_ms"].is_number_integer() && tc["increment_ms"].is_number_integer())
        return std::to_string(tc["initial_ms"].get<std::int64_t>() / 60000) + "+" +
               std::to_string(tc["increment_ms"].get<std::int64_t>() / 1000);
    return "a clock";
}

std::string turn_line(const json& j, const std::string& site) {
    std::string s =
        "Your move against " + name_of(j, "opponent") + ": " + site + "/g/" + game_of(j) + "\n";
    if (j.is_object() && j["move_by"].is_number_integer() && j["move_by"].get<std::int64_t>() > 0)
        s += "  (move by " + utc(j["move_by"].get<std::int64_t>()) + ")\n";
    return s;
}

std::string challenge_line(const json& j, const std::string& site) {
    const bool rated = j.is_object() && j["rated"].is_boolean() && j["rated"].get<bool>();
    std::string side = j.is_object() && j["side"].is_string() ? j["side"].get<std::string>() : "";
    return name_of(j, "from") + " challenges you: " + (rated ? "rated" : "casual") + ", " +
           clock_text(j.is_object() ? j["time_control"] : json()) +
           (side.empty() ? "" : ", you play " + side) + ". Accept or decline: " + site + "/g/" +
           game_of(j) + "\n";
}

std::string b64(const std::string& in) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        unsigned v =
            (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
        for (int s = 18; s >= 0; s -= 6) out += k[(v >> s) & 63];
    }
    if (i < in.size()) {
        unsigned v = (unsigned char)in[i] << 16;
        if (i + 1 < in.size()) v |= (unsigned char)in[i + 1] << 8;
        out += k[(v >> 18) & 63];
        out += k[(v >> 12) & 63];
        out += i + 1 < in.size() ? k[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

bool ascii(const std::string& s) {
    for (unsigned char c : s)
        if (c < 32 || c > 126) return false;
    return true;
}

// A header's text: as it is when plain printable ASCII, else RFC 2047's UTF-8 base64.
std::string header_text(const std::string& s) {
    return ascii(s) ? s : "=?UTF-8?B?" + b64(s) + "?=";
}

// Quoted-printable (RFC 2045): lines of 76 characters at most, CRLF.
std::string quoted_printable(const std::string& text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out, line;
    auto flush = [&](bool hard) {
        out += line + (hard ? "\r\n" : "=\r\n");
        line.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            if (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
                const unsigned char w = (unsigned char)line.back();
                line.pop_back();
                line += std::string("=") + hex[w >> 4] + hex[w & 15];
            }
            flush(true);
            continue;
        }
        std::string piece = (c >= 33 && c <= 126 && c != '=') || c == ' ' || c == '\t'
                                ? std::string(1, char(c))
                                : std::string("=") + hex[c >> 4] + hex[c & 15];
        if (line.size() + piece.size() > 75) flush(false);
        line += piece;
    }
    if (!line.empty()) flush(true);
    return out;
}

}  // namespace

bool valid_address(const std::string& s) {
    const auto at = s.rfind('@');
    if (s.size() > 254 || at == std::string::npos || at == 0 || at > 64 || at + 1 >= s.size())
        return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = (unsigned char)s[i];
        if (c <= 32 || c >= 127 ||
            std::string_view("\"<>()[],;:\\").find(char(c)) != std::string_view::npos)
            return false;
        if (c == '@' && i != at) return false;
    }
    const std::string domain = s.substr(at + 1);
    if (domain.find('.') == std::string::npos || domain.front() == '.' || domain.back() == '.' ||
        domain.find("..") != std::string::npos)
        return false;
    for (char c : domain)
        if (!(std::isalnum((unsigned char)c) || c == '-' || c == '.')) return false;
    return true;
}

OutMail compose_mail(const std::vector<QueuedMail>& mails, const MailSettings& settings,
                     const std::string& name, const std::string& site) {
    OutMail m;
    m.to = settings.address;
    if (mails.size() == 1 && mails[0].kind == "verify") {
        auto j = json::parse(mails[0].body, nullptr, false);
        const std::string token = j.is_object() ? j.value("token", "") : "";
        m.subject = "Trunkfield: confirm your e-mail address";
        m.text = "Hello " + name +
                 ",\n\nSomeone, we hope you, asked Trunkfield to mail this address about the "
                 "games of the account " +
                 name + ". To confirm, open this link:\n\n" + site +
                 "/api/mail/verify?token=" + token +
                 "\n\nIf it was not you, ignore this mail: nothing more will be sent to you.\n";
        return m;
    }
    m.unsubscribe_url = site + "/api/mail/unsubscribe?token=" + settings.unsub_token;
    int turns = 0, challenges = 0;
    std::string body;
    for (const auto& q : mails) {
        auto j = json::parse(q.body, nullptr, false);
        if (q.kind == "your_turn") {
            ++turns;
            body += turn_line(j, site);
        } else if (q.kind == "challenge") {
            ++challenges;
            body += challenge_line(j, site);
        }
    }
    if (mails.size() == 1) {
        auto j = json::parse(mails[0].body, nullptr, false);
        m.subject = turns ? "Your move against " + name_of(j, "opponent") + " (Trunkfield)"
                          : name_of(j, "from") + " challenges you (Trunkfield)";
    } else {
        std::string what;
        if (turns)
            what = std::to_string(turns) + (turns == 1 ? " game waits" : " games wait") +
                   " for your move";
        if (challenges)
            what += (what.empty() ? "" : ", ") + std::to_string(challenges) +
                    (challenges == 1 ? " challenge" : " challenges");
        m.subject = "Trunkfield: " + what;
    }
    m.text = "Hello " + name + ",\n\n" + body + "\n-- \nYou get this mail because the account " +
             name + " asked Trunkfield for mails about its games" +
             (settings.digest ? " (at most one a day)" : "") +
             ".\nNo more mails: " + m.unsubscribe_url + "\nChoose which mails you get: " + site +
             "/ (your account's settings)\n";
    return m;
}

std::string render_mail(const OutMail& m, const std::string& from, const std::string& id,
                        std::int64_t now_ms) {
    std::time_t t = std::time_t(now_ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    static const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    char date[64];
    std::snprintf(date, sizeof date, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday],
                  tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                  tm.tm_sec);
    std::string h = "From: Trunkfield <" + from + ">\r\nTo: <" + m.to +
                    ">\r\nSubject: " + header_text(m.subject) + "\r\nDate: " + date +
                    "\r\nMessage-ID: <" + id +
                    ">\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    "Content-Transfer-Encoding: quoted-printable\r\nAuto-Submitted: "
                    "auto-generated\r\n";
    if (!m.unsubscribe_url.empty())
        h += "List-Unsubscribe: <" + m.unsubscribe_url +
             ">\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n";
    return h + "\r\n" + quoted_printable(m.text);
}

}  // namespace tf::server
