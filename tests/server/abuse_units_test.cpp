// The pure parts of the public-internet limits (issue 31): who a client is behind a proxy
// (server/net/client_address.h), the login limits (server/accounts/login_limit.h), new passwords
// (server/accounts/password_policy.h), guests' names (server/accounts/display_name.h), the
// open-game places (server/lobby/player_index.h) and the lobby's order and pace
// (server/lobby/listings.h).
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "server/accounts/display_name.h"
#include "server/accounts/house_bots.h"
#include "server/accounts/login_limit.h"
#include "server/accounts/password_policy.h"
#include "server/base/secrets.h"
#include "server/lobby/listings.h"
#include "server/lobby/player_index.h"
#include "server/net/client_address.h"
#include "server/net/conn_limit.h"

namespace tf::server {
namespace {

namespace ip = boost::asio::ip;
using namespace std::chrono_literals;

ip::address addr(const char* a) {
    return ip::make_address(a);
}

TrustedProxies trusted(std::vector<std::string> list) {
    std::string error;
    auto t = TrustedProxies::parse(list, error);
    REQUIRE_MESSAGE(t, error);
    return *t;
}

struct Sink : Participant {
    std::vector<std::string> got;
    void deliver(Msg m) override { got.push_back(*m); }
};

}  // namespace

TEST_CASE("client address: trusted proxies, CIDR blocks and mapped addresses") {
    auto t = trusted({"10.0.0.0/8", "192.0.2.7", "fd00::/8", "::1"});
    CHECK(t.contains(addr("10.200.3.4")));
    CHECK(t.contains(addr("192.0.2.7")));
    CHECK(t.contains(addr("::ffff:192.0.2.7")));  // IPv4-mapped
    CHECK(!t.contains(addr("192.0.2.8")));
    CHECK(!t.contains(addr("11.0.0.1")));
    CHECK(t.contains(addr("fd12:3456::1")));
    CHECK(t.contains(addr("::1")));
    CHECK(!t.contains(addr("fe80::1")));
    std::string error;
    CHECK(!TrustedProxies::parse({"10.0.0.0/33"}, error));
    CHECK(!TrustedProxies::parse({"not-an-address"}, error));
    CHECK(error.find("not-an-address") != std::string::npos);
    CHECK(TrustedProxies::parse({}, error)->empty());
}

TEST_CASE("client address: X-Forwarded-For is read from the right, from trusted peers only") {
    auto t = trusted({"127.0.0.1", "10.0.0.0/8"});
    // From a trusted proxy: the rightmost address that is not a trusted proxy.
    CHECK(forwarded_client(addr("127.0.0.1"), "203.0.113.5", t) == addr("203.0.113.5"));
    CHECK(forwarded_client(addr("127.0.0.1"), "1.1.1.1, 203.0.113.5, 10.1.1.1", t) ==
          addr("203.0.113.5"));  // a client's forged entry on the left is not believed
    CHECK(forwarded_client(addr("127.0.0.1"), "[2001:db8::5]:443", t) == addr("2001:db8::5"));
    CHECK(forwarded_client(addr("127.0.0.1"), "203.0.113.5:4711", t) == addr("203.0.113.5"));
    CHECK(forwarded_client(addr("127.0.0.1"), "10.0.0.2", t) == addr("10.0.0.2"));  // all trusted
    CHECK(forwarded_client(addr("127.0.0.1"), "", t) == addr("127.0.0.1"));
    CHECK(forwarded_client(addr("127.0.0.1"), "garbage", t) == addr("127.0.0.1"));
    CHECK(forwarded_client(addr("127.0.0.1"), "203.0.113.5, garbage", t) == addr("127.0.0.1"));
    // From anyone else the header is the client's own word.
    CHECK(forwarded_client(addr("198.51.100.1"), "203.0.113.5", t) == addr("198.51.100.1"));
    CHECK(forwarded_client(addr("127.0.0.1"), "203.0.113.5", TrustedProxies()) ==
          addr("127.0.0.1"));
}

TEST_CASE("client address: the PROXY protocol, v2 and v1") {
    const std::string v2 = proxy_v2_header(addr("203.0.113.5"), 4711);
    auto h = parse_proxy_header(v2 + "{\"type\":\"hello\"}\n");
    REQUIRE(h.status == ProxyHeader::Status::Done);
    CHECK(h.length == v2.size());
    CHECK(h.source == addr("203.0.113.5"));
    const std::string v6 = proxy_v2_header(addr("2001:db8::7"), 4711);
    CHECK(parse_proxy_header(v6).source == addr("2001:db8::7"));
    // Byte by byte: more is needed until the whole header is there.
    for (std::size_t n = 0; n < v2.size(); ++n)
        CHECK(parse_proxy_header(v2.substr(0, n)).status == ProxyHeader::Status::NeedMore);
    // LOCAL (a health check): done, no address.
    std::string local = v2;
    local[12] = char(0x20);
    h = parse_proxy_header(local);
    CHECK(h.status == ProxyHeader::Status::Done);
    CHECK(!h.source);
    std::string bad = v2;
    bad[12] = char(0x31);  // version 3
    CHECK(parse_proxy_header(bad).status == ProxyHeader::Status::Bad);
    std::string huge = v2.substr(0, 14) + std::string{char(0xff), char(0xff)};
    CHECK(parse_proxy_header(huge).status == ProxyHeader::Status::Bad);
    // v1
    h = parse_proxy_header("PROXY TCP4 198.51.100.9 192.0.2.1 56324 8081\r\n{}");
    REQUIRE(h.status == ProxyHeader::Status::Done);
    CHECK(h.source == addr("198.51.100.9"));
    CHECK(h.length == 46);
    CHECK(parse_proxy_header("PROXY TCP6 2001:db8::1 ::1 1 2\r\n").source == addr("2001:db8::1"));
    CHECK(!parse_proxy_header("PROXY UNKNOWN\r\n").source);
    CHECK(parse_proxy_header("PROXY TCP4 nonsense 1.2.3.4 1 2\r\n").status ==
          ProxyHeader::Status::Bad);
    CHECK(parse_proxy_header("PROXY " + std::string(200, 'x')).status == ProxyHeader::Status::Bad);
    CHECK(parse_proxy_header("PROX").status == ProxyHeader::Status::NeedMore);
    // Anything else is not a header at all.
    CHECK(parse_proxy_header("{\"type\":\"hello\"}\n").status == ProxyHeader::Status::NotProxy);
    CHECK(parse_proxy_header("\r\n").status == ProxyHeader::Status::NeedMore);  // v2's first bytes
    CHECK(parse_proxy_header("\r\nx").status == ProxyHeader::Status::NotProxy);
}

TEST_CASE("conn_limit: the total cap, and a slot moved to its client's address") {
    ConnLimiter lim(2, 3);
    ConnLimiter::Refusal why{};
    auto a = lim.acquire(addr("127.0.0.1"), false);  // a trusted proxy: not per address
    auto b = lim.acquire(addr("127.0.0.1"), false);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(lim.count(addr("127.0.0.1")) == 0);
    CHECK(a->rekey(addr("203.0.113.5")));
    CHECK(b->rekey(addr("203.0.113.5")));
    CHECK(lim.count(addr("203.0.113.5")) == 2);
    auto c = lim.acquire(addr("127.0.0.1"), false);
    REQUIRE(c);
    CHECK(!c->rekey(addr("203.0.113.5")));  // that client holds two
    CHECK(lim.count(addr("203.0.113.5")) == 2);
    CHECK(c->rekey(addr("203.0.113.6")));
    CHECK(!lim.acquire(addr("198.51.100.1"), true, &why));  // three in all
    CHECK(why == ConnLimiter::Refusal::Full);
    CHECK(b->rekey(addr("203.0.113.6")));  // moved: the old address gives its place back
    CHECK(lim.count(addr("203.0.113.5")) == 1);
    CHECK(lim.count(addr("203.0.113.6")) == 2);
    a.reset();
    CHECK(lim.total() == 2);
    CHECK(lim.acquire(addr("198.51.100.1")));
    CHECK(default_max_connections(1024) == 960);
    CHECK(default_max_connections(65536) == 61440);
    CHECK(default_max_connections(100) == 36);
    CHECK(client_key(addr("2001:db8:1:2:3:4:5:6")) == "2001:db8:1:2::/64");
    CHECK(client_key(addr("::ffff:192.0.2.1")) == "192.0.2.1");
    CHECK(client_key(std::string("192.0.2.1")) == "192.0.2.1");
}

TEST_CASE("login limits: a pair, not an account; an attacked account spares known addresses") {
    using C = LoginLimiter::Clock;
    LoginLimiter lim;
    const auto t0 = C::now();
    CHECK(!lim.begin("home", "ann", t0));
    lim.succeeded("home", "ann", t0);
    for (int i = 0; i < 5; ++i) {
        CHECK(!lim.begin("evil", "ann", t0));
        lim.failed("evil", "ann", t0);
    }
    auto r = lim.begin("evil", "ann", t0);
    REQUIRE(r);
    CHECK(r->wait_ms > 9 * 60 * 1000);
    CHECK(!lim.begin("home", "ann", t0));   // the owner is not locked out
    CHECK(!lim.begin("other", "ann", t0));  // nor a third address yet
    for (int i = 0; i < 5; ++i) lim.failed("botnet" + std::to_string(i), "ann", t0);
    CHECK(lim.begin("new", "ann", t0));    // ten failures: unknown addresses wait
    CHECK(!lim.begin("home", "ann", t0));  // a known one does not
    CHECK(!lim.begin("new", "bob", t0));   // other accounts are untouched
    CHECK(!lim.begin("new", "ann", t0 + LoginLimiter::kWindow));  // the window slides
    // Every check counts per address, successful or not.
    LoginLimiter few(3);
    for (int i = 0; i < 3; ++i) CHECK(!few.begin("x", "acct" + std::to_string(i), t0));
    CHECK(few.begin("x", "", t0));  // a registration too
    // Failures from one address across accounts: 20.
    LoginLimiter spray;
    for (int i = 0; i < 20; ++i) spray.failed("sprayer", "acct" + std::to_string(i), t0);
    CHECK(spray.begin("sprayer", "acct99", t0));
    // Successful logins of one account: 30.
    LoginLimiter loop;
    for (int i = 0; i < 30; ++i) loop.succeeded("a" + std::to_string(i), "ann", t0);
    CHECK(loop.begin("a0", "ann", t0));
}

TEST_CASE("new passwords") {
    CHECK(!password_weakness("correct horse", "ann"));
    CHECK(!password_weakness("Zx9!kQ2#", "ann"));
    CHECK(password_weakness("12345678", "ann"));
    CHECK(password_weakness("PASSWORD1", "ann"));  // common, in any letter case
    CHECK(password_weakness("        ", "ann"));
    CHECK(password_weakness("\u3000\u3000\u3000\u3000abcdefg", "ann"));  // 7 not blank
    CHECK(password_weakness("aaaaaaaaaaaa", "ann"));
    CHECK(password_weakness("abcdabcd", "ann"));  // 4 different
    CHECK(password_weakness("Annabelle", "annabelle")->find("username") != std::string::npos);
    CHECK(!password_weakness("\u00e9t\u00e9 \u00e0 Paris!", "ann"));  // été à Paris!
}

TEST_CASE("guest names") {
    std::string why;
    CHECK(clean_display_name("  ann   the  great ", why) == "ann the great");
    CHECK(clean_display_name("Zoe\u0301", why) == "Zo\u00e9");
    CHECK(clean_display_name("   ", why) == "");
    for (const char* bad : {"a\nb", "a\tb", "a\u202Eb", "a\u200Bb", "a\u2066b", "a\u2028b",
                            "a\uE000b", "x\u0301\u0302\u0303", "a\u00ADb"}) {
        INFO(bad);
        CHECK(!clean_display_name(bad, why));
        CHECK(!why.empty());
    }
    CHECK(clean_display_name("e\u0301\u0302", why));  // two marks are fine
    CHECK(name_key("\uFF21\uFF4E\uFF4E") == "ann");
    CHECK(name_key("ANN") == "ann");
    CHECK(reserved_guest_name("admin"));
    CHECK(reserved_guest_name("guest-1a2b"));
    CHECK(reserved_guest_name("guest"));
    CHECK(!reserved_guest_name("guest7"));
    CHECK(reserved_guest_name("computer (level 3)"));
    CHECK(!reserved_guest_name("bot-3"));
    CHECK(reserved_guest_name("bot"));
    CHECK(!reserved_guest_name("ann"));
    CHECK(reserved_guest_name("LEVEL3"));  // a house bot's name
    CHECK(!reserved_guest_name("level6"));
}

TEST_CASE("house bots: the marked bot accounts named for a level") {
    StoredAccount a{"p1", "Level3", kHouseBotMark, 0, true};
    CHECK(house_bot_name(3) == "Level3");
    CHECK(house_bot_level(a) == 3);
    a.username = "level5";
    CHECK(house_bot_level(a) == 5);
    a.bot = false;  // marked, not (yet) a bot: no
    CHECK(!house_bot_level(a));
    a.bot = true;
    a.pw_hash = "$argon2id$v=19$m=65536,t=2,p=1$...";  // a person's account with the name
    CHECK(!house_bot_level(a));
    a.pw_hash = kHouseBotMark;
    a.username = "Level6";
    CHECK(!house_bot_level(a));
    CHECK(!check_password("!house-bot", kHouseBotMark));  // nobody logs in as one
}

TEST_CASE("player index: open-game places per player and per address") {
    PlayerIndex idx;
    std::vector<std::uint64_t> t;
    for (int i = 0; i < 3; ++i) t.push_back(idx.reserve_open("p1", "192.0.2.1", 3, 4));
    CHECK(std::count(t.begin(), t.end(), 0u) == 0);
    bool by_address = true;
    CHECK(idx.reserve_open("p1", "192.0.2.1", 3, 4, {}, &by_address) == 0);
    CHECK(!by_address);
    CHECK(idx.reserve_open("p2", "192.0.2.1", 3, 4) != 0);  // the address's fourth
    CHECK(idx.reserve_open("p3", "192.0.2.1", 3, 4, {}, &by_address) == 0);
    CHECK(by_address);
    CHECK(idx.reserve_open("p3", "192.0.2.2", 3, 4) != 0);
    CHECK(idx.reserve_open("p4", "192.0.2.2", 3, 4, {0, 3}) == 0);  // other nodes hold three
    idx.release_open(t[0]);
    idx.release_open(t[0]);  // once only
    CHECK(idx.open_counts("p1", "192.0.2.1").player == 2);
    CHECK(idx.open_counts("p1", "192.0.2.1").address == 3);
    CHECK(idx.adopt_open("p1", "192.0.2.1") != 0);  // restored: never refused
}

TEST_CASE("listings: the lobby lists the newest first, coalesced to one message per interval") {
    boost::asio::io_context io;
    Listings l;
    l.configure(2, 1000ms, 200ms, io.get_executor());
    auto sub = std::make_shared<Sink>();
    l.subscribe_open(sub);
    REQUIRE(sub->got.size() == 1);
    auto entry = [](const std::string& code) {
        proto::OpenGame g;
        g.code = code;
        g.creator = {"p" + code, code};
        return g;
    };
    l.set_open("aaa222", entry("aaa222"));  // at once: the first change after a quiet interval
    CHECK(sub->got.size() == 2);
    l.set_open("zzz222", entry("zzz222"));
    l.set_open("mmm222", entry("mmm222"));
    l.set_open("aaa222", entry("aaa222"));  // unchanged: nothing
    CHECK(sub->got.size() == 2);            // held for the interval
    io.run_for(400ms);
    REQUIRE(sub->got.size() == 3);
    // Newest first, at most the list limit (2): mmm, zzz.
    auto lobby = nlohmann::json::parse(sub->got.back());
    REQUIRE(lobby["games"].size() == 2);
    CHECK(lobby["games"][0]["code"] == "mmm222");
    CHECK(lobby["games"][1]["code"] == "zzz222");
    l.remove("mmm222");
    io.restart();
    io.run_for(400ms);
    lobby = nlohmann::json::parse(sub->got.back());
    CHECK(lobby["games"][0]["code"] == "zzz222");
    CHECK(lobby["games"][1]["code"] == "aaa222");
}

}  // namespace tf::server
