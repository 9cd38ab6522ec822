// The cluster's Redis bus (server/cluster/bus.h) against a redis-server of each case's own, started
// on a free loopback port in a temp folder through scripts/redis-test-server.sh (named by
// TF_REDIS_TEST_SCRIPT: the server_bus test sets it; without it those cases say so and pass).
// The io_context runs on two threads, as the server's does.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/cluster/bus.h"

namespace tf::server {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

const char* redis_script() {
    return std::getenv("TF_REDIS_TEST_SCRIPT");
}

unsigned short free_port() {
    asio::io_context io;
    asio::ip::tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

// A redis-server in a temp folder of its own, stopped and removed at the end.
struct Redis {
    std::string dir;
    unsigned short port = free_port();
    Redis() {
        char tmpl[] = "/tmp/tf-redis-XXXXXX";
        REQUIRE(mkdtemp(tmpl) != nullptr);
        dir = tmpl;
    }
    ~Redis() {
        run("stop");
        std::filesystem::remove_all(dir);
    }
    bool run(const std::string& cmd) const {
        std::string line = std::string("bash '") + redis_script() + "' " + cmd + " '" + dir + "'";
        if (cmd == "start") line += " " + std::to_string(port);
        return std::system(line.c_str()) == 0;
    }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port); }
};

// The io_context on two threads until the end (then it must run out of work by itself).
struct Net {
    asio::io_context io;
    asio::executor_work_guard<asio::io_context::executor_type> guard = asio::make_work_guard(io);
    std::vector<std::thread> threads;
    Net() {
        for (int i = 0; i < 2; ++i) threads.emplace_back([this] { io.run(); });
    }
    ~Net() {
        guard.reset();
        for (auto& t : threads) t.join();
    }
};

// What the bus called, for the test thread to wait on.
struct Recorder {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::pair<std::string, std::string>> messages;
    std::vector<long> dones;
    int ups = 0, downs = 0;

    Bus::Handlers handlers() {
        Bus::Handlers h;
        h.message = [this](const std::string& ch, std::string payload) {
            update([&] { messages.emplace_back(ch, std::move(payload)); });
        };
        h.up = [this] { update([&] { ++ups; }); };
        h.down = [this] { update([&] { ++downs; }); };
        return h;
    }
    std::function<void(long)> done() {
        return [this](long n) { update([&] { dones.push_back(n); }); };
    }
    template <class F>
    void update(F f) {
        std::lock_guard<std::mutex> lk(mu);
        f();
        cv.notify_all();
    }
    template <class P>
    bool wait(P pred, std::chrono::seconds limit = 10s) {
        std::unique_lock<std::mutex> lk(mu);
        return cv.wait_for(lk, limit, pred);
    }
    template <class F>
    auto locked(F f) {
        std::lock_guard<std::mutex> lk(mu);
        return f();
    }
};

#define SKIP_WITHOUT_REDIS()                                                              \
    if (!redis_script()) {                                                                \
        MESSAGE("skipped: TF_REDIS_TEST_SCRIPT is not set (ctest's server_bus sets it)"); \
        return;                                                                           \
    }

// One message on `channel` round trip: Redis's receiver count, and the message when received.
void round_trip(Bus& bus, Recorder& rec, const std::string& channel, const std::string& payload) {
    auto [m0, d0] = rec.locked([&] { return std::pair(rec.messages.size(), rec.dones.size()); });
    bus.publish(channel, payload, rec.done());
    REQUIRE(rec.wait([&] { return rec.messages.size() == m0 + 1 && rec.dones.size() == d0 + 1; }));
    rec.locked([&] {
        CHECK(rec.dones.back() == 1);
        CHECK(rec.messages.back() == std::pair(channel, payload));
    });
}

