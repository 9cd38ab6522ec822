#include "server/web/static_files.h"

#include "proto/messages.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace tf::server {

namespace fs = std::filesystem;

std::string default_web_root() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec || exe.empty()) return {};
    return (exe.parent_path().parent_path() / "web").lexically_normal().string();
}

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out.push_back(s[i]);
            continue;
        }
        if (i + 2 >= s.size()) return std::nullopt;
        int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
    }
    return out;
}

}  // namespace

std::optional<std::string> static_relative_path(std::string_view target) {
    auto cut = target.find_first_of("?#");
    if (cut != std::string_view::npos) target = target.substr(0, cut);
    if (target.empty() || target.front() != '/') return std::nullopt;
    auto decoded = percent_decode(target);
    if (!decoded) return std::nullopt;
    std::vector<std::string> segments;
    std::string_view rest = *decoded;
    while (!rest.empty()) {
        auto slash = rest.find('/');
        std::string_view seg = rest.substr(0, slash);
        rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
        if (seg.empty()) continue;                    // "//" collapses
        if (seg.front() == '.') return std::nullopt;  // ".", "..", hidden files
        for (unsigned char c : seg)
            if (c < 0x20 || c == 0x7f || c == '\\') return std::nullopt;
        segments.emplace_back(seg);
    }
    if (segments.empty()) return std::string("index.html");
    if (segments.size() == 2 && segments[0] == "g" && proto::game_code(segments[1]))
        return std::string("index.html");
    // A player's page (/@/NAME) and the leaderboard (/players) are the page's too.
    if (segments.size() == 2 && segments[0] == "@" && proto::is_username(segments[1]))
        return std::string("index.html");
    if (segments.size() == 1 && segments[0] == "players") return std::string("index.html");
    // The tournaments (/tournaments) and one of them (/t/ID: ids are formed as game codes).
    if (segments.size() == 1 && segments[0] == "tournaments") return std::string("index.html");
    if (segments.size() == 2 && segments[0] == "t" && proto::game_code(segments[1]))
        return std::string("index.html");
    if (segments.size() == 1 && segments[0] == "mod") return std::string("index.html");
    std::string out;
    for (const auto& s : segments) {
        if (!out.empty()) out.push_back('/');
        out += s;
    }
    return out;
}

std::string_view static_content_type(std::string_view filename) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kTypes{{
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".json", "application/json"},
        {".wasm", "application/wasm"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".md", "text/plain; charset=utf-8"},
        {".map", "application/json"},
        {".webmanifest", "application/manifest+json"},
    }};
    auto dot = filename.rfind('.');
    if (dot != std::string_view::npos) {
        auto ext = filename.substr(dot);
        for (const auto& [e, t] : kTypes)
            if (e == ext) return t;
    }
    return "application/octet-stream";
}

bool is_hashed_name(std::string_view name) {
    auto last = name.rfind('.');
    if (last == std::string_view::npos || last + 1 == name.size()) return false;
    auto stem = name.substr(0, last);
    auto dot = stem.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return false;
    auto hash = stem.substr(dot + 1);
    if (hash.size() != 10) return false;
    for (char c : hash)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

namespace {

char lower(char c) {
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// "q=0", "q=0.0", "q=0.000" (any spacing): the coding is refused.
bool q_is_zero(std::string_view params) {
    while (!params.empty()) {
        auto semi = params.find(';');
        auto p = trim(params.substr(0, semi));
        params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
        auto eq = p.find('=');
        if (eq == std::string_view::npos || !iequal(trim(p.substr(0, eq)), "q")) continue;
        auto v = trim(p.substr(eq + 1));
        if (v.empty() || v.front() != '0') return false;
        for (char c : v.substr(1))
            if (c != '.' && c != '0') return false;
        return true;
    }
    return false;
}

// p resolved (symlinks too) to a regular file inside canon_root, or nullopt.
std::optional<fs::path> inside(const fs::path& canon_root, const fs::path& p) {
    std::error_code ec;
    fs::path file = fs::canonical(p, ec);
    if (ec) return std::nullopt;
    auto [ri, fi] = std::mismatch(canon_root.begin(), canon_root.end(), file.begin(), file.end());
    if (ri != canon_root.end()) return std::nullopt;
    if (!fs::is_regular_file(file, ec) || ec) return std::nullopt;
    return file;
}

}  // namespace

bool accepts_encoding(std::string_view header, std::string_view coding) {
    while (!header.empty()) {
        auto comma = header.find(',');
        auto item = header.substr(0, comma);
        header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
        auto semi = item.find(';');
        auto name = trim(item.substr(0, semi));
        if (!iequal(name, coding) && name != "*") continue;
        return semi == std::string_view::npos || !q_is_zero(item.substr(semi + 1));
    }
    return false;
}

std::optional<StaticFile> load_static_file(const fs::path& root, std::string_view target,
                                           std::string_view accept_encoding) {
    auto rel = static_relative_path(target);
    if (!rel || root.empty()) return std::nullopt;
    std::error_code ec;
    fs::path canon_root = fs::canonical(root, ec);
    if (ec) return std::nullopt;
    // Symlinks must not lead out of the root either.
    auto file = inside(canon_root, canon_root / *rel);
    if (!file) return std::nullopt;
    auto mtime = fs::last_write_time(*file, ec);
    if (ec) return std::nullopt;
    StaticFile out;
    out.content_type = std::string(static_content_type(file->filename().string()));
    std::string suffix;
    for (auto [coding, ext] : {std::pair{"br", ".br"}, std::pair{"gzip", ".gz"}}) {
        auto copy = inside(canon_root, fs::path(file->string() + ext));
        if (!copy) continue;
        out.vary = true;
        if (!out.content_encoding.empty() || !accepts_encoding(accept_encoding, coding)) continue;
        // A copy older than the file is stale (an interrupted build): never serve it.
        auto copy_mtime = fs::last_write_time(*copy, ec);
        if (ec || copy_mtime < mtime) continue;
        auto copy_size = fs::file_size(*copy, ec);
        if (ec) continue;
        out.path = *copy;
        out.size = copy_size;
        out.content_encoding = coding;
        suffix = std::string("-") + coding;
    }
    std::uintmax_t size = fs::file_size(*file, ec);
    if (ec) return std::nullopt;
    if (out.content_encoding.empty()) {
        out.path = *file;
        out.size = size;
    }
    out.etag = "W/\"" + std::to_string(size) + "-" +
               std::to_string(static_cast<unsigned long long>(mtime.time_since_epoch().count())) +
               suffix + "\"";
    out.cache_control = is_hashed_name(file->filename().string())
                            ? "public, max-age=31536000, immutable"
                            : "no-cache";
    return out;
}

}  // namespace tf::server
