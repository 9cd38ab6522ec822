// What the players do at the table (server/room/room_play.h) without the Room: the open seat
// taken, a turn pressing the clock, offers and their answers, a takeback giving the turn back,
// the spectators' own chat room.
#include "tests/server/room_part_fixture.h"

namespace tf::server {

using nlohmann::json;
using testing::Parts;

TEST_CASE("room play: taking the seat starts the game and gives the joiner its snapshot") {
    Parts p;
    p.op([&] { p.play->seat(p.bob, p.b, nullptr); });
    CHECK(p.core->rec.status == proto::GameStatus::Playing);
    CHECK(p.core->rec.seats[idx(Side::Bronze)]->id == "p-bob");
    CHECK(p.core->due.start.has_value());  // the no-start limit
    auto snap = p.b->last("snapshot");
    CHECK(snap["status"] == "playing");
    CHECK(p.a->last("event")["kind"] == "join");
}

TEST_CASE("room play: a turn is acked before its event, and presses the clock") {
    proto::TimeControl tc;
    tc.initial_ms = 60'000;
    tc.increment_ms = 2'000;
    Parts p(tc);
    p.seat_and_set_up();
    p.play_turn();  // silver's first: bronze's time starts
    REQUIRE(p.core->clock->running() == Side::Bronze);
    CHECK(!p.core->due.start.has_value());
    p.a->got.clear();
    p.b->got.clear();
    p.play_turn();  // bronze's: pressed, the increment added
    CHECK(p.core->clock->running() == Side::Silver);
    REQUIRE(p.b->got.size() == 2);
    CHECK(p.b->got[0]["type"] == "ack");
    CHECK(p.b->got[0]["ref"] == "t");
    CHECK(p.b->got[1]["kind"] == "turn");
    CHECK(p.b->got[0]["version"] == p.b->got[1]["version"]);
    CHECK(p.core->clock->reading(SteadyClock::now()).bronze_ms > 60'000);
}

TEST_CASE("room play: a draw offered and accepted ends the game; one declined stands no more") {
    Parts p;
    p.seat_and_set_up();
    p.play_turn();
    p.op([&] { p.play->draw(Side::Bronze, p.b, OfferAct::Offer, std::nullopt); });
    CHECK(p.core->rec.offers.draw == Side::Bronze);
    p.op([&] { p.play->draw(Side::Silver, p.a, OfferAct::Decline, std::nullopt); });
    CHECK(!p.core->rec.offers.draw);
    // Once a turn each: bronze may not offer again before its next turn.
    p.b->got.clear();
    p.op([&] { p.play->draw(Side::Bronze, p.b, OfferAct::Offer, std::nullopt); });
    CHECK(p.b->last("error")["code"] == "draw_pending");
    p.play_turn();  // bronze
    p.op([&] { p.play->draw(Side::Bronze, p.b, OfferAct::Offer, std::string("d")); });
    p.op([&] { p.play->draw(Side::Silver, p.a, OfferAct::Accept, std::nullopt); });
    CHECK(p.core->rec.status == proto::GameStatus::Over);
    CHECK(p.core->rec.result().winner == proto::Winner::Draw);
}

TEST_CASE("room play: a takeback accepted gives the requester its turn again") {
    Parts p;
    p.seat_and_set_up();
    for (int i = 0; i < 3; ++i) p.play_turn();  // silver, bronze, silver (the first stays)
    REQUIRE(p.core->rec.game->to_move() == Side::Bronze);
    p.op([&] { p.play->takeback(Side::Silver, p.a, OfferAct::Offer); });
    CHECK(p.core->rec.offers.takeback == Side::Silver);
    p.op([&] { p.play->takeback(Side::Bronze, p.b, OfferAct::Accept); });
    CHECK(p.core->rec.game->to_move() == Side::Silver);
    CHECK(p.core->rec.turns.size() == 2);
    CHECK(p.a->last("event")["kind"] == "takeback");
}

TEST_CASE("room play: a spectator talks to the spectators only, unversioned") {
    Parts p;
    p.seat_and_set_up();
    p.core->watchers.add(p.cat, p.c);
    const auto v = p.core->rec.version;
    p.a->got.clear();
    p.op([&] { p.play->chat(p.cat, p.c, "nice", false, std::string("c1")); });
    CHECK(p.core->rec.version == v);
    CHECK(p.a->got.empty());
    REQUIRE(p.c->got.size() == 2);
    CHECK(p.c->got[0]["type"] == "ack");
    CHECK(p.c->got[1]["payload"]["room"] == "spectators");
    // Someone neither seated nor watching may not.
    auto dan = std::make_shared<testing::Fake>();
    p.op([&] { p.play->chat(Player{"p-dan", "dan"}, dan, "hi", false, std::nullopt); });
    CHECK(dan->last("error")["code"] == "not_seated");
}

}  // namespace tf::server
