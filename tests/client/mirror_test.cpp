// The client library's game mirror (client/lib/game_mirror.h) fed the server's messages as
// text: the events that do not add a version (the spectator count, the spectators' chat room,
// rematch events after the game), the turns of older servers that carry no captures, and the
// bounded chat.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "client/lib/game_mirror.h"
#include "common/json.h"
#include "common/playout.h"
#include "proto/messages.h"

using namespace tf;
using Json = nlohmann::json;
using client::GameMirror;
using Update = GameMirror::Update;

namespace {

const Json kAnn = {{"id", "p1"}, {"name", "ann"}};
const Json kBob = {{"id", "p2"}, {"name", "bob"}};

// A snapshot of `g` (both setups made, no turn in the record unless given).
Json snapshot(std::int64_t version, const std::string& status, const Game& g, const Json& setups,
              const Json& turns = Json::array()) {
    return {{"type", "snapshot"},
            {"game", "abc234"},
            {"version", version},
            {"status", status},
            {"state", state_to_json(g)},
            {"record",
             {{"variant", to_json(g.variant())},
              {"setup", setups},
              {"turns", turns},
              {"time_control", nullptr}}},
            {"players", {{"silver", kAnn}, {"bronze", kBob}}},
            {"clocks", nullptr},
            {"spectators", 0},
            {"draw_offer", nullptr}};
}

Json event(std::int64_t version, const std::string& kind, const Json& payload) {
    return {{"type", "event"}, {"game", "abc234"},   {"version", version},
            {"kind", kind},    {"payload", payload}, {"clocks", nullptr}};
}

Update feed(GameMirror& m, const Json& j) {
    auto parsed = proto::parse_server(j.dump());
    REQUIRE_MESSAGE(std::holds_alternative<proto::ServerMsg>(parsed), j.dump());
    return m.apply(std::get<proto::ServerMsg>(parsed));
}

// A game after both random setups, and its setups as the record has them.
struct Started {
    Game game{Variant{}};
    Json setups;
};
Started started(Rng& rng) {
    Started s;
    const Setup a = random_setup(s.game, rng);
    REQUIRE(!s.game.apply_setup(Side::Silver, a));
    const Setup b = random_setup(s.game, rng);
    REQUIRE(!s.game.apply_setup(Side::Bronze, b));
    s.setups = {{"silver", to_json(a)}, {"bronze", to_json(b)}};
    return s;
}

}  // namespace

TEST_CASE("mirror: the spectator count and spectators' chat carry the version without adding one") {
    Rng rng(3);
    Started s = started(rng);
    GameMirror m("");
    REQUIRE(feed(m, snapshot(3, "playing", s.game, s.setups)) == Update::Snapshot);
    CHECK(feed(m, event(3, "spectators", {{"count", 4}})) == Update::Event);
    CHECK(m.spectators() == 4);
    const Json sam = {{"id", "p3"}, {"name", "sam"}};
    CHECK(feed(m, event(3, "chat", {{"from", sam}, {"text", "hi"}, {"room", "spectators"}})) ==
          Update::Event);
    CHECK(m.version() == 3);
    REQUIRE(m.chat().size() == 1);
    CHECK(m.chat()[0].room == proto::ChatRoom::Spectators);
    // The players' room is versioned; a line without a room (older events) is the players'.
    CHECK(feed(m, event(4, "chat", {{"from", kAnn}, {"text", "gl"}})) == Update::Event);
    CHECK(m.version() == 4);
    CHECK(m.chat().back().room == proto::ChatRoom::Players);
    CHECK(feed(m, event(4, "chat", {{"from", kAnn}, {"text", "gl"}})) == Update::Ignored);
    CHECK(m.chat().size() == 2);
    // A count or a spectators' line from before a missed event still applies; the next
    // versioned event finds the gap.
    CHECK(feed(m, event(6, "spectators", {{"count", 5}})) == Update::Event);
    CHECK(m.spectators() == 5);
    CHECK(m.version() == 4);
    CHECK(feed(m, event(7, "chat", {{"from", kAnn}, {"text", "?"}})) == Update::Gap);
}

