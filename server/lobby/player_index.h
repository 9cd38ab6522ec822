// Who is where: the unfinished games each player holds a seat in (for `welcome` after a token
// restore and the --max-games limit), the open games each player and each client address has
// created (the --max-open-games-per-player and -per-ip limits), and the connections of each
// player (a player may use several; a server shutdown notice goes to all). Rooms tell it about
// seats and open games; sessions about connections. Thread-safe (one mutex), never calls out
// while holding it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "server/base/participant.h"

namespace tf::server {

class Room;

// A connection as the lobby sees it: a participant that can also be told it now holds a seat
// in a room it did not ask for by code (quick match), so that it leaves the room on close.
class Member : public Participant {
  public:
    // Thread-safe.
    virtual void adopt(const std::shared_ptr<Room>& room) = 0;
    // Thread-safe: ends the connection after its queued messages (its player logged out
    // everywhere, or changed the password: error bad_token; `closed`: a moderator closed the
    // account, error account_closed).
    virtual void end(std::string reason, bool closed) = 0;
    // Thread-safe: the player's blocks (either way) changed; the connection reads them again.
    virtual void relations_changed() {}
};

// Open games of one creator and of one client address (key of server/net/conn_limit.h).
struct OpenCounts {
    int player = 0, address = 0;
};

class PlayerIndex {
  public:
    // A place for a new open game of `player` created from `address`, or 0 when the player
    // already has `max_player` open games or the address `max_address` (with `elsewhere`, those
    // other nodes hold), counting this node's places given and not yet given back. Places are
    // given back with release_open() once the game is no longer open (joined, cancelled, gone).
    // `by_address` (when given) tells which limit refused.
    std::uint64_t reserve_open(const std::string& player, const std::string& address,
                               int max_player, int max_address, OpenCounts elsewhere = {},
                               bool* by_address = nullptr);
    // A place for an open game that exists already (restored at start, claimed from another
    // node): never refused.
    std::uint64_t adopt_open(const std::string& player, const std::string& address);
    void release_open(std::uint64_t ticket);
    OpenCounts open_counts(const std::string& player, const std::string& address);

    // `correspondence`: a game of days per move, counted apart (count()).
    void seat(const std::string& player_id, const std::string& code, bool correspondence = false);
    void unseat(const std::string& player_id, const std::string& code);
    std::vector<std::string> games_of(const std::string& player_id);
    // The player's unfinished games of one kind: correspondence or the others.
    std::size_t count(const std::string& player_id, bool correspondence);

    // Called (outside the lock, in order for each player) when a player's first connection
    // comes and its last one goes: the cluster keeps presence across nodes with it.
    void on_presence(std::function<void(const std::string& player_id, bool online)> f);
    void connected(const std::string& player_id, const std::shared_ptr<Member>& who);
    // Forgets `who`; returns another live connection of the same player, if there is one.
    std::shared_ptr<Member> disconnected(const std::string& player_id, const Member* who);
    // Hands `m` to every connection of every player (server shutdown).
    void notify_all(const Msg& m);
    // The live connections of a player.
    std::vector<std::shared_ptr<Member>> connections(const std::string& player_id);
    std::size_t players();  // with at least one connection

  private:
    std::mutex m_;
    std::map<std::string, std::set<std::string>> seats_;
    // Seated correspondence games: their codes, with the players seated in each.
    std::map<std::string, std::set<std::string>> correspondence_;
    std::map<std::string, std::map<const Member*, std::weak_ptr<Member>>> conns_;
    std::function<void(const std::string&, bool)> presence_;
    std::mutex presence_m_;  // presence_ calls, in the order of the changes
    struct OpenPlace {
        std::string player, address;
    };
    std::map<std::uint64_t, OpenPlace> open_;
    std::map<std::string, int> open_by_player_, open_by_address_;
    std::uint64_t next_ticket_ = 1;
    std::uint64_t add_open_locked(const std::string& player, const std::string& address);
};

}  // namespace tf::server
