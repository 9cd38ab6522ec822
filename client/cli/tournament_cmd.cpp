// `trunkfield tournaments`, `tournament ID`, `join-tournament ID` and `withdraw-tournament ID`
// (proto/PROTOCOL.md "Tournaments", docs/TOURNAMENTS.md) on the server's HTTP API, as
// `trunkfield following`: the list and one tournament's standings are public reads (a token, when
// there is one, adds the viewer's private tournaments to the list); entering and withdrawing
// are the account's, with its token. The games come as `tournament_game` notifications, which
// `trunkfield play` shows with the command that opens them.
#include "tournament_cmd.h"

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "http_api.h"
#include "play_cmd.h"
#include "play_input.h"
#include "play_notices.h"
#include "proto/messages.h"

namespace tf::cli {

namespace {

using Json = nlohmann::json;

struct Args {
    std::string server = "127.0.0.1:8080", token, id, password;
};

int fail(std::string_view command, const std::string& msg) {
    std::cerr << "trunkfield " << command << ": " << msg << "\n";
    return 1;
}

std::int64_t integer(const Json& j, const char* key) {
    const Json v = j.value(key, Json());
    return v.is_number_integer() ? v.get<std::int64_t>() : 0;
}

// "3+2", as the lobby says a clock.
std::string clock_of(const Json& t) {
    return play::time_control_text(t.value("time_control", Json()));
}

std::string kind_of(const Json& t) {
    const std::string kind = text_of(t, "kind");
    if (kind == "arena") return "arena " + std::to_string(integer(t, "minutes")) + " min";
    if (kind == "swiss") {
        const auto rounds = integer(t, "rounds");
        return "Swiss " + std::to_string(rounds) + (rounds == 1 ? " round" : " rounds");
    }
    return kind;
}

// When: "starts 2026-12-07 14:00", "round 3 of 7", "ends 14:30", "finished", "cancelled".
std::string when_of(const Json& t) {
    const std::string phase = text_of(t, "phase");
    if (phase == "created") return "starts " + local_time(t.value("starts_at", Json()));
    if (phase == "running") {
        if (text_of(t, "kind") == "swiss")
            return "round " + std::to_string(integer(t, "round")) + " of " +
                   std::to_string(integer(t, "rounds"));
        return "ends " + local_time(t.value("ends_at", Json())).substr(11);
    }
    return phase;
}

std::string flags_of(const Json& t) {
    std::string f = t.value("rated", false) ? "rated" : "casual";
    if (!t.value("public", true)) f += ", private";
    if (t.value("password", false)) f += ", password";
    if (t.value("berserk", false)) f += ", berserk";
    return f;
}

// 2.5 as "2.5", 3.0 as "3".
std::string number_text(const Json& v) {
    if (!v.is_number()) return "?";
    std::ostringstream s;
    s << v.get<double>();  // the shortest form: "2.5", "3"
    return s.str();
}

int run_list(const Args& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err, false);
    if (!api) return fail("tournaments", err);
    try {
        const auto list = list_of(api->call("GET", "/api/tournaments"), "tournaments");
        if (!list) throw std::runtime_error("the server's answer has no list of tournaments");
        if (list->empty()) {
            std::cout << "No tournament is being played or about to start.\n";
            return 0;
        }
        std::vector<std::vector<std::string>> rows{
            {"ID", "NAME", "KIND", "CLOCK", "PLAYERS", "", "WHEN"}};
        for (const Json& t : *list)
            rows.push_back({text_of(t, "id", "?", 16), text_of(t, "name", "?", 40), kind_of(t),
                            clock_of(t), std::to_string(integer(t, "players")), flags_of(t),
                            when_of(t)});
        print_table(rows);
        std::cout << "Standings: trunkfield tournament ID; enter: trunkfield join-tournament ID.\n";
    } catch (const std::exception& e) {
        return fail("tournaments", e.what());
    }
    return 0;
}

void print_standings(const HttpApi& api, const Json& t) {
    const bool arena = text_of(t, "kind") == "arena";
    std::cout << text_of(t, "name", "?", 40) << " (" << kind_of(t) << ", " << clock_of(t) << ", "
              << flags_of(t) << "): " << when_of(t) << ", " << integer(t, "players")
              << " players\n";
    std::cout << "In a browser: " << api.link("/t/" + text_of(t, "id", "", 16)) << "\n";
    const auto standings = list_of(t, "standings");
    if (!standings || standings->empty()) {
        std::cout << "Nobody has entered yet.\n";
        return;
    }
    std::vector<std::vector<std::string>> rows;
    if (arena)
        rows.push_back({"#", "NAME", "RATING", "POINTS", "SHEET", "W-D-L", "PLAYING"});
    else
        rows.push_back({"#", "NAME", "RATING", "SCORE", "BUCHHOLZ", "S-B", "W-D-L", "PLAYING"});
    for (const Json& s : *standings) {
        std::string name = text_of(s, "name", "?", 20);
        if (s.value("bot", false)) name += " (bot)";
        if (!s.value("active", true)) name += " (withdrew)";
        const std::string wdl = std::to_string(integer(s, "wins")) + "-" +
                                std::to_string(integer(s, "draws")) + "-" +
                                std::to_string(integer(s, "losses"));
        const std::string code = text_of(s, "playing", "", 16);
        const std::string playing = proto::is_game_code(code) ? code : "";
        if (arena) {
            // Each game's points, a streak's doubled ones marked "*" (lichess's fire).
            std::string sheet;
            for (const Json& g : s.value("sheet", Json::array()))
                if (g.is_object())
                    sheet +=
                        std::to_string(integer(g, "points")) + (g.value("fire", false) ? "*" : "");
            rows.push_back(
                {std::to_string(integer(s, "rank")), name, std::to_string(integer(s, "rating")),
                 std::to_string(integer(s, "points")), sheet.empty() ? "-" : sheet, wdl, playing});
        } else {
            rows.push_back(
                {std::to_string(integer(s, "rank")), name, std::to_string(integer(s, "rating")),
                 number_text(s.value("score", Json())), number_text(s.value("buchholz", Json())),
                 number_text(s.value("sonneborn_berger", Json())), wdl, playing});
        }
    }
    print_table(rows);
    if (arena) std::cout << "Points: 2 a win, 1 a draw; * a streak's doubled points.\n";
    if (text_of(t, "phase") == "finished")
        std::cout << "Report: "
                  << api.link("/api/tournament/" + text_of(t, "id", "", 16) + "/report") << "\n";
}

int run_show(const Args& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err, false);
    if (!api) return fail("tournament", err);
    try {
        print_standings(*api, api->call("GET", "/api/tournament/" + a.id));
    } catch (const std::exception& e) {
        return fail("tournament", e.what());
    }
    return 0;
}

