#include "play_view.h"

#include <algorithm>
#include <cstdio>

namespace tf::play {

namespace {

// SGR attributes of the pieces.
constexpr const char* kSilver = "1;96";    // bright cyan
constexpr const char* kBronze = "1;33";    // yellow-brown
constexpr const char* kTrunk = "32";       // green
constexpr const char* kBurnt = "1;31";     // red
constexpr const char* kCrossing = "1;35";  // magenta
constexpr const char* kDim = "2";
constexpr const char* kWatched = "100";  // grey background on watched lines
constexpr const char* kLast = "4";       // underline: the last move's cells

const char* side_sgr(Side s) {
    return s == Side::Silver ? kSilver : kBronze;
}

std::string arrow(const Style& st, Dir d) {
    static const char* uni[4] = {"\u25B2", "\u25B6", "\u25BC", "\u25C0"};  // ▲ ▶ ▼ ◀
    static const char* ascii[4] = {"^", ">", "v", "<"};
    return (st.unicode ? uni : ascii)[int(d)];
}

// One cell, three columns wide: a space and two columns of content, right-aligned.
std::string cell_text(const GameView& v, const Style& st, Cell c) {
    const Game& g = *v.game;
    const Variant& var = g.variant();
    const bool last = std::find(v.last_cells.begin(), v.last_cells.end(), c) != v.last_cells.end();
    std::string extra;  // background / underline attributes of the whole cell
    auto with = [&](const char* sgr) {
        std::string s = sgr;
        if (!extra.empty()) s += ";" + extra;
        return s;
    };
    if (!var.in_field(c)) {
        if (auto gd = g.guardian_on(c)) {
            std::string sgr = std::string("7;") + side_sgr(gd->side);
            return " " + paint(st, sgr.c_str(), gd->side == Side::Silver ? "Gs" : "Gb");
        }
        return "  " + paint(st, kDim, st.unicode ? "\u00B7" : "o");
    }
    const bool watched = g.watches_column(c.x) || g.watches_row(c.y);
    if (watched) extra = kWatched;
    // The separating space takes the watched-line background too, so that the line reads as
    // one band; the underline of the last move's cells stays on the content.
    const std::string lead = watched ? paint(st, kWatched, " ") : " ";
    if (last) extra += extra.empty() ? kLast : std::string(";") + kLast;
    if (auto e = g.elephant_on(c)) {
        std::string text = (e->side == Side::Silver ? "S" : "b") + arrow(st, e->facing);
        return lead + paint(st, with(side_sgr(e->side)).c_str(), text);
    }
    const bool cross = g.is_crossing(c);
    std::string left =
        cross ? paint(st, with(kCrossing).c_str(), "+") : paint(st, with("0").c_str(), " ");
    if (g.has_burnt(c)) return lead + left + paint(st, with(kBurnt).c_str(), "X");
    if (g.has_trunk(c)) return lead + left + paint(st, with(kTrunk).c_str(), "T");
    if (cross)
        return lead + paint(st, with("0").c_str(), " ") + paint(st, with(kCrossing).c_str(), "+");
    return lead + paint(st, with("0").c_str(), " ") +
           paint(st, with(kDim).c_str(), watched ? ":" : ".");
}

std::string pad_right(std::string s, std::size_t w) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    if (n < w) s.append(w - n, ' ');
    return s;
}

std::string reason_text(const GameView& v) {
    const std::string& r = v.result_reason;
    std::string loser;
    if (v.result_winner == "silver") loser = "bronze";
    if (v.result_winner == "bronze") loser = "silver";
    const int q = v.game ? v.game->variant().quiet : 0;
    if (r == "trunks") return "no trunks left on the field";
    if (r == "herd") return "a player has no elephant left on the field";
    if (r == "quiet") return std::to_string(q) + " quiet turns in a row";
    if (r == "resign") return loser.empty() ? "resignation" : loser + " resigned";
    if (r == "time") return loser.empty() ? "out of time" : loser + " ran out of time";
    if (r == "agreement") return "draw agreed";
    if (r == "stalling") return loser.empty() ? "drawn: a player stalled" : loser + " stalled";
    if (r == "abandon") return loser.empty() ? "abandoned" : loser + " abandoned the game";
    if (r == "aborted") {
        if (v.abort_reason == "no_start") return "aborted: the game did not start in time";
        if (v.abort_reason == "abandoned") return "aborted: both players left";
        return "aborted";
    }
    return r.empty() ? "game over" : r;
}

}  // namespace

std::string paint(const Style& st, const char* sgr, std::string_view text) {
    if (!st.color) return std::string(text);
    return std::string("\x1b[") + sgr + "m" + std::string(text) + "\x1b[0m";
}

