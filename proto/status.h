// A game's status, as snapshots, the live list, the history API and the store name it. One
// table: the enum and its names come from the same list, and every place that prints a status
// goes through status_name(). Append new statuses; never rename one (the names are stored).
#pragma once

#include <optional>
#include <string_view>

namespace tf::proto {

#define TF_GAME_STATUSES(X)                                                                  \
    X(Open, "open")               /* waiting for an opponent */                              \
    X(Playing, "playing")         /* both seats filled, not finished */                      \
    X(Over, "over")               /* finished with a result */                               \
    X(Cancelled, "cancelled")     /* withdrawn by its creator before anyone joined */        \
    X(Aborted, "aborted")         /* ended without a result (no start, both players gone) */ \
    X(Suspended, "suspended")     /* the store failed: paused at its last saved position */  \
    X(Quarantined, "quarantined") /* stored, but its journal does not replay (never loaded) */

enum class GameStatus : unsigned char {
#define X(id, name) id,
    TF_GAME_STATUSES(X)
#undef X
};

inline constexpr int kGameStatusCount = 0
#define X(id, name) +1
    TF_GAME_STATUSES(X)
#undef X
    ;

std::string_view status_name(GameStatus s);
std::optional<GameStatus> status_from_name(std::string_view name);
// Over or aborted: the game has a final record.
inline bool finished(GameStatus s) {
    return s == GameStatus::Over || s == GameStatus::Aborted;
}

}  // namespace tf::proto
