// `trunkfield engine-check COMMAND`: plays an engine of docs/ENGINE.md against the rules. The
// engine plays both sides of K seeded games; every answer is read as the protocol says and
// judged with the rules library, and whatever breaks either is reported with where it happened
// (an illegal or malformed answer is replaced by the built-in bot's so that the game goes on).
// It also sends one illegal turn per check, which the engine must refuse without losing step
// (unless it asked for hints: such an engine may know no rules).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "client/lib/engine_process.h"
#include "common/bot.h"
#include "common/notation.h"
#include "engine_cmd.h"
#include "common/engine_text.h"
#include "play_input.h"

namespace tf::cli {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kCommandLimit{10000};  // every answer but go's (docs/ENGINE.md "Errors")
constexpr int kMaxTurns = 600;                // a game longer than this is cut (quiet rule: less)

struct CheckArgs {
    std::string command;
    int games = 2;
    int size = 9;
    std::uint64_t seed = 1;
    std::int64_t movetime = 0;  // 0: go without limits (an untimed game)
    bool verbose = false;
};

class Checker {
  public:
    Checker(engine::EngineProcess& e, const CheckArgs& a) : e_(e), a_(a), rng_(a.seed) {}

    int run() {
        if (handshake())
            for (int i = 1; i <= a_.games && !dead_; ++i) game(i);
        std::sort(ms_.begin(), ms_.end());
        std::cout << a_.games << (a_.games == 1 ? " game, " : " games, ") << ms_.size()
                  << " answers to go, " << faults_ << (faults_ == 1 ? " fault" : " faults");
        if (!ms_.empty())
            std::cout << "; answer time median " << ms_[ms_.size() / 2] << " ms, max " << ms_.back()
                      << " ms";
        std::cout << "\n";
        return faults_ || dead_ ? 1 : 0;
    }

  private:
    void fault(const std::string& where, const std::string& what) {
        ++faults_;
        std::cout << "FAULT " << where << ": " << what << "\n";
    }
    void say(const std::string& line) {
        if (a_.verbose) std::cout << "  " << line << "\n";
    }
    bool send(const std::string& line) {
        say("> " + line);
        if (e_.send(line)) return true;
        dead_ = true;
        fault("engine", "stopped reading its input (exited?)");
        return false;
    }
    // The answer to the last command, `info` lines skipped (and checked); nullopt after a fault.
    std::optional<std::string> answer(const std::string& where, milliseconds limit) {
        const auto deadline = Clock::now() + limit;
        for (;;) {
            auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
            auto line = e_.read_line(std::max(left, milliseconds(0)));
            if (!line) {  // exited, or out of step for good
                dead_ = true;
                fault(where, e_.closed()
                                 ? "the engine closed its output (exited?)"
                                 : "no answer within " + std::to_string(limit.count()) + " ms");
                return std::nullopt;
            }
            say("< " + *line);
            if (line->rfind("info", 0) == 0 && (line->size() == 4 || (*line)[4] == ' ')) {
                check_info(where, *line);
                continue;
            }
            return line;
        }
    }
    void check_info(const std::string& where, const std::string& line) {
        auto w = play::split_words(line);
        for (std::size_t i = 1; i < w.size(); i += 2) {
            if (w[i] == "string") return;
            if ((w[i] != "depth" && w[i] != "score" && w[i] != "nodes") || i + 1 >= w.size())
                return fault(where, "malformed info line: " + line);
        }
    }
    bool expect(const std::string& command, const std::string& want, const std::string& where) {
        if (!send(command)) return false;
        auto got = answer(where, kCommandLimit);
        if (!got) return false;
        if (*got != want) {
            fault(where, "'" + command + "' answered '" + *got + "', not '" + want + "'");
            return false;
        }
        return true;
    }

    bool handshake() {
        if (!send("tep")) return false;
        bool named = false;
        for (;;) {
            auto line = answer("tep", kCommandLimit);
            if (!line) return false;
            if (*line == "tepok") break;
            auto w = play::split_words(*line);
            const bool id = w.size() >= 3 && w[0] == "id" && (w[1] == "name" || w[1] == "author");
            const bool option =
                w.size() >= 5 && w[0] == "option" && w[1] == "name" && w[3] == "type";
            if (!id && !option)
                fault("tep", "an answer line that is not id, option or tepok: " + *line);
            if (id && w[1] == "name") {
                named = true;
                std::cout << "engine: " << engine::rest_of(*line, "name") << "\n";
            }
            if (option && w[2] == "hints") hints_ = true;
        }
        if (!named) fault("tep", "no 'id name' line");
        if (hints_ && !expect("setoption name hints value true", "ok", "setoption hints"))
            return false;
        return expect("isready", "readyok", "isready");
    }

    Variant variant() const {
        Variant v;
        if (a_.size == 7) v = Variant{7, 3, 2, 30};
        return v;
    }