std::int64_t ClockView::left(Side s, SteadyClock::time_point now) const {
    std::int64_t ms_left = ms[idx(s)];
    if (running == s) {
        auto d = std::chrono::duration_cast<std::chrono::milliseconds>(now - received).count();
        if (d > 0) ms_left -= d;
    }
    return std::max<std::int64_t>(0, ms_left);
}

std::string ClockView::text(Side s, SteadyClock::time_point now) const {
    return correspondence ? format_days_clock(left(s, now)) : format_clock(left(s, now));
}

bool GameView::my_move() const {
    return me && game && !finished && status == "playing" && !game->over() &&
           game->to_move() == *me;
}

std::string side_label(Side s) {
    return std::string(side_name(s));
}

std::string format_clock(std::int64_t ms) {
    if (ms < 0) ms = 0;
    std::int64_t s = ms / 1000;
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)(s / 3600),
                      (long long)(s / 60 % 60), (long long)(s % 60));
    else
        std::snprintf(buf, sizeof buf, "%lld:%02lld", (long long)(s / 60), (long long)(s % 60));
    return buf;
}

std::string format_days_clock(std::int64_t ms) {
    if (ms < 3600 * 1000) return format_clock(ms);
    const std::int64_t m = ms / 60000, h = m / 60, d = h / 24;
    if (d > 0) return std::to_string(d) + "d " + std::to_string(h % 24) + "h";
    return std::to_string(h) + "h " + std::to_string(m % 60) + "m";
}

std::string render_board(const GameView& v, const Style& st) {
    if (!v.game) return "";
    const int n = v.game->variant().size;
    std::string header = "       ";  // row label (4) + ring column (3)
    for (int x = 1; x <= n; ++x) {
        header += "  ";
        header += char('a' + x - 1);
    }
    std::string out = paint(st, kDim, header) + "\n";
    for (int y = n + 1; y >= 0; --y) {
        const bool field_row = y >= 1 && y <= n;
        char label[16];
        std::snprintf(label, sizeof label, "%3d ", y);
        out += field_row ? paint(st, kDim, label) : "    ";
        for (int x = 0; x <= n + 1; ++x) out += cell_text(v, st, {x, y});
        if (field_row) out += paint(st, kDim, "  " + std::to_string(y));
        out += "\n";
    }
    out += paint(st, kDim, header) + "\n";
    return out;
}

std::string result_text(const GameView& v) {
    if (!v.finished) return "";
    std::string score = std::to_string(v.result_score[0]) + "-" + std::to_string(v.result_score[1]);
    std::string head;
    if (v.result_winner == "silver" || v.result_winner == "bronze") {
        head = v.result_winner + " wins";
        if (v.me) head += side_label(*v.me) == v.result_winner ? " (you win)" : " (you lose)";
    } else if (v.result_winner == "draw") {
        head = "draw";
    } else {
        head = "no result";
    }
    if (v.result_reason != "aborted") head += " " + score;
    return head + ": " + reason_text(v);
}

