#include "server/login_limit.h"

#include <algorithm>
#include <vector>

namespace tf::server {

void LoginLimiter::prune(std::map<std::string, Times>& m, const std::string& key,
                         Clock::time_point now) {
    auto it = m.find(key);
    if (it == m.end()) return;
    while (!it->second.empty() && now - it->second.front() >= kWindow) it->second.pop_front();
    if (it->second.empty()) m.erase(it);
}

std::optional<std::int64_t> LoginLimiter::wait(const std::string& address,
                                               const std::string& account, Clock::time_point now) {
    std::lock_guard lock(m_);
    // Now and then, everything that left the window goes (an address that tried once and
    // never again does not stay).
    if (now - swept_ >= kWindow) {
        swept_ = now;
        for (auto* m : {&by_address_, &by_account_}) {
            std::vector<std::string> keys;
            for (const auto& [k, t] : *m) keys.push_back(k);
            for (const auto& k : keys) prune(*m, k, now);
        }
    }
    prune(by_address_, address, now);
    prune(by_account_, account, now);
    std::optional<Clock::time_point> until;
    auto check = [&](std::map<std::string, Times>& m, const std::string& key, int limit) {
        auto it = m.find(key);
        if (it == m.end() || int(it->second.size()) < limit) return;
        const auto free_at = it->second[it->second.size() - std::size_t(limit)] + kWindow;
        until = until ? std::max(*until, free_at) : free_at;
    };
    check(by_address_, address, kPerAddress);
    check(by_account_, account, kPerAccount);
    if (!until) return std::nullopt;
    return std::chrono::duration_cast<std::chrono::milliseconds>(*until - now).count() + 1;
}

void LoginLimiter::failed(const std::string& address, const std::string& account,
                          Clock::time_point now) {
    std::lock_guard lock(m_);
    by_address_[address].push_back(now);
    by_account_[account].push_back(now);
}

void LoginLimiter::succeeded(const std::string& account) {
    std::lock_guard lock(m_);
    by_account_.erase(account);
}

}  // namespace tf::server