TEST_CASE("mirror: the chat keeps the snapshot's lines and the last kChatKept in all") {
    Rng rng(4);
    Started s = started(rng);
    GameMirror m("p1");
    Json snap = snapshot(2, "playing", s.game, s.setups);
    snap["chat"] = Json::array({{{"from", kBob}, {"text", "first"}, {"room", "players"}}});
    REQUIRE(feed(m, snap) == Update::Snapshot);
    REQUIRE(m.chat().size() == 1);
    CHECK(m.chat()[0].text == "first");
    const auto n = std::int64_t(GameMirror::kChatKept) + 10;
    for (std::int64_t i = 0; i < n; ++i)
        REQUIRE(feed(m, event(3 + i, "chat", {{"from", kAnn}, {"text", std::to_string(i)}})) ==
                Update::Event);
    CHECK(m.chat().size() == GameMirror::kChatKept);
    CHECK(m.chat().back().text == std::to_string(n - 1));
    CHECK(m.chat().front().text == std::to_string(n - std::int64_t(GameMirror::kChatKept)));

    // A snapshot replaces them all (a resync), keeping the last kChatKept if it has more.
    snap["version"] = 3 + n;
    snap["chat"] = Json::array();
    for (std::size_t i = 0; i < GameMirror::kChatKept + 5; ++i)
        snap["chat"].push_back({{"from", kBob}, {"text", "s" + std::to_string(i)}});
    REQUIRE(feed(m, snap) == Update::Snapshot);
    CHECK(m.chat().size() == GameMirror::kChatKept);
    CHECK(m.chat().front().text == "s5");
    CHECK(m.chat().back().room == proto::ChatRoom::Players);
}

TEST_CASE("mirror: rematch events are taken with or without a version of their own") {
    Rng rng(5);
    Started s = started(rng);
    s.game.resign(Side::Silver, EndReason::Resign);
    GameMirror m("p1");
    REQUIRE(feed(m, snapshot(10, "over", s.game, s.setups)) == Update::Snapshot);
    REQUIRE(m.result());
    // With the game's current version (a server that does not version them)...
    CHECK(feed(m, event(10, "rematch_offer", {{"side", "bronze"}})) == Update::Event);
    CHECK(m.rematch_offer() == Side::Bronze);
    CHECK(m.version() == 10);
    CHECK(feed(m, event(10, "rematch_decline", {{"side", "silver"}})) == Update::Event);
    CHECK(!m.rematch_offer());
    CHECK(m.rematch_declined() == Side::Silver);
    // ...or with one of their own.
    CHECK(feed(m, event(11, "rematch_offer", {{"side", "silver"}})) == Update::Event);
    CHECK(m.version() == 11);
    CHECK(m.rematch_offer() == Side::Silver);
    CHECK(!m.rematch_declined());
    CHECK(feed(m, event(12, "rematch", {{"code", "def567"}})) == Update::Event);
    CHECK(m.rematch_code() == "def567");
    CHECK(!m.rematch_offer());
    // A snapshot does not describe the rematch: what the events said stays.
    REQUIRE(feed(m, snapshot(12, "over", s.game, s.setups)) == Update::Snapshot);
    CHECK(m.rematch_code() == "def567");
    CHECK(m.rematch_declined() == std::nullopt);
    // One after a missed event is a gap like any other (the watch replays both).
    CHECK(feed(m, event(14, "rematch_decline", {{"side", "bronze"}})) == Update::Gap);
    CHECK(!m.rematch_declined());
    // Other events older than the mirror are part of it already.
    CHECK(feed(m, event(12, "chat", {{"from", kAnn}, {"text", "gg"}})) == Update::Ignored);
}

