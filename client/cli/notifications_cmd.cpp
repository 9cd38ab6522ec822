// `trunkfield notifications`: the player's notifications (proto/PROTOCOL.md "Notifications"),
// read from the server's HTTP API with the player's token, one line each, newest first: the
// unread ones (marked *), or with --all every one; --read then marks them all read.
// `trunkfield playing`: the player's games going on (GET /api/playing), those awaiting the
// player's move first, with the time left to make it (correspondence games: days per move).
// `trunkfield vacation`: the account's vacation (GET /api/vacation): on or off, since when, the
// days left this calendar year and when it ends by itself; `vacation on` / `vacation off` start and
// end it (POST /api/vacation). While on, its clock stands in every correspondence game where it
// is its move.
#include "notifications_cmd.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "http_api.h"
#include "play_cmd.h"
#include "play_input.h"
#include "play_notices.h"
#include "play_view.h"

namespace tf::cli {

namespace {

using Json = nlohmann::json;

struct Args {
    std::string server = "127.0.0.1:8080", token;
    bool all = false, read = false;
};

constexpr int kPage = 100;      // the API's largest page
constexpr int kMaxPages = 100;  // --all: at most this many pages (10 000 notifications)

int fail(const std::string& msg) {
    std::cerr << "trunkfield notifications: " << msg << "\n";
    return 1;
}

bool is_unread(const Json& n) {
    auto r = n.find("read");
    return r != n.end() && r->is_boolean() && !r->get<bool>();
}

int run_notifications(const Args& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err);
    if (!api) return fail(err);
    try {
        // Newest first, a page at a time: until every unread one is seen (or every one, --all).
        std::vector<Json> shown;
        std::int64_t unread = -1, seen_unread = 0;
        std::string before;
        for (int page = 0; page < kMaxPages; ++page) {
            Json j = api->call("GET", "/api/notifications?limit=" + std::to_string(kPage) + before);
            if (unread < 0 && j.value("unread", Json()).is_number_integer())
                unread = j["unread"].get<std::int64_t>();
            const Json list = j.value("notifications", Json::array());
            if (!list.is_array()) throw std::runtime_error("the server's list is not a list");
            for (const Json& n : list) {
                if (!n.is_object()) continue;
                const bool fresh = is_unread(n);
                seen_unread += fresh;
                if (a.all || fresh) shown.push_back(n);
            }
            if (list.size() < std::size_t(kPage) || list.empty()) break;
            if (!a.all && seen_unread >= unread) break;
            const Json& last = list.back();
            if (!last.is_object() || !last.value("id", Json()).is_number_integer()) break;
            before = "&before=" + std::to_string(last["id"].get<std::int64_t>());
        }
        if (unread < 0) unread = seen_unread;
        if (shown.empty()) {
            std::cout << (a.all ? "No notifications.\n"
                                : "No unread notifications (--all lists the read ones too).\n");
        } else {
            std::cout << unread << " unread" << (a.all ? ", * marks them" : "") << ":\n";
            for (const Json& n : shown)
                std::cout << (is_unread(n) ? "* " : "  ") << local_time(n.value("at", Json()))
                          << "  " << play::notification_text(n, play::NoticeFor::Shell) << "\n";
        }
        if (a.read && unread > 0) {
            Json r = api->call("POST", "/api/notifications/read", Json{{"all", true}});
            std::cout << "Marked all read (" << r.value("unread", Json(0)).dump()
                      << " unread now).\n";
        }
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return 0;
}

// ---- playing -----------------------------------------------------------------------------------

struct PlayingArgs {
    std::string server = "127.0.0.1:8080", token;
};

int playing_fail(const std::string& msg) {
    std::cerr << "trunkfield playing: " << msg << "\n";
    return 1;
}

std::string pad(std::string s, std::size_t w) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    if (n < w) s.append(w - n, ' ');
    return s;
}

bool opponent_named(const Json& g) {
    auto opp = g.find("opponent");
    return opp != g.end() && opp->is_object() && !text_of(*opp, "name", "", 40).empty();
}

// One game of GET /api/playing as a row: CODE, OPPONENT, TIME CONTROL, STATE, TIME LEFT (and
// TURNS when the server says how many turns were played).
std::vector<std::string> playing_row(const Json& g, std::int64_t now_ms, bool with_turns) {
    const std::string code = text_of(g, "code", "", 16);
    auto opp = g.find("opponent");
    std::string opponent = opp != g.end() && opp->is_object() ? text_of(*opp, "name", "", 40) : "";
    if (opponent.empty()) opponent = "(nobody yet)";
    const std::string side = text_of(g, "side", "", 8);
    std::string tc = play::time_control_text(g.value("time_control", Json()));
    if (tc.empty()) tc = "?";
    auto rated = g.find("rated");
    if (rated != g.end() && rated->is_boolean() && rated->get<bool>()) tc += ", rated";
    auto mine = g.find("your_move");
    const bool my_move = mine != g.end() && mine->is_boolean() && mine->get<bool>();
    const bool waiting = g.value("to_move", Json()).is_string();  // for the opponent's move
    std::string state = my_move             ? "your move"
                        : waiting           ? "waiting"
                        : opponent_named(g) ? "playing"
                                            : "waiting for an opponent";
    if (!side.empty()) state += " (" + side + ")";
    std::string left = "-";
    auto by = g.find("move_by");
    if ((my_move || waiting) && by != g.end() && by->is_number_integer() &&
        by->get<std::int64_t>() > 0) {
        const std::int64_t ms = by->get<std::int64_t>() - now_ms;
        left = ms <= 0 ? "out of time" : play::format_days_clock(ms);
    }
    std::vector<std::string> row = {code, opponent, tc, state, left};
    if (with_turns) {
        auto turns = g.find("turns");
        row.insert(row.begin() + 3, turns != g.end() && turns->is_number_integer()
                                        ? std::to_string(turns->get<std::int64_t>())
                                        : "?");
    }
    return row;
}

int run_playing(const PlayingArgs& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err);
    if (!api) return playing_fail(err);
    try {
        const Json j = api->call("GET", "/api/playing");
        const Json list = j.value("games", Json::array());
        if (!list.is_array()) throw std::runtime_error("the server's list is not a list");
        const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count();
        std::vector<std::pair<const Json*, bool>> games;  // your move first, soonest first
        for (const Json& g : list) {
            if (!g.is_object()) continue;
            auto mine = g.find("your_move");
            games.emplace_back(&g, mine != g.end() && mine->is_boolean() && mine->get<bool>());
        }
        auto by = [](const Json& g) {  // 0: not known (a game not by correspondence)
            auto it = g.find("move_by");
            const std::int64_t ms =
                it != g.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
            return ms > 0 ? ms : std::numeric_limits<std::int64_t>::max();
        };
        // As the server orders them (it may not): your move first, the soonest due first.
        std::stable_sort(games.begin(), games.end(), [&](const auto& x, const auto& y) {
            if (x.second != y.second) return x.second;
            return x.second && by(*x.first) < by(*y.first);
        });
        bool with_turns = false;
        for (const auto& g : games) with_turns = with_turns || g.first->contains("turns");
        std::int64_t your_move = 0;
        for (const auto& g : games) your_move += g.second;
        if (j.value("your_move", Json()).is_number_integer())
            your_move = j["your_move"].get<std::int64_t>();
        if (games.empty()) {
            std::cout << "No games going on.\n";
            return 0;
        }
        std::cout << "Your move in " << your_move << " of " << games.size()
                  << (games.size() == 1 ? " game" : " games") << ":\n";
        std::vector<std::vector<std::string>> rows = {
            {"CODE", "OPPONENT", "TIME CONTROL", "STATE", "TIME LEFT"}};
        if (with_turns) rows[0].insert(rows[0].begin() + 3, "TURNS");
        for (const auto& g : games) rows.push_back(playing_row(*g.first, now_ms, with_turns));
        std::vector<std::size_t> width(rows[0].size(), 0);
        for (const auto& r : rows)
            for (std::size_t k = 0; k < r.size(); ++k) width[k] = std::max(width[k], r[k].size());
        for (const auto& r : rows) {
            std::string line;
            for (std::size_t k = 0; k < r.size(); ++k)
                line += "  " + (k + 1 == r.size() ? r[k] : pad(r[k], width[k]));
            std::cout << line << "\n";
        }
        if (your_move > 0) std::cout << "Play them with  trunkfield play, then  watch CODE.\n";
    } catch (const std::exception& e) {
        return playing_fail(e.what());
    }
    return 0;
}

