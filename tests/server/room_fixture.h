// Fakes for driving a Room without sockets: participants that record what they are sent, and a
// fixture holding a lobby, a store and one room created by ann (silver) with one io_context
// polled by the test thread.
#pragma once

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "common/json.h"
#include "common/playout.h"
#include "server/lobby/listings.h"
#include "server/lobby/player_index.h"
#include "server/room/directory.h"
#include "server/room/room.h"

namespace tf::server::testing {

using nlohmann::json;

struct Fake : Participant {
    std::vector<json> got;
    std::vector<int> spectator_counts;     // unversioned `spectators` events, kept apart
    std::vector<int> order;                // when each message of `got` came, among all Fakes
    std::vector<std::string> moved_codes;  // games it was told moved to another node
    void moved(const std::string& code) override { moved_codes.push_back(code); }
    static inline int delivered = 0;
    void deliver(Msg m) override {
        json j = json::parse(*m);
        order.push_back(++delivered);
        if (j["type"] == "event" && j["kind"] == "spectators")
            spectator_counts.push_back(j["payload"]["count"]);
        else
            got.push_back(std::move(j));
    }
    // The last message received, which must be of `type`; clears the inbox.
    json last(const std::string& type) {
        REQUIRE(!got.empty());
        json m = got.back();
        CHECK(m["type"] == type);
        got.clear();
        order.clear();
        return m;
    }
};

// What a room lives among: the process's services over the null store (or one given), three
// players with their connections, and a mirror of the game for the tests' moves.
struct RoomWorld {
    boost::asio::io_context ioc;  // first in, last out: the rooms hold timers on it
    Config cfg;
    NullStore null_store;
    Store& store;
    Listings listings;
    PlayerIndex players;
    RatingBook ratings;
    LocalDirectory directory{factory, services};
    RoomServices services{listings, players, directory, store, cfg, {}, ratings};
    RoomFactory factory{ioc, services};
    Player ann{"p-ann", "ann"}, bob{"p-bob", "bob"}, cat{"p-cat", "cat"};
    std::shared_ptr<Fake> a = std::make_shared<Fake>(), b = std::make_shared<Fake>(),
                          c = std::make_shared<Fake>();
    Game mirror{Variant{}};
    Rng rng{5};

    explicit RoomWorld(Store* st) : store(st ? *st : null_store) {}
};

struct Fixture : RoomWorld {
    std::shared_ptr<Room> room;

    explicit Fixture(int live_interval_ms = 1000, Store* st = nullptr,
                     std::optional<proto::TimeControl> tc = std::nullopt)
        : RoomWorld(st) {
        cfg.live_interval_ms = live_interval_ms;  // also the `spectators` event's interval
        RoomParams params{Variant{}, tc, true, Side::Silver, false, std::nullopt};
        listings.configure(100, std::chrono::milliseconds(live_interval_ms));
        room = factory.make("abc234", params, ann);
        room->open();
        room->watch(ann, a, std::nullopt);
        run();
    }
    void run() {
        ioc.restart();
        ioc.poll();
    }
    // Runs the room's timers until `f` (at most 5 s).
    template <class F>
    void run_until(F f) {
        ioc.restart();
        for (int i = 0; i < 500 && !f(); ++i) ioc.run_for(std::chrono::milliseconds(10));
    }
    void run_for(int ms) {
        ioc.restart();
        ioc.run_for(std::chrono::milliseconds(ms));
    }
    json error_of(Fake& f) {
        run();
        return f.last("error");
    }
    proto::SetupMsg setup_msg(std::optional<std::int64_t> version = {}) {
        return proto::SetupMsg{"abc234", random_setup(mirror, rng), version, "s"};
    }
    proto::TurnMsg turn_msg(std::optional<std::int64_t> version = {}) {
        MoveList ml;
        mirror.generate(ml);
        Turn t = ml.size == 0 ? Turn{} : mirror.to_turn(ml[0]);
        return proto::TurnMsg{"abc234", t, version, "t", std::nullopt};
    }
    // Bob joins, cat watches, both setups and silver's first turn: version 4, bronze to move.
    void play_opening() {
        room->join(bob, b);
        room->watch(cat, c, std::nullopt);
        run();
        auto s = setup_msg(1);
        REQUIRE(!mirror.apply_setup(Side::Silver, s.setup));
        room->setup(ann, a, s);
        run();
        s = setup_msg(2);
        REQUIRE(!mirror.apply_setup(Side::Bronze, s.setup));
        room->setup(bob, b, s);
        run();
        auto t = turn_msg(3);
        REQUIRE(!mirror.apply_turn(t.turn));
        room->turn(ann, a, t);
        run();
    }
};

}  // namespace tf::server::testing
