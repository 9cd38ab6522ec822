// A bus in memory for the cluster's in-process tests: every node of one test publishes and
// subscribes through one MemoryBus, which passes each message to the links subscribed to its
// channel, in publish order, on each link's own strand (as Redis's one subscriber connection
// per node does). A test cuts a node's link (it hears `down`, its publishes are dropped, it
// receives nothing) and mends it (`up`), or drops only what one node sends another, and counts
// what crossed.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "server/cluster/bus.h"
#include "server/cluster/cluster.h"

namespace tf::server::testing {

class MemoryBus {
  public:
    explicit MemoryBus(boost::asio::io_context& io) : io_(io) {}

    // The bus maker of node `name` (Cluster's second argument).
    BusMaker maker(const std::string& name) {
        return [this, name](std::vector<std::string> channels, BusLink::Handlers h) {
            auto link = std::make_unique<Link>(*this, name, std::move(channels), std::move(h));
            std::lock_guard lock(m_);
            links_[name] = link.get();
            return std::unique_ptr<BusLink>(std::move(link));
        };
    }

    // Node `name`'s link goes down (it is told), or comes back (told `up`, as after a Redis
    // reconnect).
    void cut(const std::string& name) { set_cut(name, true); }
    void mend(const std::string& name) { set_cut(name, false); }
    // What `from` publishes on `channel` is lost (both links stay up), or passes again.
    void drop(const std::string& from, const std::string& channel, bool on = true) {
        std::lock_guard lock(m_);
        if (on)
            dropped_.insert({from, channel});
        else
            dropped_.erase({from, channel});
    }
    // Messages `from` published on `channel` that reached a subscriber.
    int carried(const std::string& from, const std::string& channel) {
        std::lock_guard lock(m_);
        return carried_[{from, channel}];
    }

  private:
    class Link : public BusLink {
      public:
        Link(MemoryBus& bus, std::string name, std::vector<std::string> channels, Handlers h)
            : bus_(bus),
              name_(std::move(name)),
              channels_(channels.begin(), channels.end()),
              h_(std::move(h)),
              strand_(boost::asio::make_strand(bus.io_)) {}
        // Stopped by its cluster before: the bus may be gone by now (a cluster's last owner
        // can be a handler that the io_context destroys after the test's bus).
        ~Link() override {
            if (!stopped_) stop();
        }
        void start() override {
            {
                std::lock_guard lock(bus_.m_);
                up_ = true;
            }
            boost::asio::post(strand_, [h = h_] {
                if (h.up) h.up();
            });
        }
        void stop() override {
            std::lock_guard lock(bus_.m_);
            if (bus_.links_[name_] == this) bus_.links_.erase(name_);
            up_ = false;
            stopped_ = true;
        }
        void publish(std::string channel, std::string payload,
                     std::function<void(long)> done) override {
            long receivers = -1;
            {
                std::lock_guard lock(bus_.m_);
                if (up_ && !stopped_) {
                    receivers = 0;
                    ++stats_.published;
                    if (!bus_.dropped_.count({name_, channel}))
                        for (auto& [name, link] : bus_.links_)
                            if (link->up_ && link->channels_.count(channel)) {
                                ++receivers;
                                ++bus_.carried_[{name_, channel}];
                                ++link->stats_.received;
                                boost::asio::post(link->strand_, [h = link->h_, channel, payload] {
                                    if (h.message) h.message(channel, payload);
                                });
                            }
                } else {
                    ++stats_.dropped;
                }
            }
            if (done) boost::asio::post(strand_, [done, receivers] { done(receivers); });
        }
        bool healthy() const override {
            std::lock_guard lock(bus_.m_);
            return up_;
        }
        Stats stats() const override {
            std::lock_guard lock(bus_.m_);
            return stats_;
        }

        MemoryBus& bus_;
        const std::string name_;
        const std::set<std::string> channels_;
        const Handlers h_;
        boost::asio::strand<boost::asio::io_context::executor_type> strand_;
        bool up_ = false, stopped_ = false;  // under bus_.m_
        Stats stats_;
    };

    void set_cut(const std::string& name, bool cut) {
        std::lock_guard lock(m_);
        auto it = links_.find(name);
        if (it == links_.end() || it->second->up_ == !cut) return;
        Link* link = it->second;
        link->up_ = !cut;
        if (!cut) ++link->stats_.reconnects;
        boost::asio::post(link->strand_, [h = link->h_, cut] {
            if (cut && h.down) h.down();
            if (!cut && h.up) h.up();
        });
    }

    boost::asio::io_context& io_;
    mutable std::mutex m_;
    std::map<std::string, Link*> links_;
    std::set<std::pair<std::string, std::string>> dropped_;
    std::map<std::pair<std::string, std::string>, int> carried_;
};

}  // namespace tf::server::testing
