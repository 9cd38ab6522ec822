// `trunkfield puzzle FILE`: solving puzzles in the terminal (common/puzzles.h), from a file of
// them (what `trunkfield puzzles generate` writes, one JSON per line). Each puzzle shows its
// board and asks for the solver's turns in the notation; an answer is judged as the server's
// puzzle page judges it (the same position as the solution's, or a turn the engine finds as
// good), the opponent's reply is played, and a wrong answer is shown with the engine's
// refutation and the solution. Words: `hint` (which elephant moves), `skip` (show the solution),
// `quit`.
#include "puzzle_cmd.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/analysis.h"
#include "common/bot.h"
#include "common/notation.h"
#include "common/position.h"
#include "common/puzzles.h"
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

int run_puzzles(const Args& args) {
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
    play::Style style;
    const char* no_color = std::getenv("NO_COLOR");
    style.color = !args.ascii && isatty(STDOUT_FILENO) && !(no_color && *no_color);
    style.unicode = !args.ascii && isatty(STDOUT_FILENO);
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
    CLI::App* cmd = app.add_subcommand("puzzle", "solve puzzles from a file in the terminal");
    auto args = std::make_shared<Args>();
    cmd->add_option("FILE", args->file, "puzzles, one JSON per line (trunkfield puzzles generate)")
        ->required();
    cmd->add_option("--theme", args->theme, "only puzzles with this theme (docs/RULES.md §10)")
        ->check(CLI::IsMember(puzzle_themes()));
    cmd->add_option("--from", args->first, "start at this puzzle of the file (1 is the first)")
        ->transform(whole_number(1, 1'000'000));
    cmd->add_flag("--ascii", args->ascii, "plain ASCII, no colours");
    cmd->footer("exit codes: 0 done, 1 the file cannot be read, 2 a usage error");
    cmd->callback([&run, args] { run = [args] { return run_puzzles(*args); }; });
}

}  // namespace tf::cli
