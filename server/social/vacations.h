// Who is on vacation (PROTOCOL.md "Vacation"), as this node last read it from the store: the
// vacations table (server/store/vacation_db.cpp) is the truth, shared by every node. The book
// reads it at start, every --vacation-poll-seconds and at once after a change made here; each
// player whose vacation began or ended since the last read is handed to `changed` (the rooms of
// its correspondence games on this node then stop or start its clock). The same read ends the
// vacations whose yearly budget ran out. A message missed or a node restarted costs at most one
// poll: the next read finds the table as it is.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "server/social/social_service.h"

namespace tf::server {

class Vacations : public std::enable_shared_from_this<Vacations> {
  public:
    using Changed = std::function<void(const std::string& player_id)>;
    // `budget_ms`: the time of vacation an account has a calendar year, in days of `day_ms`.
    // `known` runs once, after the first read: until then on() knows nothing, and every room is to
    // look again.
    Vacations(SocialService& svc, Store::Executor ex, std::chrono::milliseconds poll,
              std::int64_t budget_ms, double day_ms, Changed changed, std::function<void()> known);

    void start() { poll(); }  // the first read at once, then one every poll
    void stop();
    // Reads again now (after a change on this node), besides the regular reads.
    void poll_now();
    // Whether the player was on vacation at the last read (any thread); nullopt before the
    // first.
    std::optional<bool> on(const std::string& player_id) const;
    std::int64_t budget_ms() const { return budget_ms_; }
    double day_ms() const { return day_ms_; }  // the days the budget is counted in

  private:
    void poll();
    void read();
    void got(std::set<std::string> now_on);

    SocialService& svc_;
    Store::Executor ex_;
    boost::asio::steady_timer timer_;
    std::chrono::milliseconds every_;
    std::int64_t budget_ms_;
    double day_ms_;
    Changed changed_;
    std::function<void()> known_;
    bool reading_ = false, again_ = false, stopped_ = false;  // on ex_
    mutable std::mutex m_;
    std::set<std::string> on_;
    bool read_once_ = false;
};

}  // namespace tf::server
