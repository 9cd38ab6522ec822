// Connections per client address (server/net/conn_limit.h): counting, giving places back,
// address keys (IPv4-mapped IPv6 as IPv4, IPv6 per /64), no limit at 0.
#include "server/net/conn_limit.h"

#include <doctest/doctest.h>

#include <vector>

namespace tf::server {

namespace ip = boost::asio::ip;

TEST_CASE("conn_limit counts per address and gives places back") {
    ConnLimiter lim(2);
    auto a = ip::make_address("192.0.2.1"), b = ip::make_address("192.0.2.2");
    std::vector<ConnLimiter::Slot> held;
    for (int i = 0; i < 2; ++i) {
        auto s = lim.acquire(a);
        REQUIRE(s);
        held.push_back(std::move(*s));
    }
    CHECK(!lim.acquire(a));  // full
    CHECK(lim.acquire(b));   // another address has its own places (released at once)
    CHECK(lim.count(b) == 0);
    CHECK(lim.count(a) == 2);
    held.pop_back();  // a connection ends
    CHECK(lim.count(a) == 1);
    auto again = lim.acquire(a);
    CHECK(again);
    ConnLimiter::Slot moved = std::move(*again);  // a move keeps the one place
    CHECK(lim.count(a) == 2);
    moved = ConnLimiter::Slot();  // assignment gives the old place back
    CHECK(lim.count(a) == 1);
    held.clear();
    CHECK(lim.count(a) == 0);
}

TEST_CASE("conn_limit address keys") {
    ConnLimiter lim(1);
    auto v4 = lim.acquire(ip::make_address("198.51.100.7"));
    REQUIRE(v4);
    CHECK(!lim.acquire(ip::make_address("::ffff:198.51.100.7")));  // the same client
    auto v6 = lim.acquire(ip::make_address("2001:db8:1:2::1"));
    REQUIRE(v6);
    CHECK(!lim.acquire(ip::make_address("2001:db8:1:2:ffff::9")));  // same /64
    CHECK(lim.acquire(ip::make_address("2001:db8:1:3::1")));        // another /64
}

TEST_CASE("conn_limit 0 means no limit") {
    ConnLimiter lim(0);
    std::vector<ConnLimiter::Slot> held;
    for (int i = 0; i < 1000; ++i) {
        auto s = lim.acquire(ip::make_address("127.0.0.1"));
        REQUIRE(s);
        held.push_back(std::move(*s));
    }
    CHECK(lim.count(ip::make_address("127.0.0.1")) == 0);  // nothing counted
}

}  // namespace tf::server
