#include "movers.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <random>
#include <vector>

#include "client/lib/engine_process.h"
#include "common/bot.h"
#include "common/notation.h"
#include "play_input.h"

namespace tf::cli {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

class BuiltinMover : public Mover {
  public:
    BuiltinMover(int level, std::uint64_t seed) : level_(level), seed_(seed) {}

    Move choose(const client::GameMirror& m, const engine::GoLimits&,
                std::uint64_t game_index) override {
        const Game& g = m.game();
        BotOptions bo;
        bo.level = level_;
        bo.seed = mix(seed_ ^ mix(game_index)) ^ std::uint64_t(g.turns_played());
        Move out;
        if (g.phase() != Phase::Play) {
            auto s = bot_setup(g, bo);
            if (!s) throw MoverError("bot_setup: " + s.error().message);
            out.is_setup = true;
            out.setup = *s;
            return out;
        }
        auto t = bot_turn(g, bo);
        if (!t) throw MoverError("bot_turn: " + t.error().message);
        out.turn = *t;
        return out;
    }

    std::string describe() const override { return "level " + std::to_string(level_); }

  private:
    int level_;
    std::uint64_t seed_;
};

// The engine broke: it exited, answered late, out of the protocol or against the rules.
struct Broken : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// docs/ENGINE.md "Errors": every answer but go's within 10 s.
constexpr milliseconds kCommandLimit{10000};
// How long `go` may take beyond the mover's own clock (the server's flag falls first), and in
// an untimed game, and at most in a correspondence game.
constexpr milliseconds kGoGrace{2000}, kUntimedGo{60000}, kLongestGo{300000};

class EngineMover : public Mover {
  public:
    EngineMover(std::string command, int level, bool verbose)
        : command_(std::move(command)), level_(level), verbose_(verbose) {
        try {
            start();
        } catch (const Broken& e) {
            throw MoverError(std::string("the engine cannot be started: ") + e.what());
        }
    }

    Move choose(const client::GameMirror& m, const engine::GoLimits& limits,
                std::uint64_t) override {
        if (m.start_position())
            throw MoverError("a game from a position cannot be told to an engine (ENGINE.md)");
        for (int attempt = 0;; ++attempt) {
            try {
                return ask(m, limits);
            } catch (const Broken& e) {
                std::cerr << "engine: " << e.what() << "\n";
                if (attempt == 1) throw MoverError(std::string("the engine broke: ") + e.what());
                std::cerr << "engine: starting it again\n";
                try {
                    start();
                } catch (const Broken& again) {
                    throw MoverError(std::string("the engine cannot be restarted: ") +
                                     again.what());
                }
            }
        }
    }

    std::string describe() const override { return "engine " + name_; }

  private:
    void start() {
        process_.reset();
        sent_.clear();
        hints_ = false;
        std::string err;
        process_ = engine::EngineProcess::start(command_, err);
        if (!process_) throw Broken(err);
        send("tep");
        bool has_level = false;
        for (;;) {
            const std::string line = answer(kCommandLimit);
            if (line == "tepok") break;
            auto w = play::split_words(line);
            if (w.size() >= 3 && w[0] == "id" && w[1] == "name")
                name_ = engine::rest_of(line, "name");
            if (w.size() >= 5 && w[0] == "option" && w[1] == "name") {
                if (w[2] == "hints") hints_ = true;
                if (w[2] == "level") has_level = true;
            }
        }
        if (name_.empty()) name_ = command_;
        if (hints_) expect("setoption name hints value true", "ok");
        if (level_ > 0 && has_level)
            expect("setoption name level value " + std::to_string(level_), "ok");
        expect("isready", "readyok");
    }

    void send(const std::string& line) {
        if (verbose_) std::cout << "  engine> " << line << "\n";
        if (!process_->send(line)) throw Broken("it stopped reading its input (exited?)");
    }

