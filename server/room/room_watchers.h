// Who watches a room: its subscriptions (players and spectators, each a connection), the count
// of spectators (connections whose player holds no seat: a player watching from a second
// connection is not one), kept as subscriptions change rather than scanned, its share of the
// process's spectator metric, and the pace of the players' `spectators` event: the first change
// after a quiet interval at once, later ones when the interval ends with the count of that
// moment, so a crowd arriving costs the players one message per interval and the last count
// always arrives. On the room's strand.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "server/base/participant.h"

namespace tf::server {

class Watchers {
  public:
    using Clock = std::chrono::steady_clock;
    using Who = std::weak_ptr<Participant>;
    struct Sub {
        Who who;
        std::string player_id;
    };
    using Subs = std::map<const Participant*, Sub>;
    using Seated = std::function<bool(const std::string& player_id)>;

    Watchers(Seated seated, Clock::duration interval)
        : seated_(std::move(seated)), interval_(interval) {}
    ~Watchers();
    Watchers(const Watchers&) = delete;
    Watchers& operator=(const Watchers&) = delete;

    // The subscriptions change only through these, which keep the count.
    void add(const Player& p, const Who& who);
    void remove(const Participant* who);
    Subs::iterator erase(Subs::iterator it);
    void clear();
    // After a seat was filled (its player may have been watching as a spectator).
    void recount();

    const Subs& subs() const { return subs_; }
    // Calls f(sub) for every subscription whose connection is alive; forgets the others.
    template <class F>
    void each_live(F&& f) {
        for (auto it = subs_.begin(); it != subs_.end();) {
            if (it->second.who.expired()) {
                it = erase(it);
                continue;
            }
            f(it->second);
            ++it;
        }
    }
    bool watching(const Participant* p) const { return subs_.count(p) > 0; }
    // Whether a live connection of the player watches the room.
    bool connected(const std::string& player_id) const;
    bool spectator(const Sub& s) const { return !seated_(s.player_id); }
    int spectators() const;

    // After a change: reports the count to the metrics; the count to tell the players now, if
    // any (else a change may be due(): tell it when due_now() says so).
    std::optional<int> changed(Clock::time_point now);
    std::optional<Clock::time_point> due() const { return due_; }
    std::optional<int> due_now(Clock::time_point now);

  private:
    int scan() const;
    std::optional<int> tell(Clock::time_point now);

    Seated seated_;
    Clock::duration interval_;
    Subs subs_;
    int spectators_ = 0;
    int reported_ = 0;  // to the metrics
    int told_ = 0;      // to the players
    std::optional<Clock::time_point> told_at_;
    std::optional<Clock::time_point> due_;  // a change waits for the interval to end
};

}  // namespace tf::server
