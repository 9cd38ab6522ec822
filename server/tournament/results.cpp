#include "server/tournament/results.h"

namespace tf::server::tournament {

std::optional<Side> winner(GameResult r) {
    switch (r) {
        case GameResult::SilverWins:
            return Side::Silver;
        case GameResult::BronzeWins:
            return Side::Bronze;
        case GameResult::Draw:
            break;
    }
    return std::nullopt;
}

int half_points(GameResult r, Side s) {
    const auto w = winner(r);
    return !w ? 1 : *w == s ? 2 : 0;
}

}  // namespace tf::server::tournament
