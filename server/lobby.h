// The directory of rooms by code, the list of open public games and its subscribers.
// Everything is under one mutex that is never held while delivering to connections: the
// list is serialized once under the lock and handed out after it is released.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/participant.h"

namespace tf::server {

class Room;

class Lobby {
  public:
    // Registers a new room under a fresh short code; `make` builds it given the code.
    std::shared_ptr<Room> add(const std::function<std::shared_ptr<Room>(const std::string&)>& make);
    std::shared_ptr<Room> find(const std::string& code);
    void remove(const std::string& code);

    // Open public games: `entry` is the listing, or null to withdraw the game.
    void set_open(const std::string& code, nlohmann::json entry);
    // Sends the list now and on every change until unsubscribed.
    void subscribe(const std::shared_ptr<Participant>& p);
    void unsubscribe(const Participant* p);

    // Which live games a player holds a seat in (for welcome after a token restore).
    void seat(const std::string& player_id, const std::string& code);
    void unseat(const std::string& player_id, const std::string& code);
    std::vector<std::string> games_of(const std::string& player_id);

  private:
    Msg list_locked() const;
    void publish_locked(std::vector<std::shared_ptr<Participant>>& to, Msg& msg);

    std::mutex m_;
    std::map<std::string, std::shared_ptr<Room>> rooms_;
    std::map<std::string, nlohmann::json> open_;
    std::map<const Participant*, std::weak_ptr<Participant>> subs_;
    std::map<std::string, std::set<std::string>> seats_;
};

}  // namespace tf::server
