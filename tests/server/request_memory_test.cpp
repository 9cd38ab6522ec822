// The owner's memory of a stand-in's numbered requests (server/cluster/request_memory.h): each
// number runs once and is answered once, whatever the order in which repeats, rooms that are not
// there yet and dropped rooms come.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "server/cluster/request_memory.h"

namespace tf::server::cluster_detail {

namespace {
using V = RequestMemory::Verdict;
Msg text(const std::string& s) {
    return std::make_shared<const std::string>(s);
}
}  // namespace

TEST_CASE("request memory: a repeat is dropped while the first runs, answered again after") {
    RequestMemory m;
    CHECK(m.admit(5, "r5", "g1").verdict == V::Run);
    m.start(5);
    CHECK(m.admit(5, "r5", "g1").verdict == V::Drop);
    const Msg ack = text(R"({"type":"ack","ref":"r5"})");
    CHECK(m.answer("r5", ack) == 5);
    auto again = m.admit(5, "r5", "g1");
    CHECK(again.verdict == V::Again);
    CHECK(again.answer == ack);
    CHECK(m.answer("r5", text("{}")) == 0);  // a second message naming the ref answers nothing
}

TEST_CASE("request memory: a request that found no room runs when it comes again") {
    RequestMemory m;
    REQUIRE(m.admit(3, "s", "g1").verdict == V::Run);
    m.start(3);
    m.not_run(3);
    CHECK(m.admit(3, "s", "g1").verdict == V::Run);
}

// The double execution seen in integration_cluster (scenario t, sanitizer tree): the origin
// sends a catch-up watch and then a setup while the new owner holds no room yet. Both come off
// the bus before the stand-in's strand runs either; the watch finds no room, the takeover's
// room appears, and the setup runs in it. The watch finding no room must not make the owner
// forget the setup: the origin, told `notmine` by the watch, sends the setup again, and that
// re-send must not run a second time.
TEST_CASE("request memory: a request that found no room does not make the owner forget others") {
    RequestMemory m;
    REQUIRE(m.admit(8, "t-setup", "g1").verdict == V::Run);  // queued behind the watch
    // The watch (unnumbered) runs and finds no room: BusSession::missing() forgets only the
    // request running (none has a number), where it used to forget every unanswered request
    // of the game, the setup waiting behind it included.
    m.start(8);                                              // the setup runs in the room
    CHECK(m.admit(8, "t-setup", "g1").verdict == V::Drop);   // the origin's re-send
    CHECK(m.answer("t-setup", text("ack")) == 8);            // the ack names the request
    CHECK(m.admit(8, "t-setup", "g1").verdict == V::Again);  // a later re-send: from memory
}

TEST_CASE("request memory: a dropped room forgets what it ran, not what waits to run") {
    RequestMemory m;
    REQUIRE(m.admit(1, "a", "g1").verdict == V::Run);
    REQUIRE(m.admit(2, "b", "g1").verdict == V::Run);
    REQUIRE(m.admit(3, "c", "g2").verdict == V::Run);
    m.start(1);
    m.start(3);
    m.dropped("g1");
    CHECK(m.admit(1, "a", "g1").verdict == V::Run);   // ran in the dropped room: runs again
    CHECK(m.admit(2, "b", "g1").verdict == V::Drop);  // still waits on the strand
    CHECK(m.admit(3, "c", "g2").verdict == V::Drop);  // another game's room
}

TEST_CASE("request memory: answers go to the oldest running request with the ref") {
    RequestMemory m;
    REQUIRE(m.admit(1, "x", "g1").verdict == V::Run);
    REQUIRE(m.admit(2, "x", "g1").verdict == V::Run);
    CHECK(m.answer("x", text("too early")) == 0);  // neither runs yet
    m.start(1);
    m.start(2);
    CHECK(m.answer("x", text("first")) == 1);
    CHECK(m.answer("x", text("second")) == 2);
    CHECK(m.answer("", text("none")) == 0);
}

TEST_CASE("request memory: only the last requests are remembered") {
    RequestMemory m;
    for (std::uint64_t s = 1; s <= RequestMemory::kRemembered + 1; ++s)
        REQUIRE(m.admit(s, "", "g").verdict == V::Run);
    CHECK(m.admit(1, "", "g").verdict == V::Run);  // the oldest fell out
    CHECK(m.admit(RequestMemory::kRemembered + 1, "", "g").verdict == V::Drop);
}

}  // namespace tf::server::cluster_detail
