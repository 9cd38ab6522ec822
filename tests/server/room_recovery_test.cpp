// A room and its store (server/room/room_recovery.h) without the Room: a failed creation
// dropped, a failed commit suspending the game and its fate told once the store is read, a
// node fenced off its game, the replay that rebuilds a room, and a finished game kept as a
// summary then read back whole.
#include "server/store/memory_store.h"
#include "tests/server/room_part_fixture.h"

namespace tf::server {

using nlohmann::json;
using testing::Parts;

TEST_CASE("room recovery: a game whose creation failed is dropped, with nothing to read back") {
    Parts p;
    bool reload = true;
    p.op([&] { reload = p.recovery->suspend("disk full", {}, {}, true); });
    CHECK(!reload);
    CHECK(p.core->fault.lost);
    CHECK(p.core->rec.status == proto::GameStatus::Cancelled);
    CHECK(p.core->watchers.subs().empty());
}

TEST_CASE("room recovery: a failed commit pauses the game; unreadable, its requester is in doubt") {
    Parts p;
    p.seat_and_set_up();
    p.core->watchers.add(p.cat, p.c);
    p.a->got.clear();
    p.c->got.clear();
    const auto saved = p.core->rec.version;
    p.core->fault.saved_version = saved;
    auto held = std::make_shared<const std::string>(R"({"type":"ack","ref":"t","version":4})");
    std::vector<RoomOps::Out> out{{p.a, held, false, std::string("t")}};
    bool reload = false;
    p.op([&] { reload = p.recovery->suspend("connection lost", out, {}, false); });
    CHECK(reload);
    CHECK(p.core->rec.status == proto::GameStatus::Suspended);
    REQUIRE(p.core->fault.doubt.has_value());
    CHECK(p.a->got.empty());  // nothing of the operation is sent

    Read<std::optional<GameRows>> unreadable;
    unreadable.error = "the store is down";
    p.op([&] { p.recovery->reloaded(unreadable); });
    CHECK(!p.core->fault.loaded);
    CHECK(p.core->fault.retry_at.has_value());
    auto e = p.a->last("error");
    CHECK(e["code"] == "in_doubt");
    CHECK(e["ref"] == "t");
    CHECK(p.c->last("error")["code"] == "store_failed");  // a watcher: the game is paused
    p.op([&] { CHECK(!p.recovery->try_resume()); });      // to be read back first
}

TEST_CASE("room recovery: a fenced node drops the game and sends its watchers to the owner") {
    Parts p;
    p.seat_and_set_up();
    p.op([&] { p.recovery->fenced("fenced: taken over", nullptr, false); });
    CHECK(p.core->fault.fenced);
    CHECK(p.core->fault.lost);
    CHECK(p.a->moved_codes == std::vector<std::string>{"abc234"});
    CHECK(p.b->moved_codes == std::vector<std::string>{"abc234"});
    CHECK(p.core->watchers.subs().empty());
}

TEST_CASE("room recovery: a stored game replays into a fresh room, clock and all") {
    MemoryStore mem;
    proto::TimeControl tc;
    tc.initial_ms = 60'000;
    Parts p(tc, std::nullopt, &mem);
    p.seat_and_set_up();
    p.play_turn();
    p.play_turn();
    auto rows = mem.game_rows("abc234");
    REQUIRE(rows.has_value());

    Parts q(tc);
    std::string error;
    bool ok = false;
    q.op([&] { ok = q.recovery->load(rows->row, rows->journal, error); });
    REQUIRE_MESSAGE(ok, error);
    CHECK(q.core->rec.version == p.core->rec.version);
    CHECK(q.core->rec.turns == p.core->rec.turns);
    CHECK(q.core->rec.seats[idx(Side::Bronze)]->id == "p-bob");
    CHECK(q.core->fault.saved_version == q.core->rec.version);
    CHECK(q.core->clock->running() == Side::Silver);  // two turns played
    CHECK(!q.core->history.empty());                  // a reconnection is answered from it

    rows->journal.pop_back();  // the row's version no longer matches its journal
    q.op([&] { CHECK(!q.recovery->load(rows->row, rows->journal, error)); });
    CHECK(!error.empty());
}

TEST_CASE("room recovery: a finished game is kept as a summary, then read back whole") {
    MemoryStore mem;
    Parts p(std::nullopt, std::nullopt, &mem);
    p.seat_and_set_up();
    p.play_turn();
    p.op([&] { p.play->resign(Side::Bronze, p.b, std::nullopt); });
    REQUIRE(p.core->rec.status == proto::GameStatus::Over);
    p.recovery->compact();
    CHECK(p.core->rec.summary.active);
    CHECK(p.core->history.empty());

    Read<std::optional<GameRows>> read;
    read.value = mem.game_rows("abc234");
    CHECK(p.recovery->expanded(read));
    CHECK(!p.core->rec.summary.active);
    CHECK(p.core->rec.turns.size() == 1);
    CHECK(p.core->rec.status == proto::GameStatus::Over);
}

}  // namespace tf::server
