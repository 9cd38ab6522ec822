#include "server/accounts/password_policy.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>
#include <vector>

namespace tf::server {

extern const std::string_view kCommonPasswords;  // common_passwords.cpp (generated)

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

const std::unordered_set<std::string>& common() {
    static const std::unordered_set<std::string> set = [] {
        std::unordered_set<std::string> out;
        std::string_view rest = kCommonPasswords;
        while (!rest.empty()) {
            auto nl = rest.find('\n');
            std::string_view line = rest.substr(0, nl);
            rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (!line.empty() && line.front() != '#') out.insert(lower(line));
        }
        return out;
    }();
    return set;
}

// The code points of valid UTF-8 (the protocol parser has checked it); a space or control
// character is any code point up to U+0020, U+007F to U+00A0, or a Unicode space (U+2000 to
// U+200B, U+3000).
std::vector<char32_t> code_points(std::string_view s) {
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        char32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
        for (int k = 1; k < n && i + std::size_t(k) < s.size(); ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(s[i + std::size_t(k)]) & 0x3F);
        out.push_back(cp);
        i += std::size_t(n);
    }
    return out;
}

bool blank(char32_t c) {
    return c <= 0x20 || (c >= 0x7F && c <= 0xA0) || (c >= 0x2000 && c <= 0x200B) || c == 0x3000;
}

}  // namespace

std::optional<std::string> password_weakness(std::string_view password, std::string_view username) {
    const auto cps = code_points(password);
    const auto solid = std::count_if(cps.begin(), cps.end(), [](char32_t c) { return !blank(c); });
    if (solid < 8) return "a password needs at least 8 characters that are not spaces";
    if (std::set<char32_t>(cps.begin(), cps.end()).size() < 5)
        return "a password needs at least 5 different characters";
    const std::string l = lower(password);
    if (!username.empty() && l == lower(username)) return "a password must not be the username";
    if (common().count(l)) return "this password is one of the most common ones; choose another";
    return std::nullopt;
}

}  // namespace tf::server
