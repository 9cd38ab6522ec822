// What a failing store does to a room (docs/ARCHITECTURE.md "Failures"), with the fault-injecting
// store over the in-memory one: a failed commit suspends the game at its last saved version,
// everyone is told once, watching still works, and the game resumes by itself when writes work
// again, with nothing half-applied and the suspended time not charged to the clock.
#include <set>

#include "proto/status.h"
#include "server/store/faulty_store.h"
#include "server/store/memory_store.h"
#include "tests/server/room_fixture.h"

namespace tf::server {

using nlohmann::json;
using testing::Fake;
using testing::Fixture;

TEST_CASE("status: every game status has one name, and the names round-trip") {
    std::set<std::string_view> seen;
    for (int i = 0; i < proto::kGameStatusCount; ++i) {
        auto s = proto::GameStatus(i);
        auto name = proto::status_name(s);
        CHECK_MESSAGE(!name.empty(), "status ", i, " has no name");
        CHECK(seen.insert(name).second);
        CHECK(proto::status_from_name(name) == s);
    }
    CHECK(proto::status_name(proto::GameStatus::Suspended) == "suspended");
    CHECK(!proto::status_from_name("paused"));
}

namespace {

struct FaultFixture {
    FaultyStore store{std::make_unique<MemoryStore>()};
    Store& inner() { return store.inner(); }
    void faults(Faults::Write w, bool reads_fail = false) {
        Faults f;
        f.write = w;
        f.reads_fail = reads_fail;
        store.set(f);
    }
};

// Fixture::play_opening (version 4, bronze to move, bronze's clock running), then nobody's
// messages so far.
void start_game(Fixture& f) {
    f.play_opening();
    for (auto* p : {f.a.get(), f.b.get(), f.c.get()}) p->got.clear();
}

std::vector<std::int64_t> journal_versions(Store& s) {
    std::vector<std::int64_t> v;
    for (auto& r : s.journal("abc234")) v.push_back(r.version);
    return v;
}

}  // namespace

TEST_CASE("room: a failed commit suspends the game; it resumes when the store works again") {
    FaultFixture ff;
    Fixture f(1000, &ff.store, proto::TimeControl{300000, 0});
    start_game(f);
    CHECK(journal_versions(ff.inner()) == std::vector<std::int64_t>{1, 2, 3, 4});

    // Bronze's turn fails to commit: no ack, no event; one store_failed each, the mover's
    // with its ref; the game stays at version 4.
    ff.faults(Faults::Write::Fail);
    auto t = f.turn_msg(4);
    f.room->turn(f.bob, f.b, t);
    f.run();
    REQUIRE(f.b->got.size() == 1);
    CHECK(f.b->got[0]["code"] == "store_failed");
    CHECK(f.b->got[0]["ref"] == "t");
    CHECK(f.b->got[0]["version"] == 4);
    for (auto* p : {f.a.get(), f.c.get()}) {
        REQUIRE(p->got.size() == 1);
        CHECK(p->got[0]["code"] == "store_failed");
        CHECK(!p->got[0].contains("ref"));
    }
    CHECK(f.directory.is_suspended("abc234"));

    // Watching a suspended game answers with its last saved state (this crashed the server).
    auto d = std::make_shared<Fake>();
    f.room->watch(Player{"p-dan", "dan"}, d, std::nullopt);
    f.run();
    json snap = d->last("snapshot");
    CHECK(snap["status"] == "suspended");
    CHECK(snap["version"] == 4);
    CHECK(snap["record"]["turns"].size() == 1);
    CHECK(snap["clocks"]["running"].is_null());  // nobody's time runs
    auto e = std::make_shared<Fake>();
    f.room->watch(Player{"p-eve", "eve"}, e, 2);
    f.run();
    REQUIRE(e->got.size() == 2);  // events 3 and 4 from the reloaded history
    CHECK(e->got[1]["version"] == 4);
    e->got.clear();
    // Play and chat are refused while suspended; nothing is written.
    f.room->turn(f.bob, f.b, t);
    CHECK(f.error_of(*f.b)["code"] == "store_failed");
    f.room->chat(f.ann, f.a, "hello?");
    CHECK(f.error_of(*f.a)["code"] == "store_failed");
    CHECK(journal_versions(ff.inner()).back() == 4);

    // The store works again: every watcher gets a fresh snapshot of the saved game, playing.
    ff.faults(Faults::Write::Ok);
    f.run_until([&] { return !f.a->got.empty(); });
    for (auto* p : {f.a.get(), f.b.get(), f.c.get(), d.get(), e.get()}) {
        json s = p->last("snapshot");
        CHECK(s["status"] == "playing");
        CHECK(s["version"] == 4);
        CHECK(s["clocks"]["running"] == "bronze");
    }
    CHECK(!f.directory.is_suspended("abc234"));
    f.room->turn(f.bob, f.b, t);
    f.run();
    CHECK(f.b->got.at(0)["type"] == "ack");
    CHECK(f.b->got.at(0)["version"] == 5);
    CHECK(journal_versions(ff.inner()) == std::vector<std::int64_t>{1, 2, 3, 4, 5});
}

TEST_CASE("room: the time a game is suspended is charged to nobody") {
    FaultFixture ff;
    Fixture f(1000, &ff.store, proto::TimeControl{300000, 0});
    start_game(f);
    ff.faults(Faults::Write::Fail);
    f.room->turn(f.bob, f.b, f.turn_msg(4));
    f.run();
    f.run_for(700);  // suspended for at least this long
    ff.faults(Faults::Write::Ok);
    f.run_until([&] { return !f.b->got.empty() && f.b->got.back()["type"] == "snapshot"; });
    json s = f.b->last("snapshot");
    // Bronze's time ran from silver's turn to the failure (milliseconds here), not meanwhile.
    CHECK(s["clocks"]["bronze_ms"].get<std::int64_t>() > 300000 - 500);
}

TEST_CASE(
    "room: a commit written but reported failed (fsync) is answered as saved, never a false "
    "store_failed") {
    FaultFixture ff;
    Fixture f(1000, &ff.store);
    start_game(f);
    ff.faults(Faults::Write::Fsync);
    auto t = f.turn_msg(4);
    f.room->turn(f.bob, f.b, t);
    f.run();
    CHECK(journal_versions(ff.inner()).back() == 5);  // it did reach the store
    // Its requester learns so (ack, event), then, like everyone, that the game is paused at the
    // version the store holds (issue 30, bug 4: it was told store_failed).
    REQUIRE(f.b->got.size() == 3);
    CHECK(f.b->got[0]["type"] == "ack");
    CHECK(f.b->got[0]["ref"] == "t");
    CHECK(f.b->got[0]["version"] == 5);
    CHECK(f.b->got[1]["version"] == 5);  // the event
    REQUIRE(f.a->got.size() == 2);
    CHECK(f.a->got[0]["version"] == 5);
    for (Fake* p : {f.a.get(), f.b.get()}) {
        json e = p->last("error");
        CHECK(e["code"] == "store_failed");
        CHECK(!e.contains("ref"));
        CHECK(e["version"] == 5);
    }
    auto d = std::make_shared<Fake>();
    f.room->watch(Player{"p-dan", "dan"}, d, std::nullopt);
    f.run();
    json snap = d->last("snapshot");
    CHECK(snap["status"] == "suspended");
    CHECK(snap["version"] == 5);  // the store's truth, turn included
    ff.faults(Faults::Write::Ok);
    f.run_until([&] { return !f.a->got.empty() && f.a->got.back()["type"] == "snapshot"; });
    CHECK(f.a->last("snapshot")["version"] == 5);
    REQUIRE(!f.mirror.apply_turn(t.turn));
    auto next = f.turn_msg(5);
    f.room->turn(f.ann, f.a, next);
    f.run();
    CHECK(f.a->got.at(0)["type"] == "ack");
    CHECK(f.a->got.at(0)["version"] == 6);
}

TEST_CASE("room: while the saved game cannot be read back, watching says so; then it is shown") {
    FaultFixture ff;
    Fixture f(1000, &ff.store);
    start_game(f);
    ff.faults(Faults::Write::Fail, true);
    f.room->turn(f.bob, f.b, f.turn_msg(4));
    f.run();
    // Neither saved nor readable: the requester is told the fate is unknown, the others that
    // the game is paused.
    REQUIRE(f.b->got.size() == 1);
    CHECK(f.b->got[0]["code"] == "in_doubt");
    CHECK(f.b->got[0]["ref"] == "t");
    CHECK(f.a->last("error")["code"] == "store_failed");
    f.b->got.clear();
    auto d = std::make_shared<Fake>();
    f.room->watch(Player{"p-dan", "dan"}, d, std::nullopt);
    CHECK(f.error_of(*d)["code"] == "store_failed");
    ff.faults(Faults::Write::Fail, false);  // reads work again, writes do not
    f.run_for(600);
    f.room->watch(Player{"p-dan", "dan"}, d, std::nullopt);
    f.run();
    json snap = d->last("snapshot");
    CHECK(snap["status"] == "suspended");
    CHECK(snap["version"] == 4);
    ff.faults(Faults::Write::Ok);
    f.run_until([&] { return !d->got.empty(); });
    CHECK(d->last("snapshot")["status"] == "playing");
}

TEST_CASE("room: a game whose creation failed is dropped, and its creator is told once") {
    FaultFixture ff;
    ff.faults(Faults::Write::Fail);
    Fixture f(1000, &ff.store);
    REQUIRE(f.a->got.size() == 1);
    CHECK(f.a->got[0]["code"] == "store_unavailable");
    CHECK(!ff.inner().game("abc234"));
    f.room->join(f.bob, f.b);
    CHECK(f.error_of(*f.b)["code"] == "store_unavailable");
}

}  // namespace tf::server
