#include "server/accounts/password_pool.h"

#include <algorithm>
#include <thread>

#include "server/base/metrics.h"

namespace tf::server {

namespace {
std::size_t cores() {
    return std::max(1u, std::thread::hardware_concurrency());
}
}  // namespace

PasswordPool::PasswordPool(int threads, int queue)
    : threads_(threads > 0 ? std::size_t(threads) : cores()),
      limit_(queue > 0 ? std::size_t(queue) : 8 * threads_),
      pool_(threads_) {}

bool PasswordPool::submit(std::function<std::function<void()>()> job) {
    std::size_t n = queued_.load();
    do {
        if (n >= limit_) {
            ++metrics().password_refusals;
            return false;
        }
    } while (!queued_.compare_exchange_weak(n, n + 1));
    boost::asio::post(pool_, [this, job = std::move(job)] {
        auto then = job();
        --queued_;
        if (then) then();
    });
    return true;
}

}  // namespace tf::server
