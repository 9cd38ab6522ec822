#include "movers.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <random>
#include <vector>

#include "client/lib/engine_process.h"
#include "common/engine_builtin.h"
#include "common/engine_driver.h"

namespace tf::cli {

namespace {

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// The mirror's game as the engine is told it.
engine::GameLines lines_of(const client::GameMirror& m) {
    engine::GameLines out;
    out.variant = m.variant();
    for (Side s : {Side::Silver, Side::Bronze})
        if (m.setup(s)) out.setups[idx(s)] = *m.setup(s);
    for (const auto& t : m.turns()) out.turns.push_back(t.turn);
    return out;
}

// A built-in bot for each game (another seed each), spoken to over the engine protocol in this
// process: the path the server's computer opponents take too (common/engine_builtin.h).
class BuiltinMover : public Mover {
  public:
    BuiltinMover(int level, std::uint64_t seed) : level_(level), seed_(seed) {}

    Move choose(const client::GameMirror& m, const engine::GoLimits& limits,
                std::uint64_t game_index) override {
        if (m.start_position())
            throw MoverError("a game from a position cannot be told to an engine (ENGINE.md)");
        try {
            if (!driver_ || game_index != game_) {
                driver_.reset();
                link_ =
                    std::make_unique<engine::InProcessLink>(level_, mix(seed_ ^ mix(game_index)));
                driver_ = std::make_unique<engine::EngineDriver>(*link_, level_);
                game_ = game_index;
            }
            return driver_->ask(lines_of(m), m.game(), limits);
        } catch (const engine::EngineBroken& e) {
            driver_.reset();
            throw MoverError(std::string("the built-in engine: ") + e.what());
        }
    }

    std::string describe() const override { return "level " + std::to_string(level_); }

  private:
    int level_;
    std::uint64_t seed_;
    std::unique_ptr<engine::InProcessLink> link_;
    std::unique_ptr<engine::EngineDriver> driver_;
    std::uint64_t game_ = 0;
};

class EngineMover : public Mover {
  public:
    EngineMover(std::string command, int level, bool verbose)
        : command_(std::move(command)), level_(level), verbose_(verbose) {
        try {
            start();
        } catch (const engine::EngineBroken& e) {
            throw MoverError(std::string("the engine cannot be started: ") + e.what());
        }
    }

    Move choose(const client::GameMirror& m, const engine::GoLimits& limits,
                std::uint64_t) override {
        if (m.start_position())
            throw MoverError("a game from a position cannot be told to an engine (ENGINE.md)");
        for (int attempt = 0;; ++attempt) {
            try {
                return driver_->ask(lines_of(m), m.game(), limits);
            } catch (const engine::EngineBroken& e) {
                std::cerr << "engine: " << e.what() << "\n";
                if (attempt == 1) throw MoverError(std::string("the engine broke: ") + e.what());
                std::cerr << "engine: starting it again\n";
                try {
                    start();
                } catch (const engine::EngineBroken& again) {
                    throw MoverError(std::string("the engine cannot be restarted: ") +
                                     again.what());
                }
            }
        }
    }

    std::string describe() const override { return "engine " + name_; }

  private:
    void start() {
        driver_.reset();
        process_.reset();
        std::string err;
        process_ = engine::EngineProcess::start(command_, err);
        if (!process_) throw engine::EngineBroken(err);
        engine::EngineDriver::Trace trace;
        if (verbose_) trace = [](const std::string& l) { std::cout << "  engine" << l << "\n"; };
        driver_ = std::make_unique<engine::EngineDriver>(*process_, level_, trace);
        name_ = driver_->name().empty() ? command_ : driver_->name();
    }

    std::string command_;
    int level_;
    bool verbose_;
    std::unique_ptr<engine::EngineProcess> process_;
    std::unique_ptr<engine::EngineDriver> driver_;
    std::string name_;
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
        out.inc[idx(s)] = tc->correspondence() || m.berserk(s) ? 0 : tc->increment_ms;
    }
    return out;
}

}  // namespace tf::cli
