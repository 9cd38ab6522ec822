// The thread of a side service (puzzles, notifications): it owns the service's side connection
// (side_db.h; opened on first use, opened again after a fault) and runs the service's jobs one
// at a time, off the network threads, behind a bounded queue so that a flood is refused instead
// of queued for ever.
#pragma once

#include <pthread.h>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <functional>
#include <memory>

#include "server/store/store.h"

namespace tf::server {

template <class Db>
class SideThread {
  public:
    using Open = std::function<std::unique_ptr<Db>()>;
    // `name`: the thread's, as `top -H` shows it (15 characters at most).
    SideThread(Open open, int max_queued, const char* name)
        : open_(std::move(open)), max_queued_(max_queued) {
        boost::asio::post(pool_, [name] { pthread_setname_np(pthread_self(), name); });
    }
    ~SideThread() { pool_.join(); }
    SideThread(const SideThread&) = delete;
    SideThread& operator=(const SideThread&) = delete;

    // Runs `job` on the thread with the database; `then` runs on `ex` with its value, or the
    // error it threw (Read::fault for the database's trouble). False, and nothing queued, when
    // `max_queued` jobs are waiting already (`bounded`: a request's; a job of the server's own
    // always queues).
    template <class T>
    bool run(std::function<T(Db&)> job, Store::Executor ex, std::function<void(Read<T>)> then,
             bool bounded = true) {
        if (queued_.fetch_add(1) >= max_queued_ && bounded) {
            --queued_;
            return false;
        }
        boost::asio::post(
            pool_, [this, job = std::move(job), ex, then = std::move(then)]() mutable {
                Read<T> r;
                try {
                    r.value.emplace(job(db()));
                } catch (const StoreError& e) {
                    r.error = e.what();
                    r.fault = e.fault;
                    if (e.fault) db_.reset();
                } catch (const std::exception& e) {
                    r.error = e.what();
                    r.fault = true;
                }
                --queued_;
                if (!then) return;
                boost::asio::post(ex, [then = std::move(then), r = std::move(r)]() mutable {
                    then(std::move(r));
                });
            });
        return true;
    }

  private:
    Db& db() {
        if (!db_) db_ = open_();
        return *db_;
    }
    Open open_;
    const int max_queued_;
    std::unique_ptr<Db> db_;  // the thread's only
    std::atomic<int> queued_{0};
    boost::asio::thread_pool pool_{1};  // last: joined first
};

}  // namespace tf::server
