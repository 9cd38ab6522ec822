// A room's time and presence (server/room/room_time.h) without the Room: deadlines acted on at a
// given instant, absences begun and ended, the open game cancelled, vacations stopping the
// clocks of a correspondence game.
#include "tests/server/room_part_fixture.h"

namespace tf::server {

using nlohmann::json;
using testing::Parts;

namespace {

proto::TimeControl blitz() {
    proto::TimeControl tc;
    tc.initial_ms = 60'000;
    return tc;
}

// The kinds of the events `f` got, in order; clears its inbox.
std::vector<std::string> kinds(testing::Fake& f) {
    std::vector<std::string> out;
    for (const auto& m : f.got)
        if (m["type"] == "event") out.push_back(m["kind"]);
    f.got.clear();
    return out;
}

}  // namespace

TEST_CASE("room time: a fallen flag ends the game on time, and the seats are freed") {
    Parts p(blitz());
    p.seat_and_set_up();
    p.play_turn();  // bronze's time runs
    p.a->got.clear();
    RoomTime::Due due;
    p.op([&] { due = p.time->check_deadlines(SteadyClock::now() + std::chrono::seconds(61)); });
    CHECK(!due.judge_stall);
    CHECK(!due.retry);
    CHECK(p.core->rec.status == proto::GameStatus::Over);
    CHECK(kinds(*p.a) == std::vector<std::string>{"timeout", "game_over"});
    CHECK(p.core->due.remove.has_value());  // the retention period runs
    CHECK(!p.core->clock->running());
}

TEST_CASE("room time: what needs the Room is returned, not done") {
    Parts p(blitz());
    p.seat_and_set_up();
    p.play_turn();
    const auto now = SteadyClock::now();
    p.core->due.stall = now - std::chrono::milliseconds(1);
    RoomTime::Due due;
    p.op([&] { due = p.time->check_deadlines(now); });
    CHECK(due.judge_stall);
    CHECK(p.core->rec.status == proto::GameStatus::Playing);

    p.core->rec.status = proto::GameStatus::Suspended;
    p.core->fault.retry_at = now;
    p.op([&] { due = p.time->check_deadlines(now); });
    CHECK(due.retry);
}

TEST_CASE("room time: a seat without a connection is away until it comes back") {
    Parts p;
    p.seat_and_set_up();
    p.play_turn();
    p.a->got.clear();
    p.core->watchers.remove(p.b.get());
    p.op([&] { p.time->update_presence(); });
    const auto left = p.a->last("event");
    CHECK(left["kind"] == "player_left");
    CHECK(left["payload"]["side"] == "bronze");
    CHECK(p.core->due.away_since[idx(Side::Bronze)].has_value());
    CHECK(p.scheduled > 0);  // the award is a deadline

    p.core->watchers.add(p.bob, p.b);
    p.op([&] { p.time->update_presence(); });
    CHECK(p.a->last("event")["kind"] == "player_back");
    CHECK(!p.core->due.away_since[idx(Side::Bronze)].has_value());
}

TEST_CASE("room time: an open game cancelled leaves the lobby with its reason") {
    Parts p;
    p.op([&] { p.time->cancel_now("busy"); });
    CHECK(p.core->rec.status == proto::GameStatus::Cancelled);
    auto ev = p.a->last("event");
    CHECK(ev["kind"] == "cancel");
    CHECK(ev["payload"]["declined"] == "busy");
}

TEST_CASE("room time: a player on vacation stops the no-start limit of a correspondence game") {
    proto::TimeControl tc;
    tc.days_per_move = 3;
    Parts p(tc);
    p.op([&] { p.play->seat(p.bob, p.b, nullptr); });
    REQUIRE(p.core->due.start.has_value());
    bool away = true;
    p.services.on_vacation = [&](const std::string& id) -> std::optional<bool> {
        return id == "p-bob" && away;
    };
    p.a->got.clear();
    p.op([&] { p.time->check_vacations(); });
    auto ev = p.a->last("event");
    CHECK(ev["kind"] == "vacation");
    CHECK(ev["payload"]["side"] == "bronze");
    CHECK(p.core->rec.vacation[idx(Side::Bronze)]);
    CHECK(!p.core->due.start.has_value());
    away = false;  // back: the limit runs again
    p.op([&] { p.time->check_vacations(); });
    CHECK(!p.core->rec.vacation[idx(Side::Bronze)]);
    CHECK(p.core->due.start.has_value());
}

}  // namespace tf::server
