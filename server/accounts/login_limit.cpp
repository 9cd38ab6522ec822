#include "server/accounts/login_limit.h"

#include <algorithm>
#include <vector>

namespace tf::server {

namespace {
std::string pair_key(const std::string& account, const std::string& address) {
    return account + '\n' + address;
}
}  // namespace

void LoginLimiter::prune(Windows& m, const std::string& key, Clock::time_point now) {
    auto it = m.find(key);
    if (it == m.end()) return;
    while (!it->second.empty() && now - it->second.front() >= kWindow) it->second.pop_front();
    if (it->second.empty()) m.erase(it);
}

std::optional<LoginLimiter::Clock::time_point> LoginLimiter::full_until(Windows& m,
                                                                        const std::string& key,
                                                                        int limit) {
    auto it = m.find(key);
    if (it == m.end() || int(it->second.size()) < limit) return std::nullopt;
    return it->second[it->second.size() - std::size_t(limit)] + kWindow;
}

bool LoginLimiter::known_locked(const std::string& account, const std::string& address,
                                Clock::time_point now) {
    auto a = known_.find(account);
    if (a == known_.end()) return false;
    auto it = a->second.find(address);
    return it != a->second.end() && now - it->second < kKnownFor;
}

// Now and then, everything that left its window goes (an address that tried once and never
// again does not stay), and addresses not seen for kKnownFor are forgotten.
void LoginLimiter::sweep_locked(Clock::time_point now) {
    if (now - swept_ < kWindow) return;
    swept_ = now;
    for (auto* m : {&checks_by_address_, &failures_by_address_, &failures_by_pair_,
                    &successes_by_account_, &failures_by_account_}) {
        std::vector<std::string> keys;
        for (const auto& [k, t] : *m) keys.push_back(k);
        for (const auto& k : keys) prune(*m, k, now);
    }
    for (auto a = known_.begin(); a != known_.end();) {
        std::erase_if(a->second, [&](const auto& e) { return now - e.second >= kKnownFor; });
        a = a->second.empty() ? known_.erase(a) : std::next(a);
    }
}

std::optional<LoginLimiter::Refusal> LoginLimiter::begin(const std::string& address,
                                                         const std::string& account,
                                                         Clock::time_point now) {
    std::lock_guard lock(m_);
    sweep_locked(now);
    const std::string pair = pair_key(account, address);
    for (auto* m : {&checks_by_address_, &failures_by_address_}) prune(*m, address, now);
    prune(failures_by_pair_, pair, now);
    prune(successes_by_account_, account, now);
    prune(failures_by_account_, account, now);
    auto refuse = [&](Clock::time_point until, const char* why) {
        return Refusal{
            std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1, why};
    };
    if (auto t = full_until(checks_by_address_, address, checks_per_address_))
        return refuse(*t, "too many password checks from the address");
    if (auto t = full_until(failures_by_address_, address, kFailuresPerAddress))
        return refuse(*t, "too many failures from the address");
    if (!account.empty()) {
        if (auto t = full_until(failures_by_pair_, pair, kFailuresPerPair))
            return refuse(*t, "too many failures for the account from the address");
        if (auto t = full_until(successes_by_account_, account, kSuccessesPerAccount))
            return refuse(*t, "too many logins to the account");
        if (!known_locked(account, address, now))
            if (auto t = full_until(failures_by_account_, account, kFailuresPerAccount))
                return refuse(*t, "the account is under attack; the address never logged in");
    }
    checks_by_address_[address].push_back(now);
    return std::nullopt;
}

void LoginLimiter::failed(const std::string& address, const std::string& account,
                          Clock::time_point now) {
    std::lock_guard lock(m_);
    failures_by_address_[address].push_back(now);
    if (account.empty()) return;
    failures_by_pair_[pair_key(account, address)].push_back(now);
    failures_by_account_[account].push_back(now);
}

void LoginLimiter::succeeded(const std::string& address, const std::string& account,
                             Clock::time_point now) {
    std::lock_guard lock(m_);
    failures_by_pair_.erase(pair_key(account, address));
    successes_by_account_[account].push_back(now);
    auto& known = known_[account];
    known[address] = now;
    if (known.size() > kKnownPerAccount)  // the longest unseen goes
        known.erase(std::min_element(known.begin(), known.end(), [](const auto& x, const auto& y) {
            return x.second < y.second;
        }));
}

}  // namespace tf::server
