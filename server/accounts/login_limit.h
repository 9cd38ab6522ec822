// Limits on password checks (logins, password changes, registrations), so that nobody can guess
// passwords at scale, load the password threads without bound, or lock an account's owner out.
// Sliding windows of 10 minutes, in memory (a restart forgets them; each node counts its own):
//   - every check from one client address (successful or not): 60 (--login-checks-per-address);
//   - failures from one address, whatever the account: 20 (one address trying many accounts);
//   - failures for one account from one address: 5 (guessing one password from one place);
//   - successful checks of one account: 30 (the owner's own script logging in over and over);
//   - failures for one account from all addresses: 10. Beyond, the account is under attack from
//     many addresses: attempts are refused from addresses that have never logged in to it, but
//     not from those that have (within 30 days), so its owner keeps logging in from home while
//     the attack goes on (a "device cookie" keyed by address, OWASP's lockout advice).
// An attacker's failures thus never lock the owner out at an address the owner has used; at
// worst, during a distributed attack, the owner cannot log in from a new address. Thread-safe.
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
    static constexpr int kChecksPerAddress = 60, kFailuresPerAddress = 20, kFailuresPerPair = 5,
                         kSuccessesPerAccount = 30, kFailuresPerAccount = 10;
    static constexpr Clock::duration kWindow = std::chrono::minutes(10);
    static constexpr Clock::duration kKnownFor = std::chrono::hours(24 * 30);
    static constexpr std::size_t kKnownPerAccount = 16;

    explicit LoginLimiter(int checks_per_address = kChecksPerAddress)
        : checks_per_address_(checks_per_address) {}
    struct Refusal {
        std::int64_t wait_ms;
        const char* why;  // for the log
    };
    // Before a password check by `address` for `account` (a username key; "" for a
    // registration): nullopt, and the check is counted, or why it may not go ahead and for how
    // long.
    std::optional<Refusal> begin(const std::string& address, const std::string& account,
                                 Clock::time_point now = Clock::now());
    void failed(const std::string& address, const std::string& account,
                Clock::time_point now = Clock::now());
    void succeeded(const std::string& address, const std::string& account,
                   Clock::time_point now = Clock::now());

  private:
    using Times = std::deque<Clock::time_point>;
    using Windows = std::map<std::string, Times>;
    static void prune(Windows& m, const std::string& key, Clock::time_point now);
    // When the key's window holds `limit` entries: the time it has one fewer.
    static std::optional<Clock::time_point> full_until(Windows& m, const std::string& key,
                                                       int limit);
    bool known_locked(const std::string& account, const std::string& address,
                      Clock::time_point now);
    void sweep_locked(Clock::time_point now);
    const int checks_per_address_;
    std::mutex m_;
    Windows checks_by_address_, failures_by_address_, failures_by_pair_, successes_by_account_,
        failures_by_account_;
    // Per account: the addresses that logged in successfully, and when they last did.
    std::map<std::string, std::map<std::string, Clock::time_point>> known_;
    Clock::time_point swept_{};
};

}  // namespace tf::server
