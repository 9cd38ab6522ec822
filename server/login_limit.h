// Failed password checks (logins and password changes), counted per client address and per
// account in a sliding window: after 5 failures for one account, or 20 from one address, within
// 10 minutes, further attempts are refused (too_many_attempts) until the oldest failure leaves
// the window. A success clears the account's count. What one address can try against many
// accounts, and many addresses against one account, are both bounded. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace tf::server {

class LoginLimiter {
  public:
    using Clock = std::chrono::steady_clock;
    static constexpr int kPerAccount = 5, kPerAddress = 20;
    static constexpr Clock::duration kWindow = std::chrono::minutes(10);

    // nullopt: the attempt may go ahead; otherwise how long until it may (ms).
    std::optional<std::int64_t> wait(const std::string& address, const std::string& account,
                                     Clock::time_point now = Clock::now());
    void failed(const std::string& address, const std::string& account,
                Clock::time_point now = Clock::now());
    void succeeded(const std::string& account);

  private:
    using Times = std::deque<Clock::time_point>;
    static void prune(std::map<std::string, Times>& m, const std::string& key,
                      Clock::time_point now);
    std::mutex m_;
    std::map<std::string, Times> by_address_, by_account_;
    Clock::time_point swept_{};
};

}  // namespace tf::server
