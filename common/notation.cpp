#include "notation.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

namespace tf {

std::string turn_to_notation(const Turn& t, int n) {
    std::string out;
    if (!t.elephant) {
        out = "pass";
    } else {
        out = cell_name(t.elephant->from, n);
        for (Cell c : t.elephant->path) out += "-" + cell_name(c, n);
        if (t.elephant->facing) out += std::string(":") + dir_char(*t.elephant->facing);
    }
    if (t.burnt) out += " *" + cell_name(*t.burnt, n);
    for (const GuardianMove& g : t.guardians)
        out +=
            " " + cell_name(g.from, n) + (g.dir == Rot::Cw ? "+" : "-") + std::to_string(g.steps);
    return out;
}

namespace {

RuleError bad(const std::string& m) {
    return RuleError{ErrorCode::BadFormat, m};
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == sep) {
            out.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

}  // namespace

Expected<Turn> turn_from_notation(std::string_view s, int n) {
    std::vector<std::string_view> tokens;
    for (std::string_view tok : split(s, ' '))
        if (!tok.empty()) tokens.push_back(tok);
    if (tokens.empty()) return bad("empty turn: write an elephant move such as c1-c2:N, or pass");
    if (tokens.size() > 8) return bad("too many parts in one turn");
    Turn t;
    auto cell = [&](std::string_view c) -> Expected<Cell> {
        auto cc = parse_cell_name(c, n);
        if (!cc)
            return bad("'" + std::string(c) + "' is not a cell of a " + std::to_string(n) + "x" +
                       std::to_string(n) + " board");
        return *cc;
    };
    size_t i = 0;
    if (tokens[0] != "pass") {
        std::string_view e = tokens[0];
        ElephantMove m;
        if (auto colon = e.find(':'); colon != std::string_view::npos) {
            auto d = parse_dir(e.substr(colon + 1));
            if (!d)
                return bad("'" + std::string(e.substr(colon + 1)) +
                           "' is not a facing (N, E, S or W)");
            m.facing = d;
            e = e.substr(0, colon);
        }
        auto cells = split(e, '-');
        if (cells.size() < 2 || cells.size() > 4)
            return bad("'" + std::string(tokens[0]) +
                       "' is not an elephant move: write from-to cells like c1-c2-c3");
        for (size_t k = 0; k < cells.size(); ++k) {
            auto c = cell(cells[k]);
            if (!c) return c.error();
            if (k == 0)
                m.from = *c;
            else
                m.path.push_back(*c);
        }
        t.elephant = std::move(m);
    }
    i = 1;
    if (i < tokens.size() && tokens[i][0] == '*') {
        auto c = cell(tokens[i].substr(1));
        if (!c) return c.error();
        t.burnt = *c;
        ++i;
    }
    for (; i < tokens.size(); ++i) {
        std::string_view g = tokens[i];
        const size_t k = g.find_first_of("+-");
        if (k == std::string_view::npos || k == 0)
            return bad(
                "'" + std::string(g) +
                "' is not a guardian move: write the ring cell, + or -, and the cells, like Sc+2");
        auto c = cell(g.substr(0, k));
        if (!c) return c.error();
        long long steps = 0;
        std::string_view digits = g.substr(k + 1);
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), steps);
        if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() ||
            steps < 1 || steps > 1000000000)
            return bad("'" + std::string(g) +
                       "': the guardian's cells must be a whole number >= 1");
        t.guardians.push_back(GuardianMove{*c, g[k] == '+' ? Rot::Cw : Rot::Ccw, steps});
    }
    return t;
}

std::vector<std::string> split_words(std::string_view s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        std::size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
        if (j > i) out.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

std::optional<Setup> parse_setup_words(const std::vector<std::string>& words, int size,
                                       std::string& err) {
    Setup s;
    for (std::string w : words) {
        std::replace(w.begin(), w.end(), ',', ' ');
        for (const std::string& part : split_words(w)) {
            if (part == "|") continue;
            std::string_view p = part;
            // "a1|Sa" written without spaces
            std::size_t bar = p.find('|');
            std::vector<std::string_view> pieces;
            if (bar != std::string_view::npos) {
                if (bar > 0) pieces.push_back(p.substr(0, bar));
                if (bar + 1 < p.size()) pieces.push_back(p.substr(bar + 1));
            } else {
                pieces.push_back(p);
            }
            for (std::string_view piece : pieces) {
                auto c = parse_cell_name(piece, size);
                if (!c) {
                    err = "'" + std::string(piece) + "' is not a cell of this board";
                    return std::nullopt;
                }
                Variant v;
                v.size = size;
                (v.in_field(*c) ? s.elephants : s.guardians).push_back(*c);
            }
        }
    }
    return s;
}

}  // namespace tf
