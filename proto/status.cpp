#include "proto/status.h"

namespace tf::proto {

std::string_view status_name(GameStatus s) {
    switch (s) {
#define X(id, name)      \
    case GameStatus::id: \
        return name;
        TF_GAME_STATUSES(X)
#undef X
    }
    return {};  // not a GameStatus: the status test fails on it
}

std::optional<GameStatus> status_from_name(std::string_view name) {
    for (int i = 0; i < kGameStatusCount; ++i)
        if (status_name(GameStatus(i)) == name) return GameStatus(i);
    return std::nullopt;
}

}  // namespace tf::proto
