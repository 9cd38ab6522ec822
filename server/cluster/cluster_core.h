// The parts of the cluster (server/cluster/cluster.h) and what they share: this node's identity,
// the database thread, the bus and the strand. Internal to server/cluster*.cpp.
#pragma once

#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/cluster/bus.h"
#include "server/store/pg_schema.h"
#include "server/store/store.h"

namespace tf::server {

struct Hub;

namespace cluster_detail {

namespace asio = boost::asio;
using SteadyTime = std::chrono::steady_clock::time_point;

inline const std::string kAll = "tf:all";  // every node: lobby entries, moves, hand-overs

// A node's process is "NODE@INCARNATION" (random at each start) where connections are named:
// connection ids restart at 1 with the process, so a node restarted with the same id must not
// inherit the stand-ins of its previous life's connections.
inline std::string node_of(const std::string& id) {
    return id.substr(0, id.find('@'));
}
inline std::string channel_of(const std::string& id) {
    return "tf:node:" + node_of(id);
}

// The database thread: blocking libpq on one connection, jobs in order, reconnecting after a
// fault (the next job connects again).
class DbThread {
  public:
    using Job = std::function<void(pg::Blocking&)>;
    explicit DbThread(std::string url) : url_(std::move(url)) {}
    ~DbThread() { stop(); }
    void start(std::function<void(pg::Blocking&)> tick, std::chrono::milliseconds every) {
        tick_ = std::move(tick);
        every_ = every;
        thread_ = std::thread([this] { run(); });
    }
    void post(Job j) {
        {
            std::lock_guard lock(m_);
            jobs_.push_back(std::move(j));
        }
        cv_.notify_one();
    }
    // Runs `j` now on the caller's thread with the thread's connection (before start()).
    void now(const Job& j) { j(conn()); }
    void stop() {
        {
            std::lock_guard lock(m_);
            if (stopped_) return;
            stopped_ = true;
        }
        cv_.notify_one();
        if (thread_.joinable()) thread_.join();
    }

  private:
    pg::Blocking& conn() {
        if (!db_) db_ = std::make_unique<pg::Blocking>(url_);
        return *db_;
    }
    void run() {
        auto next_tick = std::chrono::steady_clock::now();
        for (;;) {
            Job job;
            bool tick = false;
            {
                std::unique_lock lock(m_);
                cv_.wait_until(lock, next_tick, [&] { return stopped_ || !jobs_.empty(); });
                if (stopped_) return;
                if (!jobs_.empty()) {
                    job = std::move(jobs_.front());
                    jobs_.pop_front();
                } else {
                    tick = true;
                }
            }
            if (tick) {
                next_tick = std::chrono::steady_clock::now() + every_;
                job = tick_;
            }
            // A job runs even when no connection can be made: its statements fail, and it
            // answers as for any failed statement (a route looks its owner up again; a job
            // dropped here left it waiting for an answer that never came).
            std::unique_ptr<pg::Blocking> unreachable;
            pg::Blocking* db = nullptr;
            try {
                db = &conn();
            } catch (const StoreError& e) {
                unreachable = std::make_unique<pg::Blocking>(pg::Blocking::Unreachable{e.what()});
                db = unreachable.get();
            }
            try {
                job(*db);
            } catch (const StoreError& e) {
                spdlog::warn("cluster: {}", e.what());
                if (e.fault) db_.reset();
            } catch (const std::exception& e) {
                spdlog::error("cluster: {}", e.what());
                db_.reset();
            }
        }
    }
    std::string url_;
    std::unique_ptr<pg::Blocking> db_;
    std::thread thread_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;
    bool stopped_ = false;
    std::function<void(pg::Blocking&)> tick_;
    std::chrono::milliseconds every_{1000};
};

// The ref of a server message, as serialize_server.cpp writes it ("" when none).
inline std::string ref_of(std::string_view text) {
    auto at = text.find("\"ref\":\"");
    if (at == std::string_view::npos) return {};
    auto end = text.find('"', at + 7);
    return end == std::string_view::npos ? std::string()
                                         : std::string(text.substr(at + 7, end - at - 7));
}

inline std::string num(std::int64_t v) {
    return std::to_string(v);
}

// What every part shares. `me` names this process on the bus (NODE@INCARNATION, random at each
// start): connection ids restart at 1 with the process.
struct Core {
    Core(Hub& hub, std::string node, std::string me, int lease_ms, std::string database_url,
         asio::io_context& ioc)
        : hub(hub),
          node(std::move(node)),
          me(std::move(me)),
          lease_ms(lease_ms),
          db(std::move(database_url)),
          strand(asio::make_strand(ioc)) {}
    Hub& hub;
    const std::string node;
    const std::string me;
    const int lease_ms;
    DbThread db;
    std::unique_ptr<BusLink> bus;  // set at start
    asio::strand<asio::io_context::executor_type> strand;
    void publish(const std::string& channel, std::string payload) {
        if (bus) bus->publish(channel, std::move(payload));
    }
};

}  // namespace cluster_detail
}  // namespace tf::server