    // The next answer line within `limit`, `info` lines skipped (shown when verbose).
    std::string answer(milliseconds limit) {
        const auto deadline = Clock::now() + limit;
        for (;;) {
            const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
            auto line = process_->read_line(std::max(left, milliseconds(0)));
            if (!line)
                throw Broken(process_->closed()
                                 ? "it closed its output (exited?)"
                                 : "no answer within " + std::to_string(limit.count()) + " ms");
            if (verbose_) std::cout << "  engine< " << *line << "\n";
            if (line->rfind("info", 0) == 0 && (line->size() == 4 || (*line)[4] == ' ')) continue;
            return *line;
        }
    }

    void expect(const std::string& command, const std::string& want) {
        send(command);
        const std::string got = answer(kCommandLimit);
        if (got != want)
            throw Broken("'" + command + "' answered '" + got + "', not '" + want + "'");
    }

    // The lines that bring an engine's game to the mirror's: newgame, setups, turns.
    static std::vector<std::string> history(const client::GameMirror& m) {
        const int size = m.variant().size;
        std::vector<std::string> out{engine::newgame_text(m.variant())};
        for (Side s : {Side::Silver, Side::Bronze})
            if (m.setup(s)) out.push_back("setup " + engine::setup_text(*m.setup(s), size));
        for (const auto& t : m.turns()) out.push_back("turn " + turn_to_notation(t.turn, size));
        return out;
    }

    Move ask(const client::GameMirror& m, const engine::GoLimits& limits) {
        const std::vector<std::string> want = history(m);
        // One more setup or turn is sent alone; anything else (a takeback, another game) starts
        // the game again with newgame.
        if (sent_.size() > want.size() || !std::equal(sent_.begin(), sent_.end(), want.begin()))
            sent_.clear();
        while (sent_.size() < want.size()) {
            expect(want[sent_.size()], "ok");
            sent_.push_back(want[sent_.size()]);
        }
        const Game& g = m.game();
        if (hints_) {
            const auto list = engine::hints(g, rng_);
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
        const std::int64_t mine = limits.time[idx(g.to_move())];
        const milliseconds limit =
            mine < 0 ? kUntimedGo : std::min(milliseconds(mine) + kGoGrace, kLongestGo);
        send(go);
        const std::string got = answer(limit);
        const bool setup = g.phase() != Phase::Play;
        const std::string word = setup ? "bestsetup" : "bestturn";
        if (got.rfind(word + " ", 0) != 0) throw Broken("'" + got + "', not '" + word + " ...'");
        const std::string text = engine::rest_of(got, word);
        Game copy = g;
        std::string err;
        if (!engine::play(copy, setup, text, err)) throw Broken(word + " '" + text + "': " + err);
        Move out;
        out.is_setup = setup;
        const int size = g.variant().size;
        if (setup)
            out.setup = *play::parse_setup_words(play::split_words(text), size, err);
        else
            out.turn = *turn_from_notation(text, size);
        return out;
    }

    std::string command_;
    int level_;
    bool verbose_;
    std::unique_ptr<engine::EngineProcess> process_;
    std::string name_;
    bool hints_ = false;
    std::vector<std::string> sent_;  // what the engine's game holds: newgame, setups, turns
    std::mt19937_64 rng_{1};
};

}  // namespace

std::unique_ptr<Mover> builtin_mover(int level, std::uint64_t seed) {
    return std::make_unique<BuiltinMover>(level, seed);
}

std::unique_ptr<Mover> engine_mover(const std::string& command, int level, bool verbose) {
    return std::make_unique<EngineMover>(command, level, verbose);
}

engine::GoLimits go_limits(const client::GameMirror& m, std::int64_t now_ms) {
    engine::GoLimits out;
    const auto& tc = m.time_control();
    const auto& clocks = m.clocks();
    if (!tc || !clocks) return out;
    for (Side s : {Side::Silver, Side::Bronze}) {
        std::int64_t left = s == Side::Silver ? clocks->silver_ms : clocks->bronze_ms;
        if (clocks->running == s) left -= std::max<std::int64_t>(0, now_ms - clocks->at);
        out.time[idx(s)] = std::max<std::int64_t>(0, left);
        out.inc[idx(s)] = tc->correspondence() ? 0 : tc->increment_ms;
    }
    return out;
}

}  // namespace tf::cli