TEST_CASE("mirror: a turn without captures (an older server) gets them from the rules") {
    // docs/RULES.md's example game: its third turn, d1-d2 W5-1, captures bronze's a4.
    const Json setups = Json::parse(R"({
        "silver": {"elephants": [[2, 1], [3, 1], [5, 1], [7, 1], [8, 1]], "guardians": [[1, 0], [0, 5]]},
        "bronze": {"elephants": [[1, 2], [1, 3], [1, 4], [1, 7], [1, 9]], "guardians": [[10, 0], [10, 8]]}})");
    const Json turns = Json::parse(R"([
        {"elephant": {"from": [2, 1], "path": [[4, 1]], "facing": "N"}},
        {"elephant": {"from": [1, 3], "path": [[2, 3]]}},
        {"elephant": {"from": [4, 1], "path": [[4, 2]]}, "guardians": [{"from": [0, 5], "dir": "ccw", "steps": 1}]}])");
    Game g{Variant{}};
    REQUIRE(!g.apply_setup(Side::Silver, *setup_from_json(setups["silver"])));
    REQUIRE(!g.apply_setup(Side::Bronze, *setup_from_json(setups["bronze"])));
    REQUIRE(!g.apply_turn(*turn_from_json(turns[0])));
    REQUIRE(!g.apply_turn(*turn_from_json(turns[1])));
    const Json two = Json::array({turns[0], turns[1]});
    const std::vector<proto::Captured> a4 = {{Side::Bronze, Cell{1, 4}}};

    GameMirror old_server("p1"), new_server("p1");
    REQUIRE(feed(old_server, snapshot(4, "playing", g, setups, two)) == Update::Snapshot);
    REQUIRE(feed(new_server, snapshot(4, "playing", g, setups, two)) == Update::Snapshot);
    CHECK(feed(old_server, event(5, "turn", {{"side", "silver"}, {"turn", turns[2]}})) ==
          Update::Event);
    const Json given = Json::array({{{"side", "bronze"}, {"cell", {1, 4}}}});
    CHECK(feed(new_server,
               event(5, "turn", {{"side", "silver"}, {"turn", turns[2]}, {"captures", given}})) ==
          Update::Event);
    REQUIRE(old_server.turns().size() == 3);
    CHECK(old_server.turns().back().captures == a4);
    CHECK(new_server.turns().back().captures == a4);
    CHECK(old_server.turns()[0].captures.empty());

    // A spectator who comes later reads the same captures from the snapshot's record.
    REQUIRE(!g.apply_turn(*turn_from_json(turns[2])));
    GameMirror late("");
    REQUIRE(feed(late, snapshot(5, "playing", g, setups, turns)) == Update::Snapshot);
    REQUIRE(late.turns().size() == 3);
    CHECK(late.turns().back().captures == a4);
    CHECK(late.game().stats(Side::Silver).captured == 1);
}

TEST_CASE("mirror: a rated game's flag, seat ratings and rating changes") {
    Rng rng(5);
    Started s = started(rng);
    Json snap = snapshot(3, "playing", s.game, s.setups);
    GameMirror casual("p1");
    REQUIRE(feed(casual, snap) == Update::Snapshot);
    CHECK_FALSE(casual.rated());
    CHECK_FALSE(casual.seat(Side::Silver)->rating);

    const Json r1500 = {{"rating", 1500}, {"deviation", 500}, {"games", 0}, {"provisional", true}};
    const Json r1720 = {{"rating", 1720}, {"deviation", 80}, {"games", 31}, {"provisional", false}};
    snap["rated"] = true;
    snap["players"]["silver"]["rating"] = r1500;
    snap["players"]["bronze"]["rating"] = r1720;
    GameMirror m("p1");
    REQUIRE(feed(m, snap) == Update::Snapshot);
    CHECK(m.rated());
    REQUIRE(m.seat(Side::Silver)->rating);
    CHECK(m.seat(Side::Silver)->rating->provisional);
    CHECK(m.seat(Side::Bronze)->rating->rating == 1720);
    CHECK_FALSE(m.ratings());

    // The changes come after the game, unversioned.
    const Json change = {{"category", "untimed"},
                         {"silver", {{"before", 1500}, {"after", {{"rating", 1662}, {"deviation", 290}, {"games", 1}, {"provisional", true}}}}},
                         {"bronze", {{"before", 1720}, {"after", {{"rating", 1712}, {"deviation", 79}, {"games", 32}, {"provisional", false}}}}}};
    CHECK(feed(m, event(3, "ratings", change)) == Update::Event);
    CHECK(m.version() == 3);
    REQUIRE(m.ratings());
    CHECK(m.ratings()->category == "untimed");
    CHECK(m.ratings()->change[0]->before == 1500);
    CHECK(m.ratings()->change[0]->after.rating == 1662);
    CHECK(m.ratings()->change[1]->after.games == 32);

    // A later snapshot of the finished game carries them too; a casual one clears the flag.
    snap["ratings"] = change;
    GameMirror late("");
    REQUIRE(feed(late, snap) == Update::Snapshot);
    CHECK(late.rated());
    REQUIRE(late.ratings());
    CHECK(late.ratings()->change[1]->before == 1720);
}
