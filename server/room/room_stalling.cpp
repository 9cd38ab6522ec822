// Stalling (PROTOCOL.md "Stalling", docs/RULES.md "Stalling"): a player who sits on a move in a
// position the server's bot judges lost, past a limit derived from the time control, is
// stalling; the opponent may then claim the win or a draw, as lichess lets a player claim a
// game the opponent left, but for sitting. Only a sitting player costs a search: the position
// is judged once, when the limit passes, on the worker pool (as the bot's moves are).
#include <spdlog/spdlog.h>

#include "common/bot.h"
#include "server/room/room.h"

namespace tf::server {

using proto::Err;

void Room::arm_stall() {
    due_.stall.reset();
    if (rec_.status != Status::Playing || !rec_.started() || bot_side() || correspondence() ||
        rec_.game->over() || rec_.game->phase() != Phase::Play || rec_.stalling)
        return;
    due_.stall = SteadyClock::now() + limits_.stall;
}

void Room::judge_stall() {
    due_.stall.reset();
    const Side side = rec_.game->to_move();
    const std::int64_t at = rec_.state_version;
    auto think = [self = shared_from_this(), g = *rec_.game, side, at] {
        self->on_strand([self, side, at, score = stall_judgement(g)] {
            Room& r = *self;
            if (!score || r.rec_.state_version != at || r.rec_.status != Status::Playing ||
                r.rec_.game->to_move() != side || r.rec_.stalling)
                return;
            if (*score > -kStallLostScore) {
                spdlog::info("room {}: {} sits past the stalling limit, not lost (score {})",
                             r.code_, side_name(side), *score);
                return;
            }
            spdlog::info("room {}: {} is stalling in a lost position (score {})", r.code_,
                         side_name(side), *score);
            r.record(proto::StallingEv{side});
        });
    };
    if (env_.offload)
        env_.offload(std::move(think));
    else
        boost::asio::post(ex_, std::move(think));
}

void Room::claim_draw(Player p, Who who) {
    on_strand([this, p = std::move(p), who = std::move(who)] {
        auto side = check_seated(p, who);
        if (!side) return;
        if (rec_.stalling != ~*side)
            return fail(who, Err::NotClaimable,
                        "a draw can be claimed only from an opponent who is stalling");
        end(proto::StallClaimEv{*side, true});
    });
}

}  // namespace tf::server
