// The built-in levels as bot accounts people challenge (PROTOCOL.md "House bots"): Level1 to
// Level5, made by the server at its start when its store keeps accounts and they are missing
// (server/app/house_bots_setup.h). A challenge to one is taken at once: the room's own computer
// opponent holds its seat at that level (server/room/room_bot.cpp), and the game may be rated
// like any game between two accounts. Nobody logs in as one: its password hash is a mark that
// no password matches.
#pragma once

#include <optional>
#include <string>

#include "server/store/store.h"

namespace tf::server {

inline constexpr int kHouseBotLevels = 5;
// The password hash of a house bot's account: not a hash libsodium verifies, so no login.
inline constexpr const char* kHouseBotMark = "!house-bot";

// The account name of the built-in level `level` (1 to kHouseBotLevels): "Level3".
std::string house_bot_name(int level);

// The level `a` plays at when it is a house bot (marked, a bot, named for its level).
std::optional<int> house_bot_level(const StoredAccount& a);

}  // namespace tf::server