TEST_CASE("bus: parse_redis_url") {
    std::string host;
    unsigned short port = 0;
    CHECK(parse_redis_url("redis://cache.local:7000", host, port));
    CHECK(host == "cache.local");
    CHECK(port == 7000);
    CHECK(parse_redis_url("redis://10.0.0.5", host, port));
    CHECK(host == "10.0.0.5");
    CHECK(port == 6379);
    CHECK(parse_redis_url("localhost:6380", host, port));
    CHECK(host == "localhost");
    CHECK(port == 6380);
    CHECK(parse_redis_url("redis://[::1]:6390", host, port));
    CHECK(host == "::1");
    CHECK(port == 6390);
    for (const char* bad :
         {"", "redis://", "redis://:6379", "redis://h:", "redis://h:0", "redis://h:65536",
          "redis://h:12x", "redis://h:-1", "h:+5", "redis://u:p@h:6379", "redis://h:6379/0",
          "redis://[::1", "::1:6379", "redis://h h"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_redis_url(bad, host, port));
    }
}

TEST_CASE("bus: round trip, receivers, order of 10,000, a binary payload of 1 MB") {
    SKIP_WITHOUT_REDIS();
    Redis redis;
    REQUIRE(redis.run("start"));
    Net net;
    Recorder rec;
    Bus bus(net.io, redis.url(), {"a", "bin"}, rec.handlers());
    bus.start();
    REQUIRE(rec.wait([&] { return rec.ups == 1; }));
    CHECK(bus.healthy());

    round_trip(bus, rec, "a", "hello");
    bus.publish("nobody", "x", rec.done());
    REQUIRE(rec.wait([&] { return rec.dones.size() == 2; }));
    CHECK(rec.locked([&] { return rec.dones.back(); }) == 0);

    // 10,000 in order, and their `done` in call order.
    constexpr int n = 10000;
    std::vector<int> done_order;
    for (int i = 0; i < n; ++i) {
        bus.publish("a", std::to_string(i), [&rec, &done_order, i](long r) {
            rec.update([&] {
                done_order.push_back(r == 1 ? i : -1);
                rec.dones.push_back(r);
            });
        });
    }
    REQUIRE(
        rec.wait([&] { return rec.messages.size() == 1 + n && rec.dones.size() == 2 + n; }, 30s));
    rec.locked([&] {
        int wrong = 0;
        for (int i = 0; i < n; ++i) {
            if (rec.messages[1 + i] != std::pair<std::string, std::string>("a", std::to_string(i)))
                ++wrong;
            if (done_order[i] != i) ++wrong;
        }
        CHECK(wrong == 0);
    });

    // Any bytes, NULs included.
    std::string big(1 << 20, '\0');
    for (std::size_t i = 0; i < big.size(); ++i)
        big[i] = static_cast<char>((i * 131 + i / 7) % 256);
    bus.publish("bin", big, rec.done());
    REQUIRE(rec.wait([&] { return rec.messages.size() == 2 + n && rec.dones.size() == 3 + n; }));
    rec.locked([&] {
        CHECK(rec.messages.back().first == "bin");
        bool same = rec.messages.back().second == big;
        CHECK(same);
        CHECK(rec.dones.back() == 1);
    });

    auto s = bus.stats();
    CHECK(s.published == 3 + n);
    CHECK(s.received == 2 + n);
    CHECK(s.dropped == 0);
    CHECK(s.reconnects == 0);
    CHECK(rec.locked([&] { return rec.downs; }) == 0);
}

TEST_CASE("bus: publishing while Redis is down drops, then Redis comes") {
    SKIP_WITHOUT_REDIS();
    Redis redis;  // not started yet: nothing listens on its port
    Net net;
    Recorder rec;
    Bus bus(net.io, redis.url(), {"d"}, rec.handlers());
    bus.start();
    for (int i = 0; i < 3; ++i) bus.publish("d", "lost", rec.done());
    REQUIRE(rec.wait([&] { return rec.dones.size() == 3; }));
    rec.locked([&] { CHECK(rec.dones == std::vector<long>{-1, -1, -1}); });
    CHECK(bus.stats().dropped == 3);
    CHECK_FALSE(bus.healthy());

    REQUIRE(redis.run("start"));
    REQUIRE(rec.wait([&] { return rec.ups == 1; }));
    CHECK(bus.healthy());
    round_trip(bus, rec, "d", "found");
    CHECK(rec.locked([&] { return rec.downs; }) == 0);  // nothing was lost before the first up
    CHECK(bus.stats().reconnects == 2);
}

