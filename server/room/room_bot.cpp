// The server's computer opponent (create_game with "bot": level, or a challenge to a house bot).
// It holds the seat opposite the creator and is always present. When it is its move, the room
// copies the game and hands the search to the worker pool: the built-in engine asked over the
// engine protocol in this process (common/engine_builtin.h, the path `trunkfield bot` takes), so a
// thinking bot never holds the room's strand or a network thread; the answer comes back to the
// strand as an ordinary setup or turn, validated and committed like a player's. An answer for a
// position that has moved on (the human resigned, the clock fell) is dropped.
//
// A move is shown no sooner than a human-like moment after the position arrived (issue 32: an
// answer in 40 ms blurs with the player's own move): a setup 0.8 s, a turn 0.35 s + 0.1 s per
// level, less when the bot's clock runs low (at most a sixtieth of its time left), times
// --bot-pace (0: at once). The search's own time counts toward it; the bot's clock runs.
#include <spdlog/spdlog.h>

#include "common/engine_builtin.h"
#include "server/room/room.h"

namespace tf::server {

SteadyClock::duration RoomBot::moment(const Game& g, std::optional<SteadyClock::duration> left,
                                      double pace) const {
    using std::chrono::milliseconds;
    const bool setup = g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze;
    SteadyClock::duration d = setup ? milliseconds(800) : milliseconds(350 + 100 * level());
    if (left) d = std::min(d, *left / 60);
    return std::chrono::duration_cast<SteadyClock::duration>(d * pace);
}

RoomBot::Move RoomBot::search(const engine::GameLines& lines, const Game& g, int level,
                              std::uint64_t seed, const engine::GoLimits& limits) {
    try {
        engine::InProcessLink link(level, seed);
        engine::EngineDriver driver(link, level);
        auto m = driver.ask(lines, g, limits);
        if (m.is_setup) return m.setup;
        return m.turn;
    } catch (const engine::EngineBroken& e) {
        return std::string(e.what());
    }
}

void Room::maybe_bot() {
    auto side = bot_.side();
    if (!side || bot_.busy || rec_.status != Status::Playing || ops_.busy() || rec_.game->over() ||
        rec_.game->to_move() != *side || !rec_.seats[idx(*side)])
        return;
    bot_.busy = true;
    const int level = bot_.level();
    const std::uint64_t seed =
        std::hash<std::string>{}(code_) ^ std::uint64_t(rec_.version) * 0x9e3779b97f4a7c15ULL;
    const std::int64_t at = rec_.state_version;
    const auto now = SteadyClock::now();
    std::optional<SteadyClock::duration> left;
    if (clock_ && clock_->running() == side) left = clock_->left(*side, now);
    const TimePoint show_at = now + bot_.moment(*rec_.game, left, env_.cfg.bot_pace);
    engine::GameLines lines{params_.variant, {rec_.setups[0], rec_.setups[1]}, rec_.turns};
    engine::GoLimits limits;
    if (clock_ && params_.time_control)
        for (Side s : {Side::Silver, Side::Bronze}) {
            using std::chrono::milliseconds;
            const auto ms = std::chrono::duration_cast<milliseconds>(clock_->left(s, now));
            limits.time[idx(s)] = std::max<std::int64_t>(0, ms.count());
            limits.inc[idx(s)] =
                params_.time_control->correspondence() ? 0 : params_.time_control->increment_ms;
        }
    auto think = [self = shared_from_this(), g = *rec_.game, lines = std::move(lines), level, seed,
                  limits, at, side = *side, show_at] {
        auto play = [self, move = RoomBot::search(lines, g, level, seed, limits), at, side] {
            Room& r = *self;
            r.bot_.busy = false;
            if (auto* error = std::get_if<std::string>(&move))
                return spdlog::error("room {}: the bot found no move: {}", r.code_, *error);
            // The position moved on while it thought (a setup from the human, who may set up
            // at the same time): think again about the new one, or the game would wait forever.
            if (r.rec_.state_version != at || r.rec_.status != Status::Playing)
                return r.maybe_bot();
            const Player bot = *r.rec_.seats[idx(side)];
            if (auto* s = std::get_if<Setup>(&move))
                r.setup_now(bot, {}, proto::SetupMsg{r.code_, *s, at, std::nullopt});
            else
                r.turn_now(
                    bot, {},
                    proto::TurnMsg{r.code_, std::get<Turn>(move), at, std::nullopt, std::nullopt});
        };
        self->on_strand([self, play = std::move(play), show_at]() mutable {
            if (SteadyClock::now() >= show_at) return play();
            self->bot_.timer.expires_at(show_at);
            self->bot_.timer.async_wait([w = self->weak_from_this(), play = std::move(play)](
                                            boost::system::error_code) mutable {
                if (auto r = w.lock()) r->on_strand(std::move(play));  // it checks the version
            });
        });
    };
    if (env_.offload)
        env_.offload(std::move(think));
    else
        boost::asio::post(ex_, std::move(think));
}

}  // namespace tf::server
