// The notifications' bodies a room sends (server/room/room_notices.h), on their own: each kind's
// fields as PROTOCOL.md "Notifications" lists them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "server/room/room_notices.h"

namespace tf::server {

namespace {

nlohmann::json parsed(const std::string& body) {
    auto j = nlohmann::json::parse(body, nullptr, false);
    REQUIRE(j.is_object());
    return j;
}

}  // namespace

TEST_CASE("room notices: a challenge names the challenger, the game's settings and the side") {
    RoomParams params;
    params.time_control = proto::TimeControl{300'000, 2'000};
    params.rated = true;
    params.creator_side = Side::Bronze;
    auto n = parsed(notices::challenge("abc234", params, Player{"p1", "Ann", true}));
    CHECK(n["game"] == "abc234");
    CHECK(n["from"] == nlohmann::json{{"id", "p1"}, {"name", "Ann"}});
    CHECK(n["rated"] == true);
    CHECK(n["side"] == "silver");  // the challenged takes the seat the creator left
    CHECK(n["time_control"]["initial_ms"] == 300'000);
    CHECK(n["variant"].is_object());
    params.time_control.reset();
    n = parsed(notices::challenge("abc234", params, Player{"b1", "Bot", true, true}));
    CHECK(n["time_control"].is_null());
    CHECK(n["from"]["bot"] == true);
}

TEST_CASE("room notices: the challenger hears who answered and how") {
    RoomParams params;
    params.invitee_id = std::string("p2");
    params.invitee_name = std::string("Bea");
    auto n = parsed(notices::challenge_answer("abc234", params, {{"reason", "later"}}));
    CHECK(n == nlohmann::json{{"game", "abc234"},
                              {"by", {{"id", "p2"}, {"name", "Bea"}}},
                              {"reason", "later"}});
}

TEST_CASE("room notices: your turn and the game's end name the opponent, null for a free seat") {
    auto n = parsed(notices::your_turn("abc234", Player{"p2", "Bea"}, 1'700'000'000'000));
    CHECK(n == nlohmann::json{{"game", "abc234"},
                              {"opponent", {{"id", "p2"}, {"name", "Bea"}}},
                              {"move_by", 1'700'000'000'000}});
    CHECK(parsed(notices::your_turn("abc234", std::nullopt, 0))["opponent"].is_null());
    proto::Result r;
    r.over = true;
    r.reason = proto::ResultReason::Resign;
    r.winner = proto::Winner::Silver;
    n = parsed(notices::game_over("abc234", r, Player{"p1", "Ann"}));
    CHECK(n["game"] == "abc234");
    CHECK(n["opponent"]["name"] == "Ann");
    CHECK(n["result"] == nlohmann::json::parse(proto::to_text(r)));
}

}  // namespace tf::server