TEST_CASE("bus: Redis killed (-9) and started again on the same port") {
    SKIP_WITHOUT_REDIS();
    Redis redis;
    REQUIRE(redis.run("start"));
    Net net;
    Recorder rec;
    Bus bus(net.io, redis.url(), {"c"}, rec.handlers());
    bus.start();
    REQUIRE(rec.wait([&] { return rec.ups == 1; }));
    round_trip(bus, rec, "c", "before");

    REQUIRE(redis.run("kill"));
    REQUIRE(rec.wait([&] { return rec.downs == 1; }));
    auto d0 = rec.locked([&] { return rec.dones.size(); });
    bus.publish("c", "while down", rec.done());
    REQUIRE(rec.wait([&] { return rec.dones.size() == d0 + 1; }));
    CHECK(rec.locked([&] { return rec.dones.back(); }) == -1);

    REQUIRE(redis.run("start"));
    REQUIRE(rec.wait([&] { return rec.ups == 2; }));
    CHECK(bus.healthy());
    round_trip(bus, rec, "c", "after");

    // Killed and started at once: the old connections are gone all the same.
    REQUIRE(redis.run("restart"));
    REQUIRE(rec.wait([&] { return rec.downs == 2 && rec.ups == 3; }));
    round_trip(bus, rec, "c", "after restart");
    CHECK(bus.stats().reconnects >= 4);
    CHECK(bus.stats().dropped >= 1);
}

TEST_CASE("bus: stop and destruction with publishes pending") {
    SKIP_WITHOUT_REDIS();
    Redis redis;
    REQUIRE(redis.run("start"));
    Net net;

    SUBCASE("stop() with 1,000 pending: no done after it returns") {
        Recorder rec;
        auto bus = std::make_unique<Bus>(net.io, redis.url(), std::vector<std::string>{"p"},
                                         rec.handlers());
        bus->start();
        REQUIRE(rec.wait([&] { return rec.ups == 1; }));
        std::string payload(10000, 'p');
        for (int i = 0; i < 1000; ++i) bus->publish("p", payload, rec.done());
        bus->stop();
        auto seen = rec.locked([&] { return std::pair(rec.dones.size(), rec.messages.size()); });
        bus->publish("p", "after stop", rec.done());
        std::this_thread::sleep_for(300ms);
        CHECK(rec.locked([&] { return std::pair(rec.dones.size(), rec.messages.size()); }) == seen);
        CHECK_FALSE(bus->healthy());
        bus.reset();
    }
    SUBCASE("the Bus destroyed by its own message handler") {
        Recorder rec;
        std::unique_ptr<Bus> bus;
        Bus::Handlers h = rec.handlers();
        h.message = [&](const std::string&, std::string) {
            rec.update([&] {
                bus.reset();
                rec.messages.emplace_back("gone", "");
            });
        };
        bus = std::make_unique<Bus>(net.io, redis.url(), std::vector<std::string>{"q"}, h);
        bus->start();
        REQUIRE(rec.wait([&] { return rec.ups == 1; }));
        // Under the lock the handler takes, so that `bus` is not reset during the loop.
        rec.locked([&] {
            for (int i = 0; i < 100; ++i) bus->publish("q", "x", rec.done());
        });
        REQUIRE(rec.wait([&] { return !rec.messages.empty(); }));
        std::this_thread::sleep_for(100ms);
        CHECK(rec.locked([&] { return rec.messages.size(); }) == 1);
    }
    SUBCASE("the Bus and then its io_context destroyed, the io_context never run") {
        asio::io_context io;
        Recorder rec;
        Bus bus(io, redis.url(), {"r"}, rec.handlers());
        bus.start();
        bus.publish("r", "never sent", rec.done());
        CHECK(rec.locked([&] { return rec.dones.size(); }) == 0);
    }
}

}  // namespace
}  // namespace tf::server