// ---- vacation ----------------------------------------------------------------------------------

struct VacationArgs {
    std::string server = "127.0.0.1:8080", token, change;  // change: "", "on" or "off"
};

int vacation_fail(const std::string& msg) {
    std::cerr << "trunkfield vacation: " << msg << "\n";
    return 1;
}

// 12.5 days as "12.5" (one decimal, as the web client shows them).
std::string days_text(const Json& j, const char* key) {
    auto it = j.find(key);
    const double d = it != j.end() && it->is_number() ? it->get<double>() : 0.0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", std::max(0.0, d));
    return buf;
}

int run_vacation(const VacationArgs& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err);
    if (!api) return vacation_fail(err);
    try {
        // A refusal is the server's words: no days left this year (vacation_spent), or a server
        // without a durable store (store_unavailable).
        const Json j = a.change.empty()
                           ? api->call("GET", "/api/vacation")
                           : api->call("POST", "/api/vacation", Json{{"on", a.change == "on"}});
        auto on_it = j.find("on");
        if (on_it == j.end() || !on_it->is_boolean())
            throw std::runtime_error("/api/vacation: not the server's vacation state");
        const bool on = on_it->get<bool>();
        if (!a.change.empty())
            std::cout << (on ? "Vacation started: your clock stands in your correspondence "
                               "games while it is your move.\n"
                             : "Vacation ended: your clocks run again on your move.\n");
        if (on) {
            std::cout << "You are on vacation";
            if (j.value("since", Json()).is_number_integer())
                std::cout << " since " << local_time(j["since"]);
            std::cout << ".\n";
        } else {
            std::cout << "You are not on vacation.\n";
        }
        std::cout << days_text(j, "left_days") << " of " << days_text(j, "budget_days")
                  << " vacation days left this year (" << days_text(j, "used_days") << " used).\n";
        if (on && j.value("ends_at", Json()).is_number_integer())
            std::cout << "It ends by itself on " << local_time(j["ends_at"])
                      << ", when the days run out (trunkfield vacation off ends it sooner).\n";
        else if (!on && a.change.empty())
            std::cout << "While on vacation your clock stands in every correspondence game where "
                         "it is your move (you may still play): trunkfield vacation on.\n";
    } catch (const std::exception& e) {
        return vacation_fail(e.what());
    }
    return 0;
}

}  // namespace