    void send_hints(const Game& g) {
        const auto hints = engine::hints(g, rng_);
        send("legal " + std::to_string(hints.size()));
        for (const auto& h : hints) send("legal " + h);
    }

    void game(int n) {
        const Variant v = variant();
        if (!expect(engine::newgame_text(v), "ok", "game " + std::to_string(n) + ", newgame"))
            return;
        Game g(v);
        bool probed = n != 1 || hints_;  // an engine that takes hints need not judge turns
        for (int turn = 0; !g.over() && turn < kMaxTurns && !dead_;) {
            const bool setup = g.phase() != Phase::Play;
            const std::string side(side_name(g.to_move()));
            const std::string where = "game " + std::to_string(n) + ", " +
                                      (setup ? "setup" : "turn " + std::to_string(turn + 1)) +
                                      " (" + side + ")";
            if (!setup && !probed && turn >= 2) {  // an illegal turn: refused, nothing changed
                probed = true;
                if (!send("turn a1-a1-a1-a1")) return;
                auto got = answer(where + ", an illegal turn sent", kCommandLimit);
                if (!got) return;
                if (got->rfind("error", 0) != 0)
                    fault(where, "an illegal turn was answered '" + *got + "', not 'error ...'");
            }
            if (hints_) send_hints(g);
            const auto t0 = Clock::now();
            if (!send(a_.movetime > 0 ? "go movetime " + std::to_string(a_.movetime) : "go"))
                return;
            const auto limit =
                a_.movetime > 0 ? milliseconds(a_.movetime) + kCommandLimit : kCommandLimit;
            auto got = answer(where, limit);
            if (!got) return;
            ms_.push_back(std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count());
            const std::string want = setup ? "bestsetup" : "bestturn";
            std::string text, err;
            if (got->rfind(want + " ", 0) != 0) {
                fault(where, "'" + *got + "', not '" + want + " ...'");
            } else {
                text = engine::rest_of(*got, want);
                Game copy = g;
                if (!engine::play(copy, setup, text, err)) {
                    fault(where, want + " '" + text + "': " + err);
                    text.clear();
                }
            }
            if (text.empty()) text = stand_in(g);  // the game goes on with the bot's answer
            std::string why;
            if (!engine::play(g, setup, text, why)) return fault(where, "internal: " + why);
            if (!expect((setup ? "setup " : "turn ") + text, "ok", where)) return;
            if (!setup) ++turn;
        }
        std::cout << "game " << n << ": " << (g.over() ? "over" : "cut") << " after "
                  << g.turns_played() << " turns, silver " << g.score(Side::Silver) << " bronze "
                  << g.score(Side::Bronze) << "\n";
    }

    std::string stand_in(const Game& g) {
        const int size = g.variant().size;
        if (g.phase() != Phase::Play)
            return engine::setup_text(*bot_setup(g, BotOptions{1, rng_()}), size);
        return turn_to_notation(*bot_turn(g, BotOptions{1, rng_()}), size);
    }

    engine::EngineProcess& e_;
    CheckArgs a_;
    std::mt19937_64 rng_;
    bool hints_ = false, dead_ = false;
    int faults_ = 0;
    std::vector<std::int64_t> ms_;
};

}  // namespace

void add_engine_check_command(CLI::App& app, Run& run) {
    auto a = std::make_shared<CheckArgs>();
    auto* cmd = app.add_subcommand(
        "engine-check", "play an engine of docs/ENGINE.md against the rules and report its faults");
    cmd->add_option("command", a->command, "the engine's command line (run with /bin/sh -c)")
        ->required();
    cmd->add_option("--games", a->games, "games to play (the engine plays both sides)")
        ->transform(whole_number(1, 1000))
        ->capture_default_str();
    cmd->add_option("--size", a->size, "9: the standard game; 7: the small one")
        ->check(CLI::IsMember({7, 9}))
        ->capture_default_str();
    cmd->add_option("--seed", a->seed, "chooses the hints and stand-in answers")
        ->transform(whole_number(0, UINT64_MAX))
        ->capture_default_str();
    cmd->add_option("--movetime", a->movetime, "MS: sends go movetime MS (default: plain go)")
        ->transform(whole_number(1, 600000));
    cmd->add_flag("--verbose", a->verbose, "print every line sent and received");
    cmd->footer(
        "Prints a FAULT line for each answer that breaks the protocol or the rules, a line per\n"
        "game, and a summary.\n"
        "exit codes: 0 no fault, 1 faults found (or the engine could not be run), 2 usage");
    cmd->callback([&run, a] {
        run = [a] {
            std::string err;
            auto e = engine::EngineProcess::start(a->command, err);
            if (!e) {
                std::cerr << "trunkfield engine-check: " << err << "\n";
                return 1;
            }
            return Checker(*e, *a).run();
        };
    });
}

}  // namespace tf::cli
