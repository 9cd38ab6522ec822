// Quick match (server/lobby/matchmaker.h) with fake connections (Member) in the player index:
// pools, idempotence, no self-pairing, cancel, and withdrawal when the player's last connection
// closes.
#include <doctest/doctest.h>

#include "server/lobby/matchmaker.h"
#include "server/lobby/player_index.h"

namespace tf::server {
namespace {

struct FakeMember : Member {
    void deliver(Msg) override {}
    void adopt(const std::shared_ptr<Room>&) override {}
    void end(std::string, bool) override {}
};

}  // namespace

TEST_CASE("matchmaker: quick match pairs two players of one pool, once") {
    Matchmaker mm;
    PlayerIndex index;
    Player ann{"p-ann", "ann"}, bob{"p-bob", "bob"}, cat{"p-cat", "cat"};
    auto a1 = std::make_shared<FakeMember>(), a2 = std::make_shared<FakeMember>();
    auto b = std::make_shared<FakeMember>(), c = std::make_shared<FakeMember>();
    index.connected(ann.id, a1);
    index.connected(ann.id, a2);
    index.connected(bob.id, b);
    index.connected(cat.id, c);

    CHECK(!mm.pair(ann, "blitz", a1));
    CHECK(!mm.pair(ann, "blitz", a1));  // idempotent
    CHECK(!mm.pair(ann, "blitz", a2));  // same player, other connection: replaces
    CHECK(!mm.pair(cat, "bullet", c));  // other pool
    auto m = mm.pair(bob, "blitz", b);
    REQUIRE(m);
    CHECK(m->player.id == ann.id);
    CHECK(m->who.lock() == a2);  // told on the connection that asked last
    // Ann was taken once: the pool is empty now.
    CHECK(!mm.pair(bob, "blitz", b));
    CHECK(mm.withdraw(bob.id));
    CHECK(!mm.withdraw(bob.id));
}

TEST_CASE("matchmaker: a request moves to another connection, dies with the last one") {
    Matchmaker mm;
    PlayerIndex index;
    Player ann{"p-ann", "ann"}, bob{"p-bob", "bob"};
    auto a1 = std::make_shared<FakeMember>(), a2 = std::make_shared<FakeMember>();
    auto b = std::make_shared<FakeMember>();
    index.connected(ann.id, a1);
    index.connected(ann.id, a2);
    index.connected(bob.id, b);

    CHECK(!mm.pair(ann, "k", a1));
    mm.closed(ann.id, a1.get(), index.disconnected(ann.id, a1.get()));
    auto m = mm.pair(bob, "k", b);
    REQUIRE(m);
    CHECK(m->who.lock() == a2);

    CHECK(!mm.pair(ann, "k", a2));
    mm.closed(ann.id, a2.get(), index.disconnected(ann.id, a2.get()));  // the last one
    CHECK(!mm.pair(bob, "k", b));  // waits: nobody to pair with
}

TEST_CASE("matchmaker: rated requests pair within a range that widens while they wait") {
    using namespace std::chrono_literals;
    Matchmaker mm;
    Player ann{"p-ann", "ann", true}, bob{"p-bob", "bob", true}, cat{"p-cat", "cat", true};
    auto a = std::make_shared<FakeMember>(), b = std::make_shared<FakeMember>(),
         c = std::make_shared<FakeMember>();
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(Matchmaker::range(0s) == 100);
    CHECK(Matchmaker::range(4s) == 200);

    // 1500 and 1750: 250 apart, beyond both first ranges.
    CHECK_FALSE(mm.pair(ann, "blitz", a, 1500, t0));
    CHECK_FALSE(mm.pair(bob, "blitz", b, 1750, t0));
    CHECK(mm.waiting() == 2);
    CHECK_FALSE(mm.retry(ann.id, t0 + 5s));  // range 225
    // A casual request of the same key never pairs with a rated one.
    CHECK_FALSE(mm.pair(cat, "blitz", c, std::nullopt, t0 + 5s));
    mm.withdraw(cat.id);
    auto found = mm.retry(ann.id, t0 + 6s);  // range 250
    REQUIRE(found);
    CHECK(found->player.id == bob.id);
    CHECK(mm.waiting() == 0);  // both requests left the pool
    CHECK_FALSE(mm.retry(ann.id, t0 + 7s));

    // A newcomer pairs at once with a request whose range has grown to reach it.
    CHECK_FALSE(mm.pair(ann, "blitz", a, 1500, t0));
    auto at_once = mm.pair(bob, "blitz", b, 1800, t0 + 8s);  // ann's range: 300
    REQUIRE(at_once);
    CHECK(at_once->player.id == ann.id);
}

TEST_CASE("matchmaker: accounts that blocked one another are never paired") {
    Matchmaker mm;
    Player ann{"p-ann", "ann", true}, bob{"p-bob", "bob", true}, cat{"p-cat", "cat", true};
    auto a = std::make_shared<FakeMember>(), b = std::make_shared<FakeMember>();
    auto c = std::make_shared<FakeMember>();
    const auto now = std::chrono::steady_clock::now();
    // Ann blocked bob: her list names him; his is empty (either list is enough).
    CHECK(!mm.pair(ann, "blitz", a, std::nullopt, now, {"p-bob"}));
    CHECK(!mm.pair(bob, "blitz", b, std::nullopt, now));
    auto m = mm.pair(cat, "blitz", c, std::nullopt, now);
    REQUIRE(m);
    CHECK(m->player.id == ann.id);  // the oldest request cat may meet
    CHECK(mm.waiting_for(bob.id));
    // The other way round: bob's own list names ann.
    CHECK(mm.withdraw(bob.id));
    CHECK(!mm.pair(bob, "blitz", b, std::nullopt, now, {"p-ann"}));
    CHECK(!mm.pair(ann, "blitz", a, std::nullopt, now));
    CHECK(mm.waiting() == 2);
}

}  // namespace tf::server