void add_vacation_command(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand(
        "vacation",
        "your vacation for correspondence games: show it, or `vacation on` / `vacation off`");
    auto a = std::make_shared<VacationArgs>();
    cmd->add_option("change", a->change, "on: start your vacation; off: end it (none: show it)")
        ->check(CLI::IsMember({"on", "off"}));
    add_http_server_option(cmd, a->server, "the server's HTTP port (as for `trunkfield puzzle`)");
    add_token_option(cmd, a->token,
                     "your account's token (default: TRUNKFIELD_TOKEN, or the one `trunkfield "
                     "play` saved for that host)");
    cmd->footer(
        "While you are on vacation your clock stands in every correspondence game where it is\n"
        "your move (you may still play); your opponents' clocks run as usual. The days are\n"
        "counted per calendar year, and a vacation ends by itself when they run out.\n"
        "exit codes: 0 shown or changed, 1 the server refused (no days left) or cannot be "
        "reached, 2 usage");
    cmd->callback([&run, a] { run = [a] { return run_vacation(*a); }; });
}

void add_playing_command(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand(
        "playing", "your games going on: whose move, and the time left (correspondence games)");
    auto a = std::make_shared<PlayingArgs>();
    add_http_server_option(cmd, a->server, "the server's HTTP port (as for `trunkfield puzzle`)");
    add_token_option(cmd, a->token,
                     "your account's token (default: TRUNKFIELD_TOKEN, or the one `trunkfield "
                     "play` saved for that host)");
    cmd->footer(
        "The games where it is your move come first, the soonest to run out of time first.\n"
        "exit codes: 0 listed, 1 the server refused or cannot be reached, 2 usage");
    cmd->callback([&run, a] { run = [a] { return run_playing(*a); }; });
}

void add_notifications_command(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand(
        "notifications",
        "your notifications: challenges and their answers, your turn (newest first)");
    auto a = std::make_shared<Args>();
    add_http_server_option(cmd, a->server, "the server's HTTP port (as for `trunkfield puzzle`)");
    add_token_option(cmd, a->token,
                     "your account's token (default: TRUNKFIELD_TOKEN, or the one `trunkfield "
                     "play` saved for that host)");
    cmd->add_flag("--all", a->all, "the read ones too (unread ones are marked *)");
    cmd->add_flag("--read", a->read, "then mark them all read");
    cmd->footer("exit codes: 0 listed, 1 the server refused or cannot be reached, 2 usage");
    cmd->callback([&run, a] { run = [a] { return run_notifications(*a); }; });
}

}  // namespace tf::cli
