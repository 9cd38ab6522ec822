// What a room shows of itself (server/room/room_view.h), read from its parts alone: the snapshot
// for players and spectators, a seat away, the clocks, the lobby's open and live entries.
#include <doctest/doctest.h>

#include "common/bot.h"
#include "server/room/room_view.h"

namespace tf::server {

namespace {

using namespace std::chrono_literals;

// A room's parts as a rated, timed game has them once both setups are in: Ann (silver, the
// creator) to move, Bob (bronze) away for a second, a draw offer of Bob's standing.
struct Parts {
    std::string code = "abc234";
    RoomParams params;
    GameRecord rec{Variant{}, false};
    RoomLimits limits{};
    RoomDeadlines due;
    SeatRatings ratings;
    RoomChat chat{10s, 5};
    std::optional<Clock> clock;
    TimePoint now = SteadyClock::now();

    Parts() {
        params.time_control = proto::TimeControl{300'000, 5'000};
        params.rated = true;
        params.is_public = true;
        limits.grace = 10s;
        limits.award = 20s;
        rec.seats[0] = Player{"ann", "Ann", true};
        REQUIRE(rec.apply(proto::JoinEv{Side::Bronze, proto::PlayerRef{"bob", "Bob"}}) == "");
        rec.seats[1] = Player{"bob", "Bob", true};
        for (int i = 0; i < 2; ++i) {
            const Side s = rec.game->to_move();
            auto su = bot_setup(*rec.game, BotOptions{1, 7});
            REQUIRE(su);
            Decision d = rec.setup(s, *su);
            REQUIRE(d.event);
            rec.count(*d.event);
        }
        REQUIRE(rec.apply(proto::DrawOfferEv{Side::Bronze}) == "");
        rec.count(proto::DrawOfferEv{Side::Bronze});
        ratings.seat[0] = proto::RatingView{1612, 80, 12, false};
        ratings.seat[1] = proto::RatingView{1500, 350, 0, true};
        due.away_since[1] = now - 1s;
        clock.emplace(*params.time_control);
        clock->start(Side::Silver, now - 2s);
        chat.remember(proto::ChatEv{{"ann", "Ann"}, "good luck", proto::ChatRoom::Players});
        chat.remember(proto::ChatEv{{"cy", "Cy"}, "go bob", proto::ChatRoom::Spectators});
    }
    RoomView view(int spectators = 3) const {
        return {code, params, rec, limits, due, ratings, chat, clock, spectators};
    }
};

}  // namespace

TEST_CASE(
    "room view: a snapshot is the record, the seats, the clocks and the offers as they stand") {
    Parts p;
    const auto m = p.view().snapshot(false, p.now);
    CHECK(m.game == "abc234");
    CHECK(m.version == p.rec.version);
    CHECK(m.status == proto::GameStatus::Playing);
    CHECK(m.state.phase() == Phase::Play);
    CHECK(m.record.turns.empty());
    CHECK(m.record.setup[0] == p.rec.setups[0]);
    CHECK(m.record.setup[1] == p.rec.setups[1]);
    CHECK(m.draw_offer == Side::Bronze);
    CHECK_FALSE(m.takeback_offer);
    CHECK(m.spectators == 3);
    CHECK(m.rated);
    CHECK(m.is_public);
    REQUIRE(m.players[0]);
    CHECK(m.players[0]->player == proto::PlayerRef{"ann", "Ann"});
    CHECK(m.players[0]->rating == p.ratings.seat[0]);
    CHECK_FALSE(m.players[0]->away);
    // Bob left a second ago: the win may be claimed when his grace ends, and is awarded after.
    REQUIRE(m.players[1]);
    REQUIRE(m.players[1]->away);
    const auto& away = *m.players[1]->away;
    CHECK(away.award_at - away.claim_at == 20'000);
    REQUIRE(m.clocks);
    CHECK(m.clocks->running == Side::Silver);
    CHECK(m.clocks->silver_ms == 298'000);
    CHECK(m.clocks->bronze_ms == 300'000);
    // The players' snapshot has the players' room; a spectator's has both rooms.
    REQUIRE(m.chat.size() == 1);
    CHECK(m.chat[0].text == "good luck");
    CHECK(p.view().snapshot(true, p.now).chat.size() == 2);
}

TEST_CASE("room view: untimed, a seat empty, a seat back: no clocks, no seat, no absence") {
    Parts p;
    p.clock.reset();
    p.due.away_since[1].reset();
    p.rec.seats[1].reset();
    const auto m = p.view().snapshot(false, p.now);
    CHECK_FALSE(m.clocks);
    CHECK_FALSE(m.players[1]);
    CHECK_FALSE(p.view().clocks(p.now));
    CHECK_FALSE(p.view().seat(Side::Bronze, p.now));
    REQUIRE(p.view().seat(Side::Silver, p.now));
    CHECK_FALSE(p.view().seat(Side::Silver, p.now)->away);
}

TEST_CASE("room view: the lobby shows the creator's seat; the live list both, with progress") {
    Parts p;
    p.params.creator_side = Side::Bronze;
    const auto open = p.view().lobby_entry();
    CHECK(open.code == "abc234");
    CHECK(open.creator == proto::PlayerRef{"bob", "Bob"});
    CHECK(open.creator_side == Side::Bronze);
    CHECK(open.rated);
    CHECK(open.creator_rating == p.ratings.seat[1]);
    CHECK(open.time_control == p.params.time_control);

    const auto live = p.view(7).live_entry();
    CHECK(live.players[0] == proto::PlayerRef{"ann", "Ann"});
    CHECK(live.players[1] == proto::PlayerRef{"bob", "Bob"});
    CHECK(live.turns == 0);
    CHECK(live.to_move == Side::Silver);
    CHECK(live.spectators == 7);
    CHECK(live.status == proto::GameStatus::Playing);
    CHECK_FALSE(live.away[0]);
    CHECK(live.away[1]);
    CHECK(live.rated);
    CHECK(live.ratings[0] == p.ratings.seat[0]);
    // a casual game's entry carries no ratings
    p.params.rated = false;
    CHECK_FALSE(p.view().live_entry().ratings[0]);
}

}  // namespace tf::server
