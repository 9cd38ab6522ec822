// Who is where: the unfinished games each player holds a seat in (for `welcome` after a token
// restore and the --max-games limit) and the connections of each player (a player may use
// several; a server shutdown notice goes to all). Rooms tell it about seats; sessions about
// connections. Thread-safe (one mutex), never calls out while holding it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "server/participant.h"

namespace tf::server {

class Room;

// A connection as the lobby sees it: a participant that can also be told it now holds a seat
// in a room it did not ask for by code (quick match), so that it leaves the room on close.
class Member : public Participant {
  public:
    // Thread-safe.
    virtual void adopt(const std::shared_ptr<Room>& room) = 0;
    // Thread-safe: ends the connection after its queued messages (its player logged out
    // everywhere, or changed the password).
    virtual void end(std::string reason) = 0;
};

class PlayerIndex {
  public:
    void seat(const std::string& player_id, const std::string& code);
    void unseat(const std::string& player_id, const std::string& code);
    std::vector<std::string> games_of(const std::string& player_id);

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
    std::map<std::string, std::map<const Member*, std::weak_ptr<Member>>> conns_;
};

}  // namespace tf::server
