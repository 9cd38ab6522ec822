// The players' social tables (issue 35; proto/PROTOCOL.md "Notifications", "Follow and
// block"): each player's notifications (a challenge received, declined or accepted, a followed
// player's game, ...) with when they were read, and the relations between accounts (follow,
// block) — in SQLite (schema 5) or PostgreSQL (schema 5), on a side connection (side_db.h)
// beside the store's.
//
// The other tables on the same connection each have a class of their own, reached from here:
// mail() (mail_db.h), moderation() (moderation_db.h), vacations() (vacation_db.h) and tokens()
// (api_token_db.h).
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

#include "server/store/api_token_db.h"
#include "server/store/mail_db.h"
#include "server/store/moderation_db.h"
#include "server/store/side_db.h"
#include "server/store/vacation_db.h"

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
// "follow_quiet" (followed, not told), "block" or "mute" (its chat unseen).
struct Relation {
    std::string other_id, other_name;
    std::string kind;
    std::int64_t at_ms = 0;
};

// What a connection of the player needs at every welcome (server/session/session.h): the
// accounts blocked either way (never paired with), those whose chat it does not show (blocked
// either way, or muted by the player), both sorted; the player's own standing and roles.
struct Screen {
    std::vector<std::string> blocked, unheard;
    Standing standing;
    std::vector<std::string> roles;
};

// A game an account is playing (GET /api/playing): the stored row's fields that list it.
struct PlayingGame {
    std::string code, variant, time_control;  // variant and time control: JSON
    bool rated = false;
    std::string seat_id[2], seat_name[2];
    bool seat_bot[2] = {false, false};  // the seat's account is a bot
    std::string to_move;                // correspondence: "silver" | "bronze"; else ""
    std::int64_t move_by = 0;
};

class SocialDb {
  public:
    explicit SocialDb(std::unique_ptr<SideDb> db) : db_(std::move(db)) {}

    // Keeps `n` (its id and read_ms are the store's) and answers it as kept.
    StoredNotice add(StoredNotice n);
    // The notification of `kind` about the game `code` the player was given already, if any.
    std::optional<StoredNotice> told(const std::string& player_id, const std::string& kind,
                                     const std::string& code);
    // The player's newest first, at most `limit`, only ids below `before` (0: from the newest).
    std::vector<StoredNotice> list(const std::string& player_id, int limit, std::int64_t before);
    int unread(const std::string& player_id);
    // Marks the player's notifications `ids` (every unread one when empty) read at `at_ms`.
    void mark_read(const std::string& player_id, const std::vector<std::int64_t>& ids,
                   std::int64_t at_ms);

    // The games being played with `player_id` in a seat, newest first (at most `limit`).
    std::vector<PlayingGame> playing(const std::string& player_id, int limit);

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
    // The followers who asked to be told when the player starts a game (none when the player
    // does not announce its games).
    std::vector<std::string> followers_told(const std::string& player_id);
    // Whether the player's followers are told of its games (its own setting; yes by default).
    bool announces(const std::string& player_id);
    void set_announces(const std::string& player_id, bool on);
    // Of the accounts the player follows, those connected to a node whose lease holds
    // (PostgreSQL: the nodes of a cluster write `online`); nullopt for a store one node alone
    // uses. A node knows its own connections itself.
    std::optional<std::vector<std::string>> followed_online(const std::string& player_id);
    // The public game the player is playing now (the newest), or "".
    std::string playing(const std::string& player_id);
    Screen screen(const std::string& player_id);

    // The other tables on this connection.
    MailDb& mail() { return mail_; }
    ModerationDb& moderation() { return moderation_; }
    VacationDb& vacations() { return vacations_; }
    ApiTokenDb& tokens() { return tokens_; }

  private:
    std::unique_ptr<SideDb> db_;
    MailDb mail_{*db_};
    ModerationDb moderation_{*db_};
    VacationDb vacations_{*db_};
    ApiTokenDb tokens_{*db_, moderation_};
};

std::unique_ptr<SocialDb> open_sqlite_social(const std::string& data_dir);
std::unique_ptr<SocialDb> open_pg_social(const std::string& conninfo);
// For the operator's command line: the store made or migrated first when no server runs on it.
std::unique_ptr<SocialDb> open_sqlite_social_migrating(const std::string& data_dir);
std::unique_ptr<SocialDb> open_pg_social_migrating(const std::string& conninfo);

}  // namespace tf::server
