// The threads that hash and check passwords (Argon2id: 64 MiB and ~40 ms of a core each), off
// the network threads: one per core by default (--password-threads), behind a bounded queue
// (--password-queue). A check that finds the queue full is refused at once (`try_again`) rather
// than waiting behind a crowd: a flood of logins costs everyone else at most the queue's length
// in hashes, and the memory is bounded by the threads' count. Thread-safe.
#pragma once

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstddef>
#include <functional>

namespace tf::server {

class PasswordPool {
  public:
    // `threads` 0: one per core; `queue` 0: 8 per thread.
    PasswordPool(int threads, int queue);
    ~PasswordPool() { join(); }
    // Runs `job` on a password thread; false (and nothing runs) when `queue` jobs are waiting or
    // running already. What `job` returns (its answer, posted to a connection) runs once its
    // place in the queue is free again: a client that gets the answer and asks again at once
    // finds the place it used free.
    bool submit(std::function<std::function<void()>()> job);
    void join() { pool_.join(); }
    std::size_t threads() const { return threads_; }
    std::size_t limit() const { return limit_; }
    std::size_t queued() const { return queued_.load(); }

  private:
    std::size_t threads_, limit_;
    std::atomic<std::size_t> queued_{0};
    boost::asio::thread_pool pool_;
};

}  // namespace tf::server