std::string render_status(const GameView& v, const Style& st, SteadyClock::time_point now) {
    if (!v.game) return "";
    const Game& g = *v.game;
    const Variant& var = g.variant();
    const std::string dot = st.unicode ? " \u00B7 " : " | ";
    std::string out;
    out += " game " + paint(st, "1", v.code) + dot + std::to_string(var.size) + "x" +
           std::to_string(var.size) + ", " + std::to_string(var.elephants) + " elephants, " +
           std::to_string(var.burnt) + " burnt, quiet " + std::to_string(var.quiet) + dot +
           v.time_control;
    if (v.spectators > 0) out += dot + std::to_string(v.spectators) + " watching";
    out += "\n";

    std::size_t wname = 0;
    std::string names[2];
    for (Side s : {Side::Silver, Side::Bronze}) {
        const PlayerView& p = v.players[idx(s)];
        names[idx(s)] = p.seated ? p.name : "(free seat)";
        if (!p.rating.empty()) names[idx(s)] += " (" + p.rating + ")";
        if (v.me == s) names[idx(s)] += " (you)";
        if (p.away) names[idx(s)] += " [away]";
        wname = std::max(wname, names[idx(s)].size());
    }
    const bool going = !v.finished && !g.over() && v.status == "playing";
    for (Side s : {Side::Silver, Side::Bronze}) {
        const SideStats& k = g.stats(s);
        std::string line =
            " " + paint(st, side_sgr(s), s == Side::Silver ? "S silver" : "b bronze");
        line += "  " + pad_right(names[idx(s)], wname);
        line += "  trunks " + std::to_string(k.trunks) + "  burnt left " +
                std::to_string(k.burnt_left) + "  on field " +
                std::to_string(g.elephants_on_field(s)) + "  saved " + std::to_string(k.saved) +
                "  captured " + std::to_string(k.captured) + "  score " +
                paint(st, "1", std::to_string(g.score(s)));
        if (v.clock.timed) {
            const std::string c = v.clock.text(s, now);
            const bool runs = going && v.clock.running == s;
            line += "  clock " + paint(st, runs ? "1;7" : "0", c);
            if (runs) line += st.unicode ? " \u25C2" : " <";
            if (v.clock.berserk[idx(s)]) line += paint(st, "1;31", " berserk");
        }
        out += line + "\n";
    }

    std::string turn_line;
    if (v.status == "open") {
        turn_line = v.invitee.empty() ? " waiting for an opponent: they can type  join " + v.code
                                      : " waiting for " + v.invitee + " to answer the challenge";
    } else if (v.status == "cancelled") {
        turn_line = " the game was cancelled";
    } else if (going || (!v.finished && !g.over())) {
        const Side s = g.to_move();
        const bool mine = v.me == s;
        std::string who = paint(st, side_sgr(s), side_label(s));
        if (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
            turn_line = " setup: " + who + " to place";
        } else {
            turn_line = " turn " + std::to_string(g.turns_played() + 1) + ": " + who + " to move";
        }
        if (mine) turn_line += paint(st, "1", " (you)");
        if (g.phase() == Phase::Play)
            turn_line += dot + "quiet " + std::to_string(g.quiet_turns()) + "/" +
                         std::to_string(var.quiet) + dot + std::to_string(g.trunks_on_field()) +
                         " trunks on the field";
    } else {
        turn_line = " " + std::to_string(g.turns_played()) +
                    (g.turns_played() == 1 ? " turn played" : " turns played");
    }
    out += turn_line + "\n";

    if (!v.history.empty()) {
        const std::size_t i = v.history.size() - 1;
        const Side s = i % 2 == 0 ? Side::Silver : Side::Bronze;
        out += " last turn " + std::to_string(i + 1) + " (" + side_label(s) +
               "): " + paint(st, "1", v.history.back()) + "\n";
    }

    std::string cols, rows;
    for (int x = 1; x <= var.size; ++x)
        if (g.watches_column(x)) cols += std::string(cols.empty() ? "" : ", ") + char('a' + x - 1);
    for (int y = 1; y <= var.size; ++y)
        if (g.watches_row(y)) rows += (rows.empty() ? "" : ", ") + std::to_string(y);
    std::string watched;
    if (!cols.empty()) watched = (cols.size() > 1 ? "columns " : "column ") + cols;
    if (!rows.empty())
        watched += (watched.empty() ? "" : "; ") +
                   std::string(rows.find(',') != std::string::npos ? "rows " : "row ") + rows;
    if (!watched.empty()) {
        std::string cross;
        for (Cell c : g.crossings()) cross += " " + cell_name(c, var.size);
        out +=
            " watched: " + watched + dot + "crossings:" + (cross.empty() ? " none" : cross) + "\n";
    }
    if (v.draw_offer && going) {
        if (v.me && *v.me != *v.draw_offer)
            out += paint(st, "1",
                         " " + side_label(*v.draw_offer) +
                             " offers a draw: type  draw  to accept,  draw decline  to refuse") +
                   "\n";
        else
            out += " " + side_label(*v.draw_offer) + " offers a draw\n";
    }
    if (v.stalling && going) {
        if (v.me && *v.me != *v.stalling)
            out += paint(st, "1",
                         " " + side_label(*v.stalling) +
                             " is stalling in a lost position: type  claim  for the win or"
                             "  claim draw  for a draw") +
                   "\n";
        else
            out += " " + side_label(*v.stalling) + " is stalling in a lost position\n";
    }
    if (v.takeback_offer && going) {
        if (v.me && *v.me != *v.takeback_offer)
            out += paint(st, "1",
                         " " + side_label(*v.takeback_offer) +
                             " asks to take back their last turn: type  takeback  to accept,"
                             "  takeback decline  to refuse") +
                   "\n";
        else
            out += " " + side_label(*v.takeback_offer) + " asks to take back their last turn\n";
    }
    return out;
}

std::string render_game(const GameView& v, const Style& st, SteadyClock::time_point now) {
    std::string out = render_board(v, st) + render_status(v, st, now);
    if (v.finished) {
        const char* bar = st.unicode ? "\u2550\u2550\u2550\u2550" : "====";
        out += paint(st, "1;7",
                     std::string(" ") + bar + " GAME OVER: " + result_text(v) + " " + bar + " ") +
               "\n";
    }
    return out;
}

}  // namespace tf::play
