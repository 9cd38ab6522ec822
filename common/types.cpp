#include "types.h"

#include <charconv>

#include "error.h"

namespace tf {

std::string_view side_name(Side s) {
    return s == Side::Silver ? "silver" : "bronze";
}

std::optional<Side> parse_side(std::string_view s) {
    if (s == "silver") return Side::Silver;
    if (s == "bronze") return Side::Bronze;
    return std::nullopt;
}

char dir_char(Dir d) {
    return "NESW"[u8(d)];
}

std::optional<Dir> parse_dir(std::string_view s) {
    if (s.size() != 1) return std::nullopt;
    switch (s[0]) {
        case 'N':
            return Dir::N;
        case 'E':
            return Dir::E;
        case 'S':
            return Dir::S;
        case 'W':
            return Dir::W;
        default:
            return std::nullopt;
    }
}

std::optional<Rot> parse_rot(std::string_view s) {
    if (s == "cw") return Rot::Cw;
    if (s == "ccw") return Rot::Ccw;
    return std::nullopt;
}

std::string_view rot_name(Rot r) {
    return r == Rot::Cw ? "cw" : "ccw";
}

std::string_view error_code_name(ErrorCode c) {
    switch (c) {
#define X(id, name)     \
    case ErrorCode::id: \
        return name;
        TF_ERROR_CODES(X)
#undef X
    }
    return "unknown";
}

std::optional<std::string> check_variant(const Variant& v) {
    auto range = [](const char* what, int value, int lo, int hi) -> std::optional<std::string> {
        if (value >= lo && value <= hi) return std::nullopt;
        return std::string(what) + " must be between " + std::to_string(lo) + " and " +
               std::to_string(hi) + ", got " + std::to_string(value);
    };
    if (auto e = range("size", v.size, kMinSize, kMaxSize)) return e;
    if (auto e = range("elephants", v.elephants, 1, v.size - 2)) return *e + " (at most size - 2)";
    if (auto e = range("burnt", v.burnt, 0, kMaxBurnt)) return e;
    if (auto e = range("quiet", v.quiet, kMinQuiet, kMaxQuiet)) return e;
    return std::nullopt;
}

std::string cell_name(Cell c, int n) {
    auto col = [](int x) { return std::string(1, char('a' + x - 1)); };
    const bool col_in = c.x >= 1 && c.x <= n, row_in = c.y >= 1 && c.y <= n;
    if (col_in && row_in) return col(c.x) + std::to_string(c.y);
    if (col_in && c.y == 0) return "S" + col(c.x);
    if (col_in && c.y == n + 1) return "N" + col(c.x);
    if (row_in && c.x == 0) return "W" + std::to_string(c.y);
    if (row_in && c.x == n + 1) return "E" + std::to_string(c.y);
    if (c.x == 0 && c.y == 0) return "SW";
    if (c.x == 0 && c.y == n + 1) return "NW";
    if (c.x == n + 1 && c.y == n + 1) return "NE";
    if (c.x == n + 1 && c.y == 0) return "SE";
    return "[" + std::to_string(c.x) + ", " + std::to_string(c.y) + "]";
}

std::optional<Cell> parse_cell_name(std::string_view s, int n) {
    auto number = [&](std::string_view d) -> std::optional<int> {
        if (d.empty() || d.size() > 2 || d[0] == '0') return std::nullopt;
        int v = 0;
        auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
        if (ec != std::errc() || p != d.data() + d.size() || v < 1 || v > n) return std::nullopt;
        return v;
    };
    auto column = [&](char ch) -> std::optional<int> {
        if (ch < 'a' || ch >= 'a' + n) return std::nullopt;
        return ch - 'a' + 1;
    };
    if (s == "SW") return Cell{0, 0};
    if (s == "NW") return Cell{0, n + 1};
    if (s == "NE") return Cell{n + 1, n + 1};
    if (s == "SE") return Cell{n + 1, 0};
    if (s.size() < 2) return std::nullopt;
    if (s[0] == 'S' || s[0] == 'N') {
        if (s.size() != 2) return std::nullopt;
        auto x = column(s[1]);
        if (!x) return std::nullopt;
        return Cell{*x, s[0] == 'S' ? 0 : n + 1};
    }
    if (s[0] == 'W' || s[0] == 'E') {
        auto y = number(s.substr(1));
        if (!y) return std::nullopt;
        return Cell{s[0] == 'W' ? 0 : n + 1, *y};
    }
    auto x = column(s[0]);
    auto y = number(s.substr(1));
    if (!x || !y) return std::nullopt;
    return Cell{*x, *y};
}

}  // namespace tf
