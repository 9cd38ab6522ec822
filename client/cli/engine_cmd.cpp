// `trunkfield engine`: the built-in bot (common/bot.h) as an engine of docs/ENGINE.md, one
// command line in, one answer line out. The search is bounded by nodes, not time (well under a
// second at level 5), so `go` answers before anything could ask it to stop; short clocks lower
// the level for that move.
#include "engine_cmd.h"

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bot.h"
#include "common/notation.h"
#include "engine_text.h"
#include "play_input.h"

namespace tf::cli {

namespace {

struct EngineArgs {
    int level = 3;
    std::uint64_t seed = 1;
};

class Engine {
  public:
    explicit Engine(const EngineArgs& a) {
        opt_.level = a.level;
        opt_.seed = a.seed;
    }

    // Reads commands until `quit` or the end of input.
    int run(std::istream& in, std::ostream& out) {
        std::string line;
        while (std::getline(in, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            auto words = play::split_words(line);
            if (words.empty()) continue;
            if (words[0] == "quit") break;
            if (words[0] == "stop" || words[0] == "legal") continue;  // nothing runs; hints unused
            for (const auto& l : answer(words, line)) out << l << "\n";
            out.flush();
        }
        return 0;
    }

  private:
    std::vector<std::string> answer(const std::vector<std::string>& w, const std::string& line) {
        const std::string& cmd = w[0];
        if (cmd == "tep")
            return {"id name Trunkfield level " + std::to_string(opt_.level),
                    "id author The Trunkfield authors",
                    "option name level type spin default " + std::to_string(opt_.level) + " min " +
                        std::to_string(kMinBotLevel) + " max " + std::to_string(kMaxBotLevel),
                    "option name hints type check default false", "tepok"};
        if (cmd == "isready") return {"readyok"};
        if (cmd == "setoption") return {set_option(w)};
        if (cmd == "newgame") {
            std::string err;
            auto v = engine::parse_newgame(w, err);
            if (!v) return {"error " + err};
            game_.emplace(*v);
            return {"ok"};
        }
        if (cmd == "setup" || cmd == "turn") {
            if (!game_) return {"error no game: send newgame first"};
            std::string err;
            const std::string rest = engine::rest_of(line, cmd);
            if (!engine::play(*game_, cmd == "setup", rest, err)) return {"error " + err};
            return {"ok"};
        }
        if (cmd == "go") return go(w);
        return {"error unknown command " + cmd};
    }

    std::string set_option(const std::vector<std::string>& w) {
        if (w.size() != 5 || w[1] != "name" || w[3] != "value")
            return "error malformed setoption: setoption name NAME value VALUE";
        if (w[2] == "hints")
            return w[4] == "true" || w[4] == "false" ? "ok" : "error hints: true or false";
        if (w[2] != "level") return "error unknown option " + w[2];
        if (w[4].size() != 1 || w[4][0] < '0' + kMinBotLevel || w[4][0] > '0' + kMaxBotLevel)
            return "error level: 1 to 5";
        opt_.level = w[4][0] - '0';
        return "ok";
    }

    std::vector<std::string> go(const std::vector<std::string>& w) {
        std::string err;
        auto limits = engine::parse_go(w, err);
        if (!limits) return {"error " + err};
        if (!game_ || game_->over()) return {"error no move to make"};
        BotOptions opt = opt_;
        opt.level = engine::level_for(opt_.level, *limits, game_->to_move());
        ++opt.seed;  // another choice among equals at each move, the same every run
        opt_.seed = opt.seed;
        if (game_->phase() != Phase::Play) {
            auto s = bot_setup(*game_, opt);
            if (!s) return {"error " + s.error().message};
            return {"bestsetup " + engine::setup_text(*s, game_->variant().size)};
        }
        BotInfo info;
        auto t = bot_turn(*game_, opt, &info);
        if (!t) return {"error " + t.error().message};
        return {"info depth " + std::to_string(info.depth) + " score " +
                    std::to_string(info.score) + " nodes " + std::to_string(info.nodes),
                "bestturn " + turn_to_notation(*t, game_->variant().size)};
    }

    BotOptions opt_;
    std::optional<Game> game_;
};

}  // namespace

void add_engine_command(CLI::App& app, Run& run) {
    auto a = std::make_shared<EngineArgs>();
    auto* cmd = app.add_subcommand(
        "engine", "the built-in bot as an engine of docs/ENGINE.md, on standard input and output");
    cmd->add_option("--level", a->level, "strength, 1 (weakest) to 5 (until setoption level)")
        ->check(CLI::Range(kMinBotLevel, kMaxBotLevel))
        ->capture_default_str();
    cmd->add_option("--seed", a->seed, "varies the choices among equally good answers")
        ->transform(whole_number(0, UINT64_MAX))
        ->capture_default_str();
    cmd->footer(
        "Reads the engine protocol's commands (tep, isready, setoption, newgame, setup, turn, go,\n"
        "stop, quit) and answers them; see docs/ENGINE.md.\n"
        "exit codes: 0 after quit or the end of input, 2 usage");
    cmd->callback([&run, a] { run = [a] { return Engine(*a).run(std::cin, std::cout); }; });
}

}  // namespace tf::cli
