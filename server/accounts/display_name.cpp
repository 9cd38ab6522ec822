#include "server/accounts/display_name.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

#include "server/accounts/ratings.h"

namespace tf::server {

namespace {

// utf8proc_map's result, or nullopt for invalid UTF-8.
std::optional<std::string> mapped(std::string_view s, int options) {
    utf8proc_uint8_t* out = nullptr;
    const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                utf8proc_ssize_t(s.size()), &out, utf8proc_option_t(options));
    std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(out, &std::free);
    if (n < 0) return std::nullopt;
    return std::string(reinterpret_cast<const char*>(out), std::size_t(n));
}

}  // namespace

std::optional<std::string> clean_display_name(std::string_view raw, std::string& why) {
    auto nfc = mapped(raw, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (!nfc) {
        why = "a name must be valid UTF-8";
        return std::nullopt;
    }
    std::string out;
    bool space = false;
    int marks = 0, count = 0;
    for (std::size_t i = 0; i < nfc->size();) {
        utf8proc_int32_t cp = 0;
        const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(nfc->data() + i),
                                        utf8proc_ssize_t(nfc->size() - i), &cp);
        if (n <= 0) {
            why = "a name must be valid UTF-8";
            return std::nullopt;
        }
        const std::string_view bytes(nfc->data() + i, std::size_t(n));
        i += std::size_t(n);
        switch (utf8proc_category(cp)) {
            case UTF8PROC_CATEGORY_CC:
            case UTF8PROC_CATEGORY_CF:
            case UTF8PROC_CATEGORY_ZL:
            case UTF8PROC_CATEGORY_ZP:
                why = "a name must not contain control, formatting or direction characters";
                return std::nullopt;
            case UTF8PROC_CATEGORY_CO:
            case UTF8PROC_CATEGORY_CS:
            case UTF8PROC_CATEGORY_CN:
                why = "a name must not contain unassigned or private-use characters";
                return std::nullopt;
            case UTF8PROC_CATEGORY_ZS:
                space = !out.empty();
                marks = 0;
                continue;
            case UTF8PROC_CATEGORY_MN:
            case UTF8PROC_CATEGORY_ME:
                if (++marks > 2) {
                    why = "a name must not pile up more than two accents on a letter";
                    return std::nullopt;
                }
                break;
            default:
                marks = 0;
                break;
        }
        if (space) out += ' ';
        space = false;
        out.append(bytes);
        ++count;
    }
    if (count > 32) {
        why = "a name is at most 32 characters";
        return std::nullopt;
    }
    return out;
}

std::string name_key(std::string_view name) {
    return mapped(name, UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD)
        .value_or(std::string(name));
}

bool reserved_guest_name(std::string_view key) {
    // "guest-1a2b" is how nameless guests are called; "guest7" is anyone's.
    if (key.substr(0, 5) == "guest") return key == "guest" || key.substr(0, 6) == "guest-";
    // "bot-3" is what `trunkfield bot` calls itself: a program, as the name says.
    if (key.substr(0, 4) == "bot-" || key.substr(0, 4) == "bot_") return false;
    return reserved_username(key) || key.substr(0, 8) == "computer";
}

}  // namespace tf::server
