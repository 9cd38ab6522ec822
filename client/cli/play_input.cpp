#include "play_input.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

namespace tf::play {

namespace {

bool parse_int(std::string_view s, int& out) {
    if (s.empty() || s.size() > 9) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

// A non-negative decimal number such as "3", "0.5", "2.25" (no exponent, no sign).
bool parse_decimal(std::string_view s, double& out) {
    if (s.empty() || s.size() > 12) return false;
    bool dot = false, digit = false;
    for (char c : s) {
        if (c == '.') {
            if (dot) return false;
            dot = true;
        } else if (c >= '0' && c <= '9') {
            digit = true;
        } else {
            return false;
        }
    }
    if (!digit) return false;
    out = std::stod(std::string(s));
    return std::isfinite(out);
}

}  // namespace

namespace {

// The days of a correspondence time control as written: "3d", "3 days", "1day", "corr:3" give
// "3" (the number unchecked); nullopt when `s` is not written so.
std::optional<std::string_view> days_written(std::string_view s) {
    for (std::string_view head : {"corr:", "corr=", "corr", "correspondence:"})
        if (s.starts_with(head)) return s.substr(head.size());
    for (std::string_view tail : {" days", " day", "days", "day", "d"})
        if (s.size() > tail.size() && s.ends_with(tail)) return s.substr(0, s.size() - tail.size());
    return std::nullopt;
}

std::string allowed_days() {
    std::string out;
    const std::size_t n = std::size(proto::kCorrespondenceDays);
    for (std::size_t k = 0; k < n; ++k)
        out += (k == 0       ? ""
                : k + 1 == n ? " or "
                             : ", ") +
               std::to_string(proto::kCorrespondenceDays[k]);
    return out;
}

}  // namespace

bool parse_time_control(std::string_view text, std::optional<proto::TimeControl>& out,
                        std::string& err) {
    std::string lower(text);
    for (char& c : lower)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    const std::string_view s = lower;
    if (s == "untimed" || s == "none" || s == "-") {
        out.reset();
        return true;
    }
    if (auto days = days_written(s)) {
        int d = 0;
        if (!parse_int(*days, d) || !proto::correspondence_days(d)) {
            err = "time: a correspondence game has " + allowed_days() +
                  " days per move, written e.g. 3d";
            return false;
        }
        out = proto::TimeControl{0, 0, d};
        return true;
    }
    std::size_t plus = s.find('+');
    std::string_view mins = s.substr(0, plus);
    std::string_view inc = plus == std::string_view::npos ? "0" : s.substr(plus + 1);
    double m = 0, i = 0;
    if (!parse_decimal(mins, m) || !parse_decimal(inc, i)) {
        err =
            "time: write MINUTES+INCREMENT_SECONDS, e.g. time=5+3, DAYSd for a correspondence "
            "game, e.g. time=3d (or time=untimed)";
        return false;
    }
    if (m <= 0 || m > 24 * 60 || i > 3600) {
        err = "time: minutes must be above 0 and at most 1440, the increment at most 3600 s";
        return false;
    }
    proto::TimeControl tc;
    tc.initial_ms = std::int64_t(std::llround(m * 60000));
    tc.increment_ms = std::int64_t(std::llround(i * 1000));
    if (tc.initial_ms <= 0) {
        err = "time: the initial time is too short";
        return false;
    }
    out = tc;
    return true;
}

std::string describe_time_control(const std::optional<proto::TimeControl>& tc) {
    if (!tc) return "untimed";
    if (tc->correspondence())
        return std::to_string(tc->days_per_move) +
               (tc->days_per_move == 1 ? " day per move" : " days per move");
    auto num = [](std::int64_t ms, std::int64_t unit) {
        if (ms % unit == 0) return std::to_string(ms / unit);
        std::string s = std::to_string(double(ms) / double(unit));
        s.erase(s.find_last_not_of('0') + 1);
        if (!s.empty() && s.back() == '.') s.pop_back();
        return s;
    };
    return num(tc->initial_ms, 60000) + "+" + num(tc->increment_ms, 1000);
}

std::optional<GameOptions> parse_game_options(const std::vector<std::string>& words, bool with_seat,
                                              std::string& err) {
    GameOptions o;
    for (const std::string& w : words) {
        if (with_seat && (w == "private" || w == "public")) {
            o.is_public = w == "public";
            continue;
        }
        if (w == "rated" || w == "casual") {
            o.rated = w == "rated";
            continue;
        }
        std::size_t eq = w.find('=');
        if (eq == std::string::npos) {
            err = "unknown option '" + w + "' (expected KEY=VALUE, rated" +
                  std::string(with_seat ? " or private" : "") + ")";
            return std::nullopt;
        }
        std::string key = w.substr(0, eq), val = w.substr(eq + 1);
        int n = 0;
        int* field = key == "size" || key == "n"        ? &o.variant.size
                     : key == "elephants" || key == "e" ? &o.variant.elephants
                     : key == "burnt" || key == "b"     ? &o.variant.burnt
                     : key == "quiet" || key == "q"     ? &o.variant.quiet
                                                        : nullptr;
        if (field) {
            if (!parse_int(val, n)) {
                err = key + ": not a whole number: '" + val + "'";
                return std::nullopt;
            }
            *field = n;
        } else if (key == "time") {
            if (!parse_time_control(val, o.time_control, err)) return std::nullopt;
        } else if (with_seat && (key == "side" || key == "color" || key == "colour")) {
            if (val == "silver") {
                o.color = proto::ColorChoice::Silver;
            } else if (val == "bronze") {
                o.color = proto::ColorChoice::Bronze;
            } else if (val == "random") {
                o.color = proto::ColorChoice::Random;
            } else {
                err = "side: silver, bronze or random";
                return std::nullopt;
            }
        } else {
            err = "unknown option '" + key + "'";
            return std::nullopt;
        }
    }
    if (auto bad = check_variant(o.variant)) {
        err = *bad;
        return std::nullopt;
    }
    return o;
}

std::string setup_to_text(const Setup& s, int size) {
    std::string out;
    for (Cell c : s.elephants) out += (out.empty() ? "" : " ") + cell_name(c, size);
    out += " |";
    for (Cell c : s.guardians) out += " " + cell_name(c, size);
    return out;
}

std::string clean_text(std::string_view s, std::size_t max) {
    std::string out;
    std::size_t i = 0;
    while (i < s.size() && out.size() < max) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) {
            out += '?';
            ++i;
            continue;
        }
        if (c < 0x80) {
            out += char(c);
            ++i;
            continue;
        }
        // A well-formed UTF-8 sequence other than a C1 control (U+0080..U+009F) is kept.
        int len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        bool ok = len > 0 && i + std::size_t(len) <= s.size();
        for (int k = 1; ok && k < len; ++k) ok = ((unsigned char)s[i + k] & 0xC0) == 0x80;
        if (ok && len == 2 && c == 0xC2 && (unsigned char)s[i + 1] < 0xA0) ok = false;
        if (ok && c < 0xC2) ok = false;  // overlong
        if (!ok) {
            out += '?';
            ++i;
            continue;
        }
        out.append(s.substr(i, std::size_t(len)));
        i += std::size_t(len);
    }
    if (i < s.size()) out += "...";
    return out;
}

bool parse_server(std::string_view s, std::string& host, unsigned short& port) {
    std::string_view h = s, p;
    if (!s.empty() && s.front() == '[') {
        std::size_t close = s.find(']');
        if (close == std::string_view::npos) return false;
        h = s.substr(1, close - 1);
        std::string_view rest = s.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return false;
            p = rest.substr(1);
        }
    } else if (std::size_t colon = s.rfind(':'); colon != std::string_view::npos) {
        if (s.find(':') != colon) return false;  // a bare IPv6 address needs brackets
        h = s.substr(0, colon);
        p = s.substr(colon + 1);
    }
    if (h.empty()) return false;
    if (s.find(':') != std::string_view::npos && p.empty()) return false;
    if (!p.empty()) {
        int n = 0;
        if (!parse_int(p, n) || n < 1 || n > 65535) return false;
        port = (unsigned short)n;
    }
    host = std::string(h);
    return true;
}

bool parse_http_server(std::string_view s, std::string& host, unsigned short& port) {
    if (s.starts_with("http://")) s.remove_prefix(7);
    while (!s.empty() && s.back() == '/') s.remove_suffix(1);
    port = 0;
    return parse_server(s, host, port) && port != 0;
}

}  // namespace tf::play
