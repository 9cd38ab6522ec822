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
//
// The stalling judge (PROTOCOL.md "Stalling", RoomTime's limit) searches the same way: the
// position of a player sitting past the limit is judged once, on the worker pool.
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
    auto side = c_.bot_side();
    if (!side || bot_.busy || c_.rec.status != Status::Playing || c_.ops.busy() ||
        c_.rec.game->over() || c_.rec.game->to_move() != *side || !c_.rec.seats[idx(*side)])
        return;
    bot_.busy = true;
    const int level = bot_.level();
    const std::uint64_t seed =
        std::hash<std::string>{}(c_.code) ^ std::uint64_t(c_.rec.version) * 0x9e3779b97f4a7c15ULL;
    const std::int64_t at = c_.rec.state_version;
    const auto now = SteadyClock::now();
    std::optional<SteadyClock::duration> left;
    if (c_.clock && c_.clock->running() == side) left = c_.clock->left(*side, now);
    const TimePoint show_at = now + bot_.moment(*c_.rec.game, left, c_.env.cfg.bot_pace);
    engine::GameLines lines{c_.params.variant, {c_.rec.setups[0], c_.rec.setups[1]}, c_.rec.turns};
    engine::GoLimits limits;
    if (c_.clock && c_.params.time_control)
        for (Side s : {Side::Silver, Side::Bronze}) {
            using std::chrono::milliseconds;
            const auto ms = std::chrono::duration_cast<milliseconds>(c_.clock->left(s, now));
            limits.time[idx(s)] = std::max<std::int64_t>(0, ms.count());
            limits.inc[idx(s)] =
                c_.params.time_control->correspondence() ? 0 : c_.params.time_control->increment_ms;
        }
    auto think = [self = shared_from_this(), g = *c_.rec.game, lines = std::move(lines), level,
                  seed, limits, at, side = *side, show_at] {
        auto play = [self, move = RoomBot::search(lines, g, level, seed, limits), at, side] {
            Room& r = *self;
            r.bot_.busy = false;
            if (auto* error = std::get_if<std::string>(&move))
                return spdlog::error("room {}: the bot found no move: {}", r.c_.code, *error);
            // The position moved on while it thought (a setup from the human, who may set up
            // at the same time): think again about the new one, or the game would wait forever.
            if (r.c_.rec.state_version != at || r.c_.rec.status != Status::Playing)
                return r.maybe_bot();
            const Player bot = *r.c_.rec.seats[idx(side)];
            if (auto* s = std::get_if<Setup>(&move))
                r.setup_now(bot, {}, proto::SetupMsg{r.c_.code, *s, at, std::nullopt});
            else
                r.turn_now(bot, {},
                           proto::TurnMsg{r.c_.code, std::get<Turn>(move), at, std::nullopt,
                                          std::nullopt});
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
    if (c_.env.offload)
        c_.env.offload(std::move(think));
    else
        boost::asio::post(c_.ex, std::move(think));
}

void Room::judge_stall() {
    c_.due.stall.reset();
    const Side side = c_.rec.game->to_move();
    const std::int64_t at = c_.rec.state_version;
    auto think = [self = shared_from_this(), g = *c_.rec.game, side, at] {
        self->on_strand([self, side, at, score = stall_judgement(g)] {
            Room& r = *self;
            if (!score || r.c_.rec.state_version != at || r.c_.rec.status != Status::Playing ||
                r.c_.rec.game->to_move() != side || r.c_.rec.stalling)
                return;
            if (*score > -kStallLostScore) {
                spdlog::info("room {}: {} sits past the stalling limit, not lost (score {})",
                             r.c_.code, side_name(side), *score);
                return;
            }
            spdlog::info("room {}: {} is stalling in a lost position (score {})", r.c_.code,
                         side_name(side), *score);
            r.c_.record(proto::StallingEv{side});
        });
    };
    if (c_.env.offload)
        c_.env.offload(std::move(think));
    else
        boost::asio::post(c_.ex, std::move(think));
}

}  // namespace tf::server