int run_join(const Args& a, bool join) {
    const char* command = join ? "join-tournament" : "withdraw-tournament";
    std::string err;
    const auto api = http_api(a.server, a.token, err);
    if (!api) return fail(command, err);
    try {
        Json body = Json::object();
        if (join && !a.password.empty()) body["password"] = a.password;
        const Json r =
            api->call("POST", "/api/tournament/" + a.id + (join ? "/join" : "/withdraw"), body);
        if (!join) {
            std::cout << "Withdrew from " << a.id
                      << ": no more pairings (a game being played goes on; "
                         "join-tournament brings you back with your points).\n";
            return 0;
        }
        const std::string how = text_of(r, "joined", "joined");
        std::cout << (how == "already" ? "Already in "
                      : how == "back"  ? "Back in "
                                       : "Entered ")
                  << a.id
                  << ": your games come as notifications (trunkfield play shows them and "
                     "how to open each; trunkfield bot --challenges plays them for a bot "
                     "account).\nStandings: trunkfield tournament "
                  << a.id << ", or " << api->link("/t/" + a.id) << "\n";
    } catch (const std::exception& e) {
        return fail(command, e.what());
    }
    return 0;
}

// --server and --token, as `trunkfield following` takes them.
void add_api_options(CLI::App* cmd, Args& a, bool reading) {
    add_http_server_option(cmd, a.server, "the server's HTTP port (as for `trunkfield puzzle`)");
    add_token_option(cmd, a.token,
                     reading ? "your account's token, to see your private tournaments too "
                               "(default: TRUNKFIELD_TOKEN, or the one `trunkfield play` saved)"
                             : "your account's token (default: TRUNKFIELD_TOKEN, or the one "
                               "`trunkfield play` saved for that host)");
}

void add_id(CLI::App* cmd, Args& a) {
    // Ids are formed as game codes, and read in any case as they are.
    cmd->add_option("ID", a.id, "the tournament's id (its page is /t/ID)")
        ->required()
        ->transform(game_code_check());
}

}  // namespace

void add_tournament_commands(CLI::App& app, Run& run) {
    {
        CLI::App* cmd = app.add_subcommand(
            "tournaments", "the tournaments being played, about to start or just finished");
        auto a = std::make_shared<Args>();
        add_api_options(cmd, *a, true);
        cmd->footer("exit codes: 0 listed, 1 the server refused or cannot be reached, 2 usage");
        cmd->callback([&run, a] { run = [a] { return run_list(*a); }; });
    }
    {
        CLI::App* cmd = app.add_subcommand("tournament", "one tournament: its standings");
        auto a = std::make_shared<Args>();
        add_id(cmd, *a);
        add_api_options(cmd, *a, true);
        cmd->footer("exit codes: 0 shown, 1 no such tournament or no server, 2 usage");
        cmd->callback([&run, a] { run = [a] { return run_show(*a); }; });
    }
    {
        CLI::App* cmd = app.add_subcommand("join-tournament", "enter a tournament (or come back)");
        auto a = std::make_shared<Args>();
        add_id(cmd, *a);
        cmd->add_option("--password", a->password, "the tournament's password, when it has one");
        add_api_options(cmd, *a, false);
        cmd->footer(
            "exit codes: 0 entered, 1 refused (the error says why: wrong password, full, over) or "
            "no server, 2 usage");
        cmd->callback([&run, a] { run = [a] { return run_join(*a, true); }; });
    }
    {
        CLI::App* cmd =
            app.add_subcommand("withdraw-tournament", "leave a tournament: no more pairings");
        auto a = std::make_shared<Args>();
        add_id(cmd, *a);
        add_api_options(cmd, *a, false);
        cmd->footer("exit codes: 0 withdrawn, 1 refused (not entered) or no server, 2 usage");
        cmd->callback([&run, a] { run = [a] { return run_join(*a, false); }; });
    }
}

}  // namespace tf::cli
