// The lobby's two listings (PROTOCOL.md "Open games", "Live games"): the open public games and
// the public games being played, each with its subscribers. Rooms publish their entry as it
// changes (set_open, set_live: a delta); a subscriber gets the whole list on subscribing and on
// every change (the wire carries whole lists). Open games are listed newest first (the order
// they were listed in); their changes are coalesced to one message per --lobby-interval-ms (the
// first change after a quiet interval at once, the rest when it ends), so a flood of creations
// costs a subscriber two messages a second. Nothing here calls a room. Thread-safe: one mutex,
// never held while delivering (lists are serialized once under it and handed out after).
//
// Several nodes (server/cluster/cluster.h): each node keeps the whole lists and its own
// subscribers; the changes of its own rooms are reported to the observer (on_change), which sends
// their entries over the bus, and the other nodes' entries come in with `notify` false.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "proto/messages.h"
#include "server/base/participant.h"

namespace tf::server {

class Listings {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;
    // Most games in one message, and the live list's coalescing interval; set before serving.
    // With an executor and a lobby interval, the open list's changes are coalesced (a timer on
    // it publishes the held ones); without, every change is sent at once (unit tests).
    void configure(std::size_t list_limit, std::chrono::milliseconds live_interval,
                   std::chrono::milliseconds lobby_interval = {},
                   boost::asio::any_io_executor ex = {});

    // Called (outside the lock, on the changing thread) with the code of every game whose
    // entries changed by a call with `notify` true. Set before serving.
    void on_change(std::function<void(const std::string& code)> f) { changed_ = std::move(f); }
    // A game's current entries (what on_change's observer sends).
    std::optional<proto::OpenGame> open_entry(const std::string& code);
    std::optional<proto::LiveGame> live_entry(const std::string& code);

    // Open public games: `entry` is the listing, or nullopt to withdraw the game.
    void set_open(const std::string& code, std::optional<proto::OpenGame> entry,
                  bool notify = true);
    // Live games: `entry` is the listing, or nullopt when the game ended. `urgent` publishes at
    // once; other changes (turns) are coalesced to one broadcast per live interval: when one is
    // held back, the time by which flush_live() must be called is returned (the room's timer
    // calls it, so a list never stays behind a game that pauses).
    std::optional<TimePoint> set_live(const std::string& code, std::optional<proto::LiveGame> entry,
                                      bool urgent, bool notify = true);
    // A turn's delta of a listed live game: only its progress changes (no entry rebuilt, as a
    // turn's own event is cheaper than that). Coalesced like a non-urgent set_live.
    std::optional<TimePoint> set_live_progress(const std::string& code, int turns, Side to_move,
                                               const int score[2]);
    // Publishes the live list if a change was held back and the interval is over.
    void flush_live();
    // A game leaves both lists (removed from the directory).
    void remove(const std::string& code, bool notify = true);

    // Sends the open list now and on every change until unsubscribed.
    void subscribe_open(const std::shared_ptr<Participant>& p);
    // Sends the live list now and its changes until unsubscribed.
    void subscribe_live(const std::shared_ptr<Participant>& p);
    // Ends both subscriptions of `p`.
    void unsubscribe(const Participant* p);

    struct Counts {
        std::size_t open_games = 0, live_games = 0;
    };
    Counts counts();

  private:
    using Subs = std::map<const Participant*, std::weak_ptr<Participant>>;
    Msg open_locked() const;
    Msg live_locked() const;
    static void collect(Subs& subs, std::vector<std::shared_ptr<Participant>>& to);
    void publish_live_locked(TimePoint now, std::vector<std::shared_ptr<Participant>>& to,
                             Msg& msg);
    // After a change to live_ (m_ held): publishes now, or says when the held change is due.
    std::optional<TimePoint> live_changed_locked(bool urgent,
                                                 std::vector<std::shared_ptr<Participant>>& to,
                                                 Msg& msg);

    // After a change to open_ (m_ held): publishes now, or arms the timer for the held change.
    void open_changed_locked(std::vector<std::shared_ptr<Participant>>& to, Msg& msg);
    void flush_open();
    void changed(const std::string& code, bool notify) {
        if (notify && changed_) changed_(code);
    }
    std::function<void(const std::string&)> changed_;
    std::mutex m_;
    std::size_t list_limit_ = 100;
    struct Listed {
        proto::OpenGame entry;
        std::uint64_t seq;  // order of listing: the newest first
    };
    std::map<std::string, Listed> open_;
    std::map<std::uint64_t, std::string, std::greater<>> open_order_;
    std::uint64_t next_seq_ = 0;
    Subs open_subs_;
    std::chrono::milliseconds lobby_interval_{0};
    std::optional<boost::asio::steady_timer> lobby_timer_;
    TimePoint open_sent_{};
    bool open_dirty_ = false, lobby_timer_armed_ = false;
    std::map<std::string, proto::LiveGame> live_;
    Subs live_subs_;
    std::chrono::milliseconds live_interval_{1000};
    TimePoint live_sent_{};
    bool live_dirty_ = false;  // a change not yet published
};

}  // namespace tf::server
