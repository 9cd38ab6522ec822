#include "position.h"

#include <charconv>
#include <vector>

namespace tf {

namespace {

constexpr std::string_view kFacings = "NESW";

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t start = 0;
    for (;;) {
        const size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

// A whole decimal number with at most four digits (nothing in a position comes near 10,000).
std::optional<int> number(std::string_view s) {
    int v = 0;
    if (s.empty() || s.size() > 4) return std::nullopt;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string counters(const SideStats& st) {
    return std::to_string(st.trunks) + '.' + std::to_string(st.spent) + '.' +
           std::to_string(st.burnt_left) + '.' + std::to_string(st.saved) + '.' +
           std::to_string(st.captured);
}

RuleError bad(const std::string& m) {
    return RuleError{ErrorCode::BadFormat, "position: " + m};
}

}  // namespace

std::optional<std::string> position_string(const Game& g) {
    if (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) return std::nullopt;
    if (g.guardians().size() != 4) return std::nullopt;  // ended during the setups
    const Variant& v = g.variant();
    std::string out = std::to_string(v.size) + '.' + std::to_string(v.elephants) + '.' +
                      std::to_string(v.burnt) + '.' + std::to_string(v.quiet) + ' ';
    for (int y = v.size + 1; y >= 0; --y) {
        int empty = 0;
        for (int x = 0; x <= v.size + 1; ++x) {
            const Cell c{x, y};
            char piece = 0;
            if (auto e = g.elephant_on(c)) {
                const char f = kFacings[int(e->facing)];
                piece = e->side == Side::Silver ? f : char(f - 'A' + 'a');
            } else if (auto gu = g.guardian_on(c)) {
                piece = gu->side == Side::Silver ? 'G' : 'g';
            } else if (g.has_trunk(c)) {
                piece = 'o';
            } else if (g.has_burnt(c)) {
                piece = 'x';
            }
            if (!piece) {
                ++empty;
                continue;
            }
            if (empty) out += std::to_string(empty);
            empty = 0;
            out += piece;
        }
        if (empty) out += std::to_string(empty);
        if (y > 0) out += '/';
    }
    const bool ended_by_rules =
        g.over() && (g.end_reason() == EndReason::Trunks || g.end_reason() == EndReason::Herd ||
                     g.end_reason() == EndReason::Quiet);
    out += ended_by_rules ? " -" : g.to_move() == Side::Silver ? " s" : " b";
    out += ' ' + counters(g.stats(Side::Silver)) + ' ' + counters(g.stats(Side::Bronze));
    out += ' ' + std::to_string(g.quiet_turns()) + ' ' + std::to_string(g.turns_played());
    return out;
}

Expected<Game> game_from_position(std::string_view text) {
    std::string s(text);
    for (char& c : s)
        if (c == '_') c = ' ';
    const auto fields = split(s, ' ');
    if (fields.size() != 7)
        return bad("expected 7 fields separated by spaces, found " + std::to_string(fields.size()));
    Snapshot snap;

    const auto vparts = split(fields[0], '.');
    std::optional<int> vnum[4];
    if (vparts.size() == 4)
        for (int i = 0; i < 4; ++i) vnum[i] = number(vparts[i]);
    if (vparts.size() != 4 || !vnum[0] || !vnum[1] || !vnum[2] || !vnum[3])
        return bad("the variant is size.elephants.burnt.quiet, e.g. 9.5.3.40");
    snap.variant = Variant{*vnum[0], *vnum[1], *vnum[2], *vnum[3]};
    if (auto e = check_variant(snap.variant))
        return RuleError{ErrorCode::BadVariant, "position: variant: " + *e};
    const Variant& v = snap.variant;

    const auto rows = split(fields[1], '/');
    if (int(rows.size()) != v.size + 2)
        return bad("the board has " + std::to_string(rows.size()) + " rows, the variant " +
                   std::to_string(v.size + 2));
    for (int r = 0; r < int(rows.size()); ++r) {
        const int y = v.size + 1 - r;
        int x = 0;
        const std::string_view row = rows[r];
        auto where = [&] { return "row " + std::to_string(r + 1) + " of the board"; };
        for (size_t i = 0; i < row.size();) {
            const char c = row[i];
            if (c >= '0' && c <= '9') {
                size_t j = i;
                while (j < row.size() && row[j] >= '0' && row[j] <= '9') ++j;
                const auto n = number(row.substr(i, j - i));
                if (!n || *n == 0) return bad(where() + ": a bad count of empty cells");
                x += *n;
                i = j;
                continue;
            }
            if (x > v.size + 1) break;
            const Cell cell{x, y};
            if (c == 'o') {
                snap.trunks.push_back(cell);
            } else if (c == 'x') {
                snap.burnt.push_back(cell);
            } else if (c == 'G' || c == 'g') {
                snap.guardians.push_back({c == 'G' ? Side::Silver : Side::Bronze, cell});
            } else if (auto f = kFacings.find(char(c >= 'a' ? c - 'a' + 'A' : c));
                       f != std::string_view::npos) {
                snap.elephants.push_back(
                    {c >= 'a' ? Side::Bronze : Side::Silver, cell, Dir(int(f))});
            } else {
                return bad(where() + ": unknown piece '" + std::string(1, c) + "'");
            }
            ++x;
            ++i;
        }
        if (x != v.size + 2)
            return bad(where() + " has " + std::to_string(x) + " cells, the variant " +
                       std::to_string(v.size + 2));
    }

    const std::string_view stm = fields[2];
    if (stm == "s" || stm == "b") {
        snap.phase = Phase::Play;
        snap.to_move = stm == "s" ? Side::Silver : Side::Bronze;
    } else if (stm == "-") {
        snap.phase = Phase::Over;
    } else {
        return bad("the side to move is s, b or - (the game is over)");
    }

    for (int side = 0; side < 2; ++side) {
        const auto parts = split(fields[3 + side], '.');
        std::optional<int> n[5];
        if (parts.size() == 5)
            for (int i = 0; i < 5; ++i) n[i] = number(parts[i]);
        if (parts.size() != 5 || !n[0] || !n[1] || !n[2] || !n[3] || !n[4])
            return bad(std::string(side_name(Side(side))) +
                       "'s counters are held.spent.burnt left.saved.captured, e.g. 2.0.3.0.1");
        snap.stats[side] = SideStats{*n[0], *n[1], *n[2], *n[3], *n[4]};
    }
    const auto quiet = number(fields[5]);
    const auto turns = number(fields[6]);
    if (!quiet || !turns) return bad("the quiet turns and the turns played are whole numbers");
    snap.quiet_turns = *quiet;
    snap.turns_played = *turns;

    if (snap.phase == Phase::Over) {
        // The end the rules decided: what check_end and finish_turn look at, in their order.
        int on_field[2] = {0, 0};
        for (const ElephantInfo& e : snap.elephants) ++on_field[idx(e.side)];
        if (snap.trunks.empty())
            snap.reason = EndReason::Trunks;
        else if (on_field[0] == 0 || on_field[1] == 0)
            snap.reason = EndReason::Herd;
        else if (snap.quiet_turns == v.quiet)
            snap.reason = EndReason::Quiet;
        else
            return bad(
                "'-' says the game is over, but trunks and both herds remain and the quiet "
                "limit is not reached");
    }
    auto g = Game::from_snapshot(snap);
    if (!g) {
        std::string m = g.error().message;
        if (m.starts_with("state: ")) m.erase(0, 7);
        return bad(m);
    }
    if (g->phase() == Phase::Play && g->trunks_on_field() == 0)
        return bad("no trunk is left: the game is over ('-')");
    if (g->phase() == Phase::Play &&
        (g->elephants_on_field(Side::Silver) == 0 || g->elephants_on_field(Side::Bronze) == 0))
        return bad("a herd is gone: the game is over ('-')");
    return g;
}

}  // namespace tf
