// `trunkfield puzzle FILE`: solving puzzles in the terminal (common/puzzles.h), from a file of
// them (what `trunkfield puzzles generate` writes, one JSON per line). Each puzzle shows its
// board and asks for the solver's turns in the notation; an answer is judged as the server's
// puzzle page judges it (the same position as the solution's, or a turn the engine finds as
// good), the opponent's reply is played, and a wrong answer is shown with the engine's
// refutation and the solution. Words: `hint` (which elephant moves), `skip` (show the solution),
// `quit`.
//
// `trunkfield puzzle --server HOST:PORT` solves the server's puzzles instead (proto/PROTOCOL.md
// "Puzzle API", on its HTTP port): the next one for the player the token names (or the puzzle
// of the day), each answer judged by the server, which never sends the solution before the
// attempt is over; the first attempt at a puzzle moves an account's puzzle rating.
#include "puzzle_cmd.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/lib/http_client.h"
#include "common/analysis.h"
#include "common/bot.h"
#include "common/json.h"
#include "common/notation.h"
#include "common/position.h"
#include "common/puzzles.h"
#include "play_cmd.h"
#include "play_input.h"
#include "play_view.h"
#include "puzzles_cmd.h"
#include "rules_cmd.h"

namespace tf::cli {

namespace {

struct Args {
    std::string file;
    std::string theme;
    int first = 1;
    bool ascii = false;
    std::string server;  // HOST:PORT of the HTTP API: the server's puzzles
    std::string token;
    bool daily = false;
    int count = 0;  // --server: stop after this many (0: until quit or none left)
};

int fail(const std::string& msg) {
    std::cerr << "trunkfield puzzle: " << msg << "\n";
    return 1;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.pop_back();
    size_t i = s.find_first_not_of(" \t");
    return i == std::string::npos ? "" : s.substr(i);
}

std::string line_text(const Game& from, const std::vector<Turn>& line, size_t begin) {
    Game g = from;
    std::string out;
    for (size_t k = 0; k < begin && k < line.size(); ++k) g.apply_turn(line[k]);
    for (size_t k = begin; k < line.size(); ++k) {
        if (!out.empty()) out += ", ";
        out += std::to_string(g.turns_played() + 1) + ". " +
               turn_to_notation(line[k], g.variant().size);
        g.apply_turn(line[k]);
    }
    return out;
}

// One puzzle, asked on `in`: true when solved. `quit` is set when the solver asks to stop.
bool solve(const Puzzle& p, int number, const play::Style& style, std::istream& in, bool& quit) {
    const Game start = *game_from_position(p.position);
    const Side me = start.to_move();
    const int n = start.variant().size;
    std::cout << "\nPuzzle " << number << " (" << p.id << ")";
    if (!p.themes.empty()) {
        std::cout << ", themes:";
        for (const auto& t : p.themes) std::cout << ' ' << t;
    }
    std::cout << "\n"
              << side_name(me) << " to move: find the best turn"
              << (p.line.size() > 1 ? "s (" + std::to_string((p.line.size() + 1) / 2) + ")" : "")
              << ".\n";
    Game g = start;
    for (size_t k = 0; k < p.line.size(); k += 2) {
        play::GameView v;
        v.game = g;
        v.me = me;
        v.status = "playing";
        std::cout << play::render_board(v, style);
        for (;;) {
            std::cout << "turn " << g.turns_played() + 1 << "> " << std::flush;
            std::string text;
            if (!std::getline(in, text)) {
                quit = true;
                std::cout << "\n";
                return false;
            }
            text = trim(text);
            if (text.empty()) continue;
            if (text == "quit") {
                quit = true;
                return false;
            }
            if (text == "skip") {
                std::cout << "The solution: " << line_text(start, p.line, 0) << "\n";
                return false;
            }
            if (text == "hint") {
                const auto& e = p.line[k].elephant;
                std::cout << (e ? "Move the elephant on " + cell_name(e->from, n) + "."
                                : std::string("No elephant can move: the rest of the turn counts."))
                          << "\n";
                continue;
            }
            auto turn = turn_from_notation(text, n);
            if (!turn) {
                std::cout << "Not a turn: " << turn.error().message << "\n";
                continue;
            }
            auto a = judge_answer(p, int(k), *turn);
            if (!a) {
                std::cout << "Not allowed: " << a.error().message << "\n";
                continue;
            }
            if (*a == Answer::Wrong) {
                Game after = g;
                after.apply_turn(*turn);
                std::cout << "Wrong.";
                if (!after.over()) {
                    BotOptions o;
                    o.level = kMaxBotLevel;
                    o.nodes = kAnalysisNodes;
                    if (auto r = bot_turn(after, o))
                        std::cout << " " << side_name(~me) << " answers " << turn_to_notation(*r, n)
                                  << ".";
                }
                std::cout << " The solution: " << line_text(start, p.line, k) << "\n";
                return false;
            }
            if (*a == Answer::Also) {
                std::cout << "Also good: the engine finds it as strong as "
                          << turn_to_notation(p.line[k], n) << ". Solved.\n";
                return true;
            }
            g.apply_turn(p.line[k]);
            if (k + 1 < p.line.size()) {
                std::cout << "Right. " << side_name(~me) << " answers "
                          << turn_to_notation(p.line[k + 1], n) << ".\n";
                g.apply_turn(p.line[k + 1]);
            }
            break;
        }
    }
    std::cout << "Solved.\n";
    return true;
}

// ---- the server's puzzles ---------------------------------------------------------------------

struct Server {
    std::string host;
    unsigned short port = 0;
    std::string token;
    // The answer's JSON; throws with the server's message for an error status.
    nlohmann::json call(const std::string& method, const std::string& target,
                        const std::string& body = "") const {
        auto r = client::http_request(host, port, method, target, body, token);
        auto j = nlohmann::json::parse(r.body, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            throw std::runtime_error("HTTP " + std::to_string(r.status) + ": not JSON");
        if (r.status != 200) {
            auto e = std::runtime_error(j.value("message", "HTTP " + std::to_string(r.status)));
            if (j.value("error", "") == "no_puzzle") throw NoPuzzle{e.what()};
            throw e;
        }
        return j;
    }
    struct NoPuzzle {
        std::string why;
    };
};

std::string rating_change(const nlohmann::json& r) {
    const long before = std::lround(r["before"]["rating"].get<double>());
    const long after = std::lround(r["after"]["rating"].get<double>());
    return std::to_string(after) + " (" + (after >= before ? "+" : "") +
           std::to_string(after - before) + ")";
}

// One server puzzle: its turns asked and sent, the verdicts said. False when the solver quits.
bool solve_online(const Server& sv, const nlohmann::json& pz, const play::Style& style,
                  int& solved_count) {
    const std::string id = pz.at("id");
    auto start = game_from_position(pz.at("position").get<std::string>());
    if (!start) throw std::runtime_error("puzzle " + id + ": " + start.error().message);
    const Side me = start->to_move();
    const int n = start->variant().size;
    const int turns = pz.at("solver_turns");
    std::cout << "\nPuzzle " << id << ", rated " << pz.at("rating").get<int>();
    if (!pz.at("themes").empty()) {
        std::cout << ", themes:";
        for (const auto& t : pz["themes"]) std::cout << ' ' << t.get<std::string>();
    }
    if (pz.contains("day")) std::cout << ", the puzzle of " << pz["day"].get<std::string>();
    std::cout << "\n"
              << side_name(me) << " to move: find the best turn"
              << (turns > 1 ? "s (" + std::to_string(turns) + ")" : "") << ".\n";
    Game g = *start;
    nlohmann::json sent = nlohmann::json::array();
    for (;;) {
        play::GameView v;
        v.game = g;
        v.me = me;
        v.status = "playing";
        std::cout << play::render_board(v, style);
        std::cout << "turn " << g.turns_played() + 1 << "> " << std::flush;
        std::string text;
        if (!std::getline(std::cin, text)) {
            std::cout << "\n";
            return false;
        }
        text = trim(text);
        if (text.empty()) continue;
        if (text == "quit") return false;
        if (text == "skip") {
            std::cout << "Skipped (nothing is kept).\n";
            return true;
        }
        auto turn = turn_from_notation(text, n);
        if (!turn) {
            std::cout << "Not a turn: " << turn.error().message << "\n";
            continue;
        }
        Game after = g;
        if (auto e = after.apply_turn(*turn)) {
            std::cout << "Not allowed: " << e->message << "\n";
            continue;
        }
        sent.push_back(to_json(*turn));
        nlohmann::json a;
        try {
            a = sv.call("POST", "/api/puzzles/" + id + "/answer",
                        nlohmann::json{{"turns", sent}}.dump());
        } catch (const std::runtime_error& e) {
            sent.erase(sent.end() - 1);
            std::cout << "The server refused it: " << e.what() << "\n";
            continue;
        }
        const std::string verdict = a.at("verdict");
        if (!a.at("done").get<bool>()) {
            g = after;
            Turn reply = *turn_from_json(a.at("reply"));
            std::cout << "Right. " << side_name(~me) << " answers " << turn_to_notation(reply, n)
                      << ".\n";
            g.apply_turn(reply);
            continue;
        }
        std::vector<Turn> line;
        for (const auto& t : a.at("line")) line.push_back(*turn_from_json(t));
        if (a.at("solved").get<bool>()) {
            ++solved_count;
            std::cout << (verdict == "also" ? "Also good: the engine finds it as strong. Solved."
                                            : "Solved.");
        } else {
            std::cout << "Wrong.";
            if (a.contains("refutation") && !a["refutation"].is_null())
                if (auto r = turn_from_json(a["refutation"]))
                    std::cout << " " << side_name(~me) << " answers " << turn_to_notation(*r, n)
                              << ".";
            std::cout << " The solution: " << line_text(*start, line, 0) << ".";
        }
        if (a.value("rated", false))
            std::cout << " Your puzzle rating: " << rating_change(a.at("rating"));
        else if (sv.token.empty())
            std::cout << " (no token: nothing is kept)";
        std::cout << "\n";
        return true;
    }
}

int run_online(const Args& args, const play::Style& style) {
    Server sv;
    if (!play::parse_http_server(args.server, sv.host, sv.port))
        return fail("--server: HOST:PORT (the HTTP port)");
    sv.token = !args.token.empty() ? args.token : saved_token_for_host(sv.host);
    std::cout << "Puzzles of " << sv.host << ":" << sv.port
              << (sv.token.empty() ? " (no token: judged, nothing kept)" : "")
              << ". Type turns in the notation (c1-c2:N *e5 Sc+2), or skip, quit.\n";
    int tried = 0, solved = 0;
    try {
        for (;;) {
            if (args.count && tried >= args.count) break;
            nlohmann::json pz;
            try {
                pz = args.daily           ? sv.call("GET", "/api/puzzles/daily")
                     : args.theme.empty() ? sv.call("GET", "/api/puzzles/next")
                                          : sv.call("GET", "/api/puzzles/next?theme=" + args.theme);
            } catch (const Server::NoPuzzle& e) {
                std::cout << e.why << ".\n";
                break;
            }
            if (!solve_online(sv, pz, style, solved)) break;
            ++tried;
            if (args.daily) break;
        }
        if (!sv.token.empty()) {
            auto mine = sv.call("GET", "/api/puzzles/mine?limit=1");
            if (!mine.at("rating").is_null())
                std::cout << "Your puzzle rating: " << mine["rating"].at("rating").get<int>()
                          << (mine["rating"].value("provisional", true) ? "?" : "") << ".\n";
        }
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    std::cout << "Solved " << solved << " of " << tried << ".\n";
    return 0;
}

int run_puzzles(const Args& args) {
    play::Style style;
    const char* no_color = std::getenv("NO_COLOR");
    style.color = !args.ascii && isatty(STDOUT_FILENO) && !(no_color && *no_color);
    style.unicode = !args.ascii && isatty(STDOUT_FILENO);
    if (!args.server.empty()) return run_online(args, style);
    if (args.file.empty()) return fail("a FILE of puzzles, or --server HOST:PORT");
    std::string text, err;
    if (!read_input(args.file, text, err)) return fail(err);
    std::vector<Puzzle> all;
    for (PuzzleLine& l : read_puzzle_lines(text)) {
        if (!l.puzzle) return fail(args.file + ":" + std::to_string(l.line) + ": " + l.error);
        const auto& th = l.puzzle->themes;
        if (args.theme.empty() || std::find(th.begin(), th.end(), args.theme) != th.end())
            all.push_back(std::move(*l.puzzle));
    }
    if (all.empty())
        return fail("no puzzle" + (args.theme.empty() ? "" : " with theme " + args.theme));
    std::cout << all.size() << (all.size() == 1 ? " puzzle" : " puzzles")
              << ". Type turns in the notation (c1-c2:N *e5 Sc+2), or hint, skip, quit.\n";
    int tried = 0, solved = 0;
    bool quit = false;
    for (size_t i = size_t(args.first - 1); i < all.size() && !quit; ++i) {
        const bool ok = solve(all[i], int(i + 1), style, std::cin, quit);
        if (quit && !ok) break;
        ++tried;
        solved += ok;
    }
    std::cout << "Solved " << solved << " of " << tried << ".\n";
    return 0;
}

}  // namespace

void add_puzzle_command(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand(
        "puzzle", "solve puzzles in the terminal, from a file or from a server (--server)");
    auto args = std::make_shared<Args>();
    cmd->add_option("FILE", args->file, "puzzles, one JSON per line (trunkfield puzzles generate)");
    cmd->add_option("--server", args->server,
                    "the server's HTTP port (HOST:PORT): its puzzles, judged and rated there");
    add_token_option(cmd, args->token,
                     "--server: the player's token (default: TRUNKFIELD_TOKEN, or the one "
                     "`trunkfield play` saved for that host)");
    cmd->add_flag("--daily", args->daily, "--server: the puzzle of the day");
    cmd->add_option("--count", args->count, "--server: stop after this many puzzles")
        ->transform(whole_number(1, 1'000'000));
    cmd->add_option("--theme", args->theme, "only puzzles with this theme (docs/RULES.md §10)")
        ->check(CLI::IsMember(puzzle_themes()));
    cmd->add_option("--from", args->first, "start at this puzzle of the file (1 is the first)")
        ->transform(whole_number(1, 1'000'000));
    cmd->add_flag("--ascii", args->ascii, "plain ASCII, no colours");
    cmd->footer("exit codes: 0 done, 1 the file or the server cannot be read, 2 a usage error");
    cmd->callback([&run, args] { run = [args] { return run_puzzles(*args); }; });
}

}  // namespace tf::cli
