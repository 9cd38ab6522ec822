#include "server/accounts/house_bots.h"

namespace tf::server {

std::string house_bot_name(int level) {
    return "Level" + std::to_string(level);
}

std::optional<int> house_bot_level(const StoredAccount& a) {
    if (!a.bot || a.pw_hash != kHouseBotMark) return std::nullopt;
    for (int level = 1; level <= kHouseBotLevels; ++level)
        if (username_key(a.username) == username_key(house_bot_name(level))) return level;
    return std::nullopt;
}

}  // namespace tf::server
