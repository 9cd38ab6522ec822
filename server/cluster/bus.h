// The cluster's message bus (issue 18, "several nodes"): Redis pub/sub over two TCP connections
// of our own on the io_context (Redis forbids PUBLISH on a subscribed connection), a subscriber
// and a publisher. hiredis serves only as the RESP codec (bus.cpp); no hiredis or socket type
// shows here.
//
// Threading: every handler and every `done` runs on the bus's own strand of the io_context, one
// at a time; publish(), healthy(), stats() and stop() may be called from any thread.
//
// Connections: each is retried on its own after a failure (refused, end of file, read error, an
// error reply on the subscriber, no answer to the heartbeat PING for 15 s) with a backoff of
// 100 ms doubling to 2 s. `up` and `down` alternate, `up` first: `up` when both connections are
// there and the subscriber is subscribed to every channel (after start, and again after every
// outage), `down` once when either is lost after an `up`. Messages Redis sent while the
// subscriber was away are lost: `up` is where the owner catches up.
//
// Lifetime: stop() (and the destructor, which calls it) waits for a handler that is running on
// another thread to return, and no handler or `done` starts after it: a `done` still pending is
// destroyed without being called. The Bus may be destroyed from one of its own handlers, and
// with operations pending: those hold the implementation (sockets, buffers), which goes when
// the io_context has run the last of them, or is destroyed. The io_context must outlive the Bus.
// stop() must not be called while holding a lock that a handler takes (it waits for handlers).
// A Bus starts once: start() after stop() does nothing.
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tf::server {

// Parses "redis://host:port" (port default 6379; also "redis://host" and "host:port"; an IPv6
// host in brackets, "[::1]:6379"); false on bad input (no host, a port not in 1..65535, a user,
// a password or a database: "redis://u:p@h", "redis://h/0").
bool parse_redis_url(const std::string& url, std::string& host, unsigned short& port);

// What the cluster's parts need of a bus: Redis's (Bus, below), or one in memory for the
// in-process tests of the cluster (tests/server/cluster_parts_test.cpp).
class BusLink {
  public:
    struct Handlers {
        // A message on one of the subscribed channels. Called on the bus's strand, in the order
        // Redis sent them.
        std::function<void(const std::string& channel, std::string payload)> message;
        // The subscriber connection is (again) subscribed to every channel, and the publisher
        // is connected: called after the first connect and after every reconnect that ends an
        // outage (the owner then catches up what it may have missed).
        std::function<void()> up;
        // A connection was lost (called once per outage, after an `up`, on the strand).
        std::function<void()> down;
    };
    virtual ~BusLink() = default;
    // See Bus.
    virtual void start() = 0;
    virtual void stop() = 0;
    virtual void publish(std::string channel, std::string payload,
                         std::function<void(long receivers)> done = {}) = 0;
    virtual bool healthy() const = 0;
    struct Stats {
        // published: PUBLISH answered by Redis; received: messages given to `message`;
        // dropped: publishes whose `done` got (or would have got) -1; reconnects: connections
        // made again after a failure.
        std::uint64_t published = 0, received = 0, dropped = 0, reconnects = 0;
    };
    virtual Stats stats() const = 0;
};

class Bus final : public BusLink {
  public:
    // `url` as parse_redis_url takes it: a bad one is logged at start() and never connects.
    Bus(boost::asio::io_context& io, std::string url, std::vector<std::string> channels,
        Handlers h);
    ~Bus();
    Bus(const Bus&) = delete;
    Bus& operator=(const Bus&) = delete;

    void start() override;  // connects both connections; reconnects on its own with backoff
    // Closes both connections; no handler or `done` runs after it returns (see the top).
    void stop() override;
    // Thread-safe. PUBLISH on the publisher connection, pipelined, in call order. `done`
    // (optional) gets the number of receivers Redis answered, or -1 when the message could not
    // be sent (the publisher is down: dropped, not queued; or lost before Redis answered; or
    // more than 64 MiB wait to be written; or Redis answered an error); on the strand.
    void publish(std::string channel, std::string payload,
                 std::function<void(long receivers)> done = {}) override;
    bool healthy() const override;  // both connections up and subscribed (thread-safe)
    Stats stats() const override;   // thread-safe

  private:
    class Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace tf::server
