#include "common/engine_builtin.h"

#include "common/notation.h"

namespace tf::engine {

BuiltinEngine::BuiltinEngine(int level, std::uint64_t seed) {
    opt_.level = level;
    opt_.seed = seed;
}

std::vector<std::string> BuiltinEngine::command(std::string_view text) {
    std::string line(text);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto words = split_words(line);
    if (words.empty() || quit_) return {};
    if (words[0] == "quit") {
        quit_ = true;
        return {};
    }
    if (words[0] == "stop" || words[0] == "legal") return {};  // nothing runs; hints unused
    return answer(words, line);
}

std::vector<std::string> BuiltinEngine::answer(const std::vector<std::string>& w,
                                               const std::string& line) {
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
        auto v = parse_newgame(w, err);
        if (!v) return {"error " + err};
        game_.emplace(*v);
        return {"ok"};
    }
    if (cmd == "setup" || cmd == "turn") {
        if (!game_) return {"error no game: send newgame first"};
        std::string err;
        const std::string rest = rest_of(line, cmd);
        if (!play(*game_, cmd == "setup", rest, err)) return {"error " + err};
        return {"ok"};
    }
    if (cmd == "go") return go(w);
    return {"error unknown command " + cmd};
}

std::string BuiltinEngine::set_option(const std::vector<std::string>& w) {
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

std::vector<std::string> BuiltinEngine::go(const std::vector<std::string>& w) {
    std::string err;
    auto limits = parse_go(w, err);
    if (!limits) return {"error " + err};
    if (!game_ || game_->over()) return {"error no move to make"};
    BotOptions opt = opt_;
    opt.level = level_for(opt_.level, *limits, game_->to_move());
    ++opt.seed;  // another choice among equals at each move, the same every run
    opt_.seed = opt.seed;
    if (game_->phase() != Phase::Play) {
        auto s = bot_setup(*game_, opt);
        if (!s) return {"error " + s.error().message};
        return {"bestsetup " + setup_text(*s, game_->variant().size)};
    }
    BotInfo info;
    auto t = bot_turn(*game_, opt, &info);
    if (!t) return {"error " + t.error().message};
    return {"info depth " + std::to_string(info.depth) + " score " + std::to_string(info.score) +
                " nodes " + std::to_string(info.nodes),
            "bestturn " + turn_to_notation(*t, game_->variant().size)};
}

bool InProcessLink::send(const std::string& line) {
    if (engine_.quit()) return false;
    for (auto& l : engine_.command(line)) out_.push_back(std::move(l));
    return true;
}

std::optional<std::string> InProcessLink::read_line(std::chrono::milliseconds) {
    if (out_.empty()) return std::nullopt;  // it answers at once or not at all
    std::string l = std::move(out_.front());
    out_.pop_front();
    return l;
}

}  // namespace tf::engine
