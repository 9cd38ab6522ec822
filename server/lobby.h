// The directory of rooms by code, the list of open public games, the list of live games,
// quick-match requests and the connections of each player. Everything is under one mutex that
// is never held while delivering to connections: lists are serialized once under the lock and
// handed out after it is released.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "proto/messages.h"
#include "server/participant.h"

namespace tf::server {

class Room;

// A connection as the lobby sees it: a participant that can also be told it now holds a seat
// in a room it did not ask for by code (quick match), so that it leaves the room on close.
class Member : public Participant {
  public:
    // Thread-safe.
    virtual void adopt(const std::shared_ptr<Room>& room) = 0;
};

// A waiting quick-match request. `key` identifies the pool (time control and variant).
struct Seek {
    Player player;
    std::string key;
    std::weak_ptr<Member> who;  // the connection told about the match
};

class Lobby {
  public:
    // Registers a new room under a fresh short code; `make` builds it given the code. Null when
    // no free code could be found (the store cannot say which codes are taken).
    std::shared_ptr<Room> add(const std::function<std::shared_ptr<Room>(const std::string&)>& make);
    // A restored room under its stored code.
    void insert(const std::string& code, std::shared_ptr<Room> room);
    // Most games in one lobby or live list message; set once before serving.
    std::size_t list_limit = 100;
    // Codes used by games no longer in memory (the store's); set once before serving.
    std::function<bool(const std::string&)> code_taken;
    std::shared_ptr<Room> find(const std::string& code);
    void remove(const std::string& code);

    // Open public games: `entry` is the listing, or nullopt to withdraw the game.
    void set_open(const std::string& code, std::optional<proto::OpenGame> entry);
    // Sends the list now and on every change until unsubscribed.
    void subscribe(const std::shared_ptr<Participant>& p);
    // Ends both the open-games and the live-games subscriptions of `p`.
    void unsubscribe(const Participant* p);

    // Live games: `entry` is the listing, or nullopt when the game ended. `urgent` publishes at
    // once; other changes (turns) are coalesced to one broadcast per live interval: when one is
    // held back, the time by which flush_live() must be called is returned (the room's timer
    // calls it, so a list never stays behind a game that pauses).
    using TimePoint = std::chrono::steady_clock::time_point;
    std::optional<TimePoint> set_live(const std::string& code, std::optional<proto::LiveGame> entry,
                                      bool urgent);
    // Publishes the live list if a change was held back and the interval is over.
    void flush_live();
    // Sends the live list now and its changes until unsubscribed. The first subscriber after a
    // time without any also asks every live room to refresh its entry (Room::refresh_live).
    void subscribe_live(const std::shared_ptr<Participant>& p);
    // Whether the live list has subscribers: while it has none, a room does not rebuild its
    // entry for every turn (that cost more than the turn's own event).
    bool live_watched() const { return live_watched_.load(); }
    void set_live_interval(std::chrono::milliseconds ms);

    // Which live games a player holds a seat in (for welcome after a token restore).
    void seat(const std::string& player_id, const std::string& code);
    void unseat(const std::string& player_id, const std::string& code);
    std::vector<std::string> games_of(const std::string& player_id);

    // Connections per player (a player may use several): quick-match requests die with the
    // last one.
    void connected(const std::string& player_id, const std::shared_ptr<Member>& who);
    void disconnected(const std::string& player_id, const Member* who);

    // Quick match: pairs `p` with the oldest waiting request of another player in the same
    // pool and returns it (removed), or files (or replaces) p's own request and returns null.
    // A player has at most one request.
    std::optional<Seek> quick_match(const Player& p, const std::string& key,
                                    const std::shared_ptr<Member>& who);
    // Withdraws p's request; false when there was none.
    bool withdraw(const std::string& player_id);

    // Games paused by a store failure (Room::suspend), for the history API.
    void set_suspended(const std::string& code, bool suspended);
    bool is_suspended(const std::string& code);

    // Hands `m` to every connection of every player (server shutdown).
    void notify_all(const Msg& m);
    struct Counts {
        std::size_t players = 0, open_games = 0, live_games = 0, rooms = 0, seeks = 0;
    };
    Counts counts();

  private:
    using Subs = std::map<const Participant*, std::weak_ptr<Participant>>;
    Msg list_locked() const;
    Msg live_locked() const;
    static void collect(Subs& subs, std::vector<std::shared_ptr<Participant>>& to);
    void publish_locked(std::vector<std::shared_ptr<Participant>>& to, Msg& msg);
    void publish_live_locked(std::chrono::steady_clock::time_point now,
                             std::vector<std::shared_ptr<Participant>>& to, Msg& msg);

    std::mutex m_;
    std::map<std::string, std::shared_ptr<Room>> rooms_;
    std::map<std::string, proto::OpenGame> open_;
    Subs subs_;
    std::map<std::string, std::set<std::string>> seats_;

    std::map<std::string, proto::LiveGame> live_;
    Subs live_subs_;
    std::atomic<bool> live_watched_{false};  // !live_subs_.empty(), readable without m_
    std::chrono::milliseconds live_interval_{1000};
    std::chrono::steady_clock::time_point live_sent_{};
    bool live_dirty_ = false;  // a change not yet published

    std::map<std::string, std::map<const Member*, std::weak_ptr<Member>>> conns_;
    std::vector<Seek> seeks_;  // oldest first, at most one per player
    std::set<std::string> suspended_;
};

}  // namespace tf::server
