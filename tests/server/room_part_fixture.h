// A room's parts without the Room (server/room/room_core.h and the parts above it): a core of a
// game created by ann (silver), its time, play and recovery, over the null store (or one given),
// with a host that records what the engine reports and a `schedule` that counts. Each step runs as
// one operation of the engine (op), committed by polling the io_context, as the Room runs them.
#pragma once

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "common/playout.h"
#include "server/room/directory.h"
#include "server/room/room_core.h"
#include "server/room/room_play.h"
#include "server/room/room_recovery.h"
#include "server/room/room_time.h"
#include "tests/server/room_fixture.h"

namespace tf::server::testing {

// What the operation engine reports, as the Room would take it.
struct PartsHost : RoomOps::Host {
    RoomCore* core = nullptr;
    std::vector<std::string> failures;
    int idles = 0;
    StoredGame stored_row() const override { return core->stored_row(); }
    void saved() override { core->fault.saved_version = core->rec.version; }
    void failed(const std::string& why, const std::vector<RoomOps::Out>&,
                const std::vector<std::function<void()>>&, bool) override {
        failures.push_back(why);
    }
    void idle() override { ++idles; }
    void rated(const RateGame::Outcome& outcome) override { core->rated(outcome); }
    std::shared_ptr<void> keep_alive() override { return nullptr; }
    bool dropped() const override { return core->fault.fenced; }
};

struct Parts : RoomWorld {
    PartsHost host;
    std::unique_ptr<RoomCore> core;
    std::unique_ptr<RoomTime> time;
    std::unique_ptr<RoomPlay> play;
    std::unique_ptr<RoomRecovery> recovery;
    int scheduled = 0;  // calls of core->schedule

    explicit Parts(std::optional<proto::TimeControl> tc = std::nullopt,
                   std::optional<int> bot_level = std::nullopt, Store* st = nullptr)
        : RoomWorld(st) {
        listings.configure(100, std::chrono::milliseconds(1000));
        RoomParams params{Variant{}, tc, true, Side::Silver, false, bot_level};
        core = std::make_unique<RoomCore>(boost::asio::make_strand(ioc), "abc234", params, ann,
                                          services, host);
        host.core = core.get();
        core->schedule = [this] { ++scheduled; };
        time = std::make_unique<RoomTime>(*core);
        play = std::make_unique<RoomPlay>(*core, *time);
        recovery = std::make_unique<RoomRecovery>(*core, *time);
        op([&] { core->ops.create(core->stored_row()); });
        core->watchers.add(ann, a);
    }
    // One operation: `f`, then its commit and deliveries.
    template <class F>
    void op(F f) {
        core->ops.run(std::function<void()>(f));
        ioc.restart();
        ioc.poll();
    }
    // Bob takes the seat and both set up: silver (ann) to play the first turn, version 3.
    void seat_and_set_up() {
        op([&] { play->seat(bob, b, nullptr); });
        for (Side s : {Side::Silver, Side::Bronze}) {
            auto setup = random_setup(mirror, rng);
            REQUIRE(!mirror.apply_setup(s, setup));
            op([&] {
                play->setup(s, s == Side::Silver ? a : b,
                            proto::SetupMsg{"abc234", setup, core->rec.version, "s"});
            });
        }
    }
    proto::TurnMsg turn_msg() {
        MoveList ml;
        mirror.generate(ml);
        return proto::TurnMsg{"abc234", mirror.to_turn(ml[0]), core->rec.version, "t",
                              std::nullopt};
    }
    // The side to move plays the mirror's first legal turn.
    void play_turn() {
        auto m = turn_msg();
        const Side s = mirror.to_move();
        REQUIRE(!mirror.apply_turn(m.turn));
        op([&] { play->turn(s, s == Side::Silver ? a : b, m, SteadyClock::now()); });
    }
};

}  // namespace tf::server::testing
