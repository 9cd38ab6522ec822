// The players' social tables (issue 35; proto/PROTOCOL.md "Notifications", "Follow and
// block"): each player's notifications (a challenge received, declined or accepted, a followed
// player's game, ...) with when they were read, and the relations between accounts (follow,
// block) — in SQLite (schema 5) or PostgreSQL (schema 5), on a side connection (side_db.h)
// beside the store's.
//
// Blocking, one thread at a time (server/social/social_service.h owns it); failures throw
// StoreError.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/store/side_db.h"

namespace tf::server {

struct StoredNotice {
    std::int64_t id = 0;
    std::string player_id;
    std::string kind;
    std::string body;  // canonical JSON object: the kind's own fields
    std::int64_t at_ms = 0;
    std::int64_t read_ms = 0;  // 0: unread
};

// One of a player's relations to another account: kind "follow" (told when it starts a game),
// "follow_quiet" (followed, not told) or "block".
struct Relation {
    std::string other_id, other_name;
    std::string kind;
    std::int64_t at_ms = 0;
};

class SocialDb {
  public:
    explicit SocialDb(std::unique_ptr<SideDb> db) : db_(std::move(db)) {}

    // Keeps `n` (its id and read_ms are the store's) and answers it as kept.
    StoredNotice add(StoredNotice n);
    // The player's newest first, at most `limit`, only ids below `before` (0: from the newest).
    std::vector<StoredNotice> list(const std::string& player_id, int limit, std::int64_t before);
    int unread(const std::string& player_id);
    // Marks the player's notifications `ids` (every unread one when empty) read at `at_ms`.
    void mark_read(const std::string& player_id, const std::vector<std::int64_t>& ids,
                   std::int64_t at_ms);

    // An account by its username (any letter case): {player id, username as registered}.
    std::optional<std::pair<std::string, std::string>> account(const std::string& username);
    // Sets the relation of `kind` from player to other (replacing the other kinds of its group:
    // a follow replaces a quiet follow, and the reverse); idempotent.
    void relate(const std::string& player_id, const std::string& other_id, const std::string& kind,
                std::int64_t at_ms);
    // Removes the player's relations to other of the given kinds.
    void unrelate(const std::string& player_id, const std::string& other_id,
                  const std::vector<std::string>& kinds);
    // The player's relations, by the other's username.
    std::vector<Relation> relations_of(const std::string& player_id);
    // Whether either of the two blocked the other.
    bool blocked_between(const std::string& a, const std::string& b);
    // The accounts the player blocked or that blocked it.
    std::vector<std::string> blocked_either(const std::string& player_id);
    // The followers who asked to be told when the player starts a game.
    std::vector<std::string> followers_told(const std::string& player_id);
    // Of the accounts the player follows, those connected to a node whose lease holds
    // (PostgreSQL: the nodes of a cluster write `online`); nullopt for a store one node alone
    // uses. A node knows its own connections itself.
    std::optional<std::vector<std::string>> followed_online(const std::string& player_id);
    // The public game the player is playing now (the newest), or "".
    std::string playing(const std::string& player_id);

  private:
    std::unique_ptr<SideDb> db_;
};

std::unique_ptr<SocialDb> open_sqlite_social(const std::string& data_dir);
std::unique_ptr<SocialDb> open_pg_social(const std::string& conninfo);

}  // namespace tf::server
