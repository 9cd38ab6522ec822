#include "common/engine_driver.h"

#include <algorithm>

#include "common/notation.h"

namespace tf::engine {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

EngineDriver::EngineDriver(EngineLink& link, int level, Trace trace)
    : link_(link), trace_(std::move(trace)) {
    send("tep");
    bool has_level = false;
    for (;;) {
        const std::string line = answer(kCommandLimit);
        if (line == "tepok") break;
        auto w = split_words(line);
        if (w.size() >= 3 && w[0] == "id" && w[1] == "name") name_ = rest_of(line, "name");
        if (w.size() >= 5 && w[0] == "option" && w[1] == "name") {
            if (w[2] == "hints") hints_ = true;
            if (w[2] == "level") has_level = true;
        }
    }
    if (hints_) expect("setoption name hints value true", "ok");
    if (level > 0 && has_level) expect("setoption name level value " + std::to_string(level), "ok");
    expect("isready", "readyok");
}

void EngineDriver::send(const std::string& line) {
    if (trace_) trace_("> " + line);
    if (!link_.send(line)) throw EngineBroken("it stopped reading its input (exited?)");
}

// The next answer line within `limit`, `info` lines skipped (traced).
std::string EngineDriver::answer(milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    for (;;) {
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
        auto line = link_.read_line(std::max(left, milliseconds(0)));
        if (!line)
            throw EngineBroken(link_.closed()
                                   ? "it closed its output (exited?)"
                                   : "no answer within " + std::to_string(limit.count()) + " ms");
        if (trace_) trace_("< " + *line);
        if (line->rfind("info", 0) == 0 && (line->size() == 4 || (*line)[4] == ' ')) continue;
        return *line;
    }
}

void EngineDriver::expect(const std::string& command, const std::string& want) {
    send(command);
    const std::string got = answer(kCommandLimit);
    if (got != want)
        throw EngineBroken("'" + command + "' answered '" + got + "', not '" + want + "'");
}

std::vector<std::string> history_lines(const GameLines& lines) {
    const int size = lines.variant.size;
    std::vector<std::string> out{newgame_text(lines.variant)};
    for (Side s : {Side::Silver, Side::Bronze})
        if (lines.setups[idx(s)]) out.push_back("setup " + setup_text(*lines.setups[idx(s)], size));
    for (const auto& t : lines.turns) out.push_back("turn " + turn_to_notation(t, size));
    return out;
}

EngineMove EngineDriver::ask(const GameLines& lines, const Game& g, const GoLimits& limits) {
    const std::vector<std::string> want = history_lines(lines);
    // One more setup or turn is sent alone; anything else (a takeback, another game) starts
    // the game again with newgame.
    if (sent_.size() > want.size() || !std::equal(sent_.begin(), sent_.end(), want.begin()))
        sent_.clear();
    while (sent_.size() < want.size()) {
        expect(want[sent_.size()], "ok");
        sent_.push_back(want[sent_.size()]);
    }
    if (hints_) {
        const auto list = hints(g, rng_);
        send("legal " + std::to_string(list.size()));
        for (const auto& h : list) send("legal " + h);
    }
    std::string go = "go";
    const char* names[2][2] = {{"stime", "btime"}, {"sinc", "binc"}};
    for (int i = 0; i < 2; ++i) {
        if (limits.time[i] >= 0)
            go += " " + std::string(names[0][i]) + " " + std::to_string(limits.time[i]);
        if (limits.inc[i] >= 0)
            go += " " + std::string(names[1][i]) + " " + std::to_string(limits.inc[i]);
    }
    if (limits.movetime >= 0) go += " movetime " + std::to_string(limits.movetime);
    const std::int64_t mine = limits.time[idx(g.to_move())];
    const milliseconds limit =
        mine < 0 ? kUntimedGo : std::min(milliseconds(mine) + kGoGrace, kLongestGo);
    send(go);
    const std::string got = answer(limit);
    const bool setup = g.phase() != Phase::Play;
    const std::string word = setup ? "bestsetup" : "bestturn";
    if (got.rfind(word + " ", 0) != 0) throw EngineBroken("'" + got + "', not '" + word + " ...'");
    const std::string text = rest_of(got, word);
    Game copy = g;
    std::string err;
    if (!play(copy, setup, text, err)) throw EngineBroken(word + " '" + text + "': " + err);
    EngineMove out;
    out.is_setup = setup;
    const int size = g.variant().size;
    if (setup)
        out.setup = *parse_setup_words(split_words(text), size, err);
    else
        out.turn = *turn_from_notation(text, size);
    return out;
}

}  // namespace tf::engine
