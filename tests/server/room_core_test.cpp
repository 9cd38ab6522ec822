// A room's core (server/room/room_core.h) without the Room: events journaled, kept and sent once
// committed; errors with the version shown; requests refused while the store cannot save; the
// seats' presence; the row as stored.
#include "tests/server/room_part_fixture.h"

namespace tf::server {

using testing::Parts;

namespace {

proto::ChatEv line(const std::string& text) {
    return proto::ChatEv{proto::PlayerRef{"p-ann", "ann"}, text, proto::ChatRoom::Players};
}

}  // namespace

TEST_CASE("room core: an event is journaled, kept for reconnection and sent once committed") {
    Parts p;
    p.core->watchers.add(p.cat, p.c);
    const auto before = p.core->rec.version;
    p.core->ops.run([&] {
        p.core->emit(line("hello"));
        CHECK(p.a->got.empty());  // not before the commit
    });
    p.ioc.restart();
    p.ioc.poll();
    CHECK(p.core->rec.version == before + 1);
    REQUIRE(!p.core->history.empty());
    CHECK(p.core->history.events().back().first == before + 1);
    for (auto* f : {p.a.get(), p.c.get()}) {
        auto ev = f->last("event");
        CHECK(ev["kind"] == "chat");
        CHECK(ev["version"] == before + 1);
        CHECK(ev["game"] == "abc234");
    }
    CHECK(p.core->chat.shown(true).size() == 1);  // in the snapshots' log too
}

TEST_CASE("room core: while suspended, requests are refused with the last saved version") {
    Parts p;
    p.op([&] { CHECK(!p.core->refuse_unsaved(p.a, std::string("r1"))); });
    CHECK(p.a->got.empty());
    const auto saved = p.core->rec.version;
    p.core->fault.saved_version = saved;
    p.core->rec.version += 3;  // an operation that failed counted versions nobody saw
    p.core->rec.status = proto::GameStatus::Suspended;
    p.op([&] { CHECK(p.core->refuse_unsaved(p.a, std::string("r1"))); });
    auto e = p.a->last("error");
    CHECK(e["code"] == "store_failed");
    CHECK(e["ref"] == "r1");
    CHECK(e["version"] == saved);
}

TEST_CASE("room core: a fenced room sends the requester elsewhere, a lost one refuses it") {
    Parts p;
    p.core->fault.lost = true;
    p.op([&] { CHECK(p.core->refuse_unsaved(p.b)); });
    CHECK(p.b->last("error")["code"] == "store_unavailable");
    p.core->fault.fenced = true;
    p.op([&] { CHECK(p.core->refuse_unsaved(p.b)); });
    CHECK(p.b->got.empty());
    CHECK(p.b->moved_codes == std::vector<std::string>{"abc234"});
}

TEST_CASE("room core: a seat is present while it has a connection, the computer always") {
    Parts p;
    CHECK_FALSE(p.core->bot_side());        // no computer in this game
    CHECK(p.core->present(Side::Silver));   // ann watches
    CHECK(!p.core->present(Side::Bronze));  // nobody sits there
    p.core->watchers.remove(p.a.get());
    CHECK(!p.core->present(Side::Silver));

    Parts bot(std::nullopt, 3);
    CHECK(bot.core->bot_side() == Side::Bronze);
    bot.core->rec.seats[idx(Side::Bronze)] = Player{"bot3", "Computer (level 3)"};
    CHECK(bot.core->present(Side::Bronze));
}

TEST_CASE("room core: a correspondence game's row says whose move it waits for, and until when") {
    proto::TimeControl tc;
    tc.days_per_move = 1;
    Parts p(tc);
    p.seat_and_set_up();
    auto row = p.core->stored_row();
    CHECK(row.to_move == "silver");
    REQUIRE(p.core->move_deadline());
    CHECK(row.move_by > 0);
    Parts live;  // not correspondence: neither is said
    live.seat_and_set_up();
    CHECK(live.core->stored_row().to_move.empty());
}

}  // namespace tf::server
