#include "server/static_files.h"

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
    if (segments.size() == 2 && segments[0] == "g" && proto::is_game_code(segments[1]))
        return std::string("index.html");
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

std::optional<StaticFile> load_static_file(const fs::path& root, std::string_view target) {
    auto rel = static_relative_path(target);
    if (!rel || root.empty()) return std::nullopt;
    std::error_code ec;
    fs::path canon_root = fs::canonical(root, ec);
    if (ec) return std::nullopt;
    fs::path file = fs::canonical(canon_root / *rel, ec);
    if (ec) return std::nullopt;
    // Symlinks must not lead out of the root either.
    auto [ri, fi] = std::mismatch(canon_root.begin(), canon_root.end(), file.begin(), file.end());
    if (ri != canon_root.end()) return std::nullopt;
    if (!fs::is_regular_file(file, ec) || ec) return std::nullopt;
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    StaticFile out;
    out.body = std::move(ss).str();
    out.content_type = std::string(static_content_type(file.filename().string()));
    auto mtime = fs::last_write_time(file, ec).time_since_epoch().count();
    out.etag = "W/\"" + std::to_string(out.body.size()) + "-" +
               std::to_string(ec ? 0ULL : static_cast<unsigned long long>(mtime)) + "\"";
    out.cache_control = "no-cache";
    return out;
}

}  // namespace tf::server
