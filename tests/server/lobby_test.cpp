// The lobby's quick match with fake connections (Member): pools, idempotence, no self-pairing,
// cancel, and withdrawal when the player's last connection closes.
#include <doctest/doctest.h>

#include "server/lobby.h"

namespace tf::server {
namespace {

struct FakeMember : Member {
    void deliver(Msg) override {}
    void adopt(const std::shared_ptr<Room>&) override {}
};

}  // namespace

TEST_CASE("lobby: quick match pairs two players of one pool, once") {
    Lobby lobby;
    Player ann{"p-ann", "ann"}, bob{"p-bob", "bob"}, cat{"p-cat", "cat"};
    auto a1 = std::make_shared<FakeMember>(), a2 = std::make_shared<FakeMember>();
    auto b = std::make_shared<FakeMember>(), c = std::make_shared<FakeMember>();
    lobby.connected(ann.id, a1);
    lobby.connected(ann.id, a2);
    lobby.connected(bob.id, b);
    lobby.connected(cat.id, c);

    CHECK(!lobby.quick_match(ann, "blitz", a1));
    CHECK(!lobby.quick_match(ann, "blitz", a1));  // idempotent
    CHECK(!lobby.quick_match(ann, "blitz", a2));  // same player, other connection: replaces
    CHECK(!lobby.quick_match(cat, "bullet", c));  // other pool
    auto m = lobby.quick_match(bob, "blitz", b);
    REQUIRE(m);
    CHECK(m->player.id == ann.id);
    CHECK(m->who.lock() == a2);  // told on the connection that asked last
    // Ann was taken once: the pool is empty now.
    CHECK(!lobby.quick_match(bob, "blitz", b));
    CHECK(lobby.withdraw(bob.id));
    CHECK(!lobby.withdraw(bob.id));
}

TEST_CASE("lobby: a request moves to another connection, dies with the last one") {
    Lobby lobby;
    Player ann{"p-ann", "ann"}, bob{"p-bob", "bob"};
    auto a1 = std::make_shared<FakeMember>(), a2 = std::make_shared<FakeMember>();
    auto b = std::make_shared<FakeMember>();
    lobby.connected(ann.id, a1);
    lobby.connected(ann.id, a2);
    lobby.connected(bob.id, b);

    CHECK(!lobby.quick_match(ann, "k", a1));
    lobby.disconnected(ann.id, a1.get());
    auto m = lobby.quick_match(bob, "k", b);
    REQUIRE(m);
    CHECK(m->who.lock() == a2);

    CHECK(!lobby.quick_match(ann, "k", a2));
    lobby.disconnected(ann.id, a2.get());    // the last one
    CHECK(!lobby.quick_match(bob, "k", b));  // waits: nobody to pair with
}

}  // namespace tf::server
