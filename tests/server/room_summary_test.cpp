// A finished game kept as a summary (server/room/room_recovery.h), over the in-memory store under
// the fault decorator: once the end is committed the state goes; a late watcher gets it back
// from the store, in order with what it sends next; a failed read answers store_failed and
// changes nothing; writes after the end still carry the result and the turns played; and a
// store that keeps nothing (--store memory) keeps the state in the room.
#include "server/base/metrics.h"
#include "server/store/faulty_store.h"
#include "server/store/memory_store.h"
#include "tests/server/room_fixture.h"

namespace tf::server {

using nlohmann::json;
using testing::Fake;
using testing::Fixture;

namespace {

// Fixture::play_opening, then bronze resigns: over at version 6 (join, 2 setups, turn, resign,
// game_over).
void play_and_resign(Fixture& f) {
    f.play_opening();
    f.room->resign(f.bob, f.b);
    f.run();
}

}  // namespace

TEST_CASE("room: a finished game is a summary once stored, and late watchers read it back") {
    FaultyStore store{std::make_unique<MemoryStore>()};
    const auto compacted = metrics().games_compacted.load();
    Fixture f(1000, &store);
    play_and_resign(f);
    json ended = f.c->last("event");
    REQUIRE(ended["kind"] == "game_over");
    CHECK(ended["version"] == 6);
    CHECK(metrics().games_compacted.load() == compacted + 1);
    const std::string result = store.inner().game("abc234")->result;

    // A newcomer's watch is read back from the store and answered; its chat, sent right
    // after, is handled after the watch (it would be refused before it).
    Player dan{"p-dan", "dan"};
    auto d = std::make_shared<Fake>();
    f.room->watch(dan, d, std::nullopt);
    f.room->chat(dan, d, "late");
    f.run();
    REQUIRE(d->got.size() == 2);
    json snap = d->got[0];
    CHECK(snap["type"] == "snapshot");
    CHECK(snap["version"] == 6);
    CHECK(snap["status"] == "over");
    CHECK(snap["record"]["turns"].size() == 1);
    CHECK(!snap["record"]["setup"]["silver"].is_null());
    CHECK(!snap["record"]["setup"]["bronze"].is_null());
    Game over = f.mirror;
    over.resign(Side::Bronze);
    CHECK(snap["state"] == state_to_json(over));
    CHECK(d->got[1]["type"] == "event");
    CHECK(d->got[1]["kind"] == "chat");
    CHECK(metrics().games_compacted.load() == compacted + 1);  // a summary again
    d->got.clear();

    // A player behind by two: the last two events, as the history had them.
    auto a2 = std::make_shared<Fake>();
    f.room->watch(f.ann, a2, 4);
    f.run();
    REQUIRE(a2->got.size() == 2);
    CHECK(a2->got[0]["kind"] == "resign");
    CHECK(a2->got[1]["kind"] == "game_over");
    CHECK(a2->got[1] == ended);

    // The store cannot be read: store_failed, and the watcher is not watching.
    Faults fail;
    fail.reads_fail = true;
    store.set(fail);
    auto e = std::make_shared<Fake>();
    Player eve{"p-eve", "eve"};
    f.room->watch(eve, e, std::nullopt);
    f.room->chat(eve, e, "hello?");
    f.run();
    REQUIRE(e->got.size() == 2);
    CHECK(e->got[0]["code"] == "store_failed");
    CHECK(e->got[1]["code"] == "not_seated");
    CHECK(metrics().games_compacted.load() == compacted + 1);
    store.set(Faults{});

    // Writes after the end keep the row's result and turns though the room has no turns now.
    f.room->rematch(f.ann, f.a, false);
    f.run();
    CHECK(f.b->last("event")["kind"] == "rematch_offer");
    auto row = store.inner().game("abc234");
    REQUIRE(row);
    CHECK(row->version == 7);
    CHECK(row->turns == 1);
    CHECK(row->result == result);
    CHECK(row->status == "over");
    CHECK(metrics().games_compacted.load() == compacted + 1);
    f.room.reset();
    f.run();
}

TEST_CASE("room: with a store that keeps nothing, a finished game keeps its state") {
    const auto compacted = metrics().games_compacted.load();
    Fixture f;  // NullStore
    play_and_resign(f);
    CHECK(f.c->last("event")["kind"] == "game_over");
    CHECK(metrics().games_compacted.load() == compacted);
    auto d = std::make_shared<Fake>();
    f.room->watch(Player{"p-dan", "dan"}, d, std::nullopt);
    f.run();
    json snap = d->last("snapshot");
    CHECK(snap["record"]["turns"].size() == 1);
}

}  // namespace tf::server
