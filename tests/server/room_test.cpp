// A Room driven through the Participant interface with fake participants and no sockets: seat
// checks, out-of-turn, wrong phase, stale versions, illegal turns, spectators who cannot act.
#include "tests/server/room_fixture.h"

namespace tf::server {

using nlohmann::json;
using testing::Fake;
using testing::Fixture;

TEST_CASE("room: seats, turns and versions through fake participants") {
    Fixture f;
    CHECK(f.a->last("snapshot")["status"] == "open");

    // Waiting for an opponent.
    f.room->setup(f.ann, f.a, f.setup_msg());
    CHECK(f.error_of(*f.a)["code"] == "not_started");

    f.room->join(f.bob, f.b);
    f.run();
    CHECK(f.b->last("snapshot")["status"] == "playing");
    CHECK(f.a->last("event")["kind"] == "join");

    // A third player cannot join; a spectator cannot act.
    f.room->join(f.cat, f.c);
    CHECK(f.error_of(*f.c)["code"] == "game_full");
    f.room->watch(f.cat, f.c, std::nullopt);
    f.run();
    CHECK(f.c->last("snapshot")["spectators"] == 1);
    REQUIRE(!f.a->spectator_counts.empty());
    CHECK(f.a->spectator_counts.back() == 1);  // the players are told
    f.room->setup(f.cat, f.c, f.setup_msg());
    CHECK(f.error_of(*f.c)["code"] == "not_seated");
    f.room->resign(f.cat, f.c);
    CHECK(f.error_of(*f.c)["code"] == "not_seated");

    // Silver sets up first; bronze is out of turn; a turn is the wrong phase.
    f.room->setup(f.bob, f.b, f.setup_msg());
    json e = f.error_of(*f.b);
    CHECK(e["code"] == "not_your_turn");
    CHECK(e["version"] == 1);
    f.room->turn(f.ann, f.a, f.turn_msg());
    CHECK(f.error_of(*f.a)["code"] == "wrong_phase");

    auto s = f.setup_msg(1);
    const auto ann_setup = s;
    REQUIRE(!f.mirror.apply_setup(Side::Silver, s.setup));
    f.room->setup(f.ann, f.a, s);
    f.run();
    CHECK(f.a->got.at(0)["type"] == "ack");
    CHECK(f.a->got.at(0)["version"] == 2);
    CHECK(f.a->last("event")["kind"] == "setup");
    CHECK(f.c->last("event")["version"] == 2);  // the spectator sees it too
    f.b->got.clear();

    // Bronze based on version 1 is stale now; with the right version it is accepted.
    f.room->setup(f.bob, f.b, f.setup_msg(1));
    e = f.error_of(*f.b);
    CHECK(e["code"] == "stale_version");
    CHECK(e["version"] == 2);
    s = f.setup_msg(2);
    REQUIRE(!f.mirror.apply_setup(Side::Bronze, s.setup));
    f.room->setup(f.bob, f.b, s);
    f.run();
    CHECK(f.b->last("event")["kind"] == "setup");
    f.a->got.clear();

    // Play: an illegal turn carries the rules' code and changes nothing.
    proto::TurnMsg bad{"abc234",
                       Turn{ElephantMove{Cell{0, 0}, {Cell{0, 1}}, std::nullopt}, std::nullopt, {}},
                       3, "x", std::nullopt};
    f.room->turn(f.ann, f.a, bad);
    e = f.error_of(*f.a);
    CHECK(e["code"] == "illegal_turn");
    CHECK(e["ref"] == "x");
    CHECK(e["rule"].is_string());
    CHECK(e["version"] == 3);

    auto t = f.turn_msg(3);
    REQUIRE(!f.mirror.apply_turn(t.turn));
    f.room->turn(f.ann, f.a, t);
    f.run();
    CHECK(f.a->last("event")["kind"] == "turn");
    f.room->turn(f.ann, f.a, f.turn_msg(4));
    CHECK(f.error_of(*f.a)["code"] == "not_your_turn");
    // The same turn again, named at the version it was applied to (a re-send after a fault):
    // answered with its ack again, nothing applied twice; another turn there is still refused.
    {
        auto again = t;
        again.ref = "again";
        const auto events = f.b->got.size();
        f.room->turn(f.ann, f.a, again);
        f.run();
        json ack = f.a->got.back();
        CHECK(ack["type"] == "ack");
        CHECK(ack["ref"] == "again");
        CHECK(ack["version"] == 4);
        CHECK(f.b->got.size() == events);  // no event: nothing happened
        auto other = bad;
        other.version = 3;
        f.room->turn(f.ann, f.a, other);
        CHECK(f.error_of(*f.a)["code"] == "not_your_turn");
        auto silver_setup = ann_setup;  // ann's setup, re-sent at version 1
        silver_setup.ref = "s-again";
        f.room->setup(f.ann, f.a, silver_setup);
        f.run();
        CHECK(f.a->got.back()["type"] == "ack");
        CHECK(f.a->got.back()["version"] == 2);
    }

    // A spectator's chat line reaches the spectators only, without a version of its own; a
    // player's reaches everyone and does not make the opponent's version stale.
    f.a->got.clear();
    f.b->got.clear();
    f.room->chat(f.cat, f.c, "hi");
    f.run();
    json line = f.c->last("event");
    CHECK(line["kind"] == "chat");
    CHECK(line["payload"]["room"] == "spectators");
    CHECK(line["version"] == 4);  // the game's version, not a new one
    CHECK(f.a->got.empty());
    CHECK(f.b->got.empty());
    f.room->chat(f.ann, f.a, "gl");
    f.run();
    CHECK(f.b->last("event")["payload"]["room"] == "players");
    CHECK(f.c->last("event")["version"] == 5);
    f.a->got.clear();
    t = f.turn_msg(4);
    REQUIRE(!f.mirror.apply_turn(t.turn));
    f.room->turn(f.bob, f.b, t);
    f.run();
    CHECK(f.b->last("event")["version"] == 6);
    // A late spectator's snapshot carries both rooms' lines; a player's only the players'.
    auto d = std::make_shared<Fake>();
    f.room->watch(Player{"p-dan", "dan"}, d, std::nullopt);
    f.run();
    CHECK(d->last("snapshot")["chat"].size() == 2);
    auto a2 = std::make_shared<Fake>();
    f.room->watch(f.ann, a2, std::nullopt);
    f.run();
    json mine = a2->last("snapshot");
    REQUIRE(mine["chat"].size() == 1);
    CHECK(mine["chat"][0]["text"] == "gl");
    f.room->leave(d.get());
    f.room->leave(a2.get());
    f.run();
    f.a->got.clear();
    f.b->got.clear();
    f.c->got.clear();

    // Cancel after the start; resign ends the game for everyone.
    f.room->cancel(f.ann, f.a);
    CHECK(f.error_of(*f.a)["code"] == "already_started");
    f.room->resign(f.bob, f.b);
    f.run();
    json over = f.c->last("event");
    CHECK(over["kind"] == "game_over");
    CHECK(over["payload"]["winner"] == "silver");
    f.room->turn(f.ann, f.a, f.turn_msg());
    CHECK(f.error_of(*f.a)["code"] == "game_over");
}

TEST_CASE(
    "room: resign, chat and the draw messages with a ref are acked at their event's version") {
    Fixture f;
    f.room->join(f.bob, f.b);
    f.run();
    auto s = f.setup_msg(1);
    REQUIRE(!f.mirror.apply_setup(Side::Silver, s.setup));
    f.room->setup(f.ann, f.a, s);
    f.run();
    s = f.setup_msg(2);
    REQUIRE(!f.mirror.apply_setup(Side::Bronze, s.setup));
    f.room->setup(f.bob, f.b, s);
    f.run();
    auto acked = [&](Fake& p, const char* ref, const char* kind) {
        json ack, ev;
        for (const auto& m : p.got) {
            if (m["type"] == "ack" && m["ref"] == ref) ack = m;
            if (!ack.is_null() && m["type"] == "event" && m["kind"] == kind) ev = m;
        }
        REQUIRE(!ack.is_null());
        REQUIRE(!ev.is_null());
        CHECK(ack["version"] == ev["version"]);
    };
    f.a->got.clear();
    f.room->chat(f.ann, f.a, "gl", false, std::string("c1"));
    f.run();
    acked(*f.a, "c1", "chat");
    f.room->draw(f.ann, f.a, Room::DrawAct::Offer, std::string("d1"));
    f.run();
    acked(*f.a, "d1", "draw_offer");
    f.b->got.clear();
    f.room->draw(f.bob, f.b, Room::DrawAct::Decline, std::string("d2"));
    f.run();
    acked(*f.b, "d2", "draw_decline");
    f.room->draw(f.bob, f.b, Room::DrawAct::Accept, std::string("d3"));
    json e = f.error_of(*f.b);
    CHECK(e["code"] == "no_draw_offer");
    CHECK(e["ref"] == "d3");
    // Without a ref, nothing but the event.
    f.a->got.clear();
    f.room->chat(f.ann, f.a, "again");
    f.run();
    for (const auto& m : f.a->got) CHECK(m["type"] != "ack");
    f.b->got.clear();
    f.room->resign(f.bob, f.b, std::string("r1"));
    f.run();
    acked(*f.b, "r1", "resign");
    f.room->resign(f.bob, f.b, std::string("r2"));
    e = f.error_of(*f.b);
    CHECK(e["code"] == "game_over");
    CHECK(e["ref"] == "r2");
}

TEST_CASE("room: in a crowd the players are served first, and everyone's order holds") {
    Fixture f;
    f.room->join(f.bob, f.b);
    std::vector<std::shared_ptr<Fake>> crowd;
    for (std::size_t i = 0; i < Room::kCrowd + 6; ++i) {
        crowd.push_back(std::make_shared<Fake>());
        f.room->watch(Player{"p-s" + std::to_string(i), "s"}, crowd.back(), std::nullopt);
    }
    f.run();
    for (auto* p : {f.a.get(), f.b.get()}) p->got.clear(), p->order.clear();
    for (auto& c : crowd) c->got.clear(), c->order.clear();

    // Silver's setup, and meanwhile a spectator's refused setup (a reply only, no event): the
    // refusal must not overtake the event it came after.
    auto s = f.setup_msg(1);
    REQUIRE(!f.mirror.apply_setup(Side::Silver, s.setup));
    f.room->setup(f.ann, f.a, s);
    f.room->setup(Player{"p-s0", "s"}, crowd[0], f.setup_msg());
    f.run();
    REQUIRE(f.a->got.size() == 2);  // ack, event
    REQUIRE(f.b->got.size() == 1);
    CHECK(f.b->got[0]["version"] == 2);
    const int players_done = std::max(f.a->order.back(), f.b->order.back());
    for (auto& c : crowd) {
        REQUIRE(!c->got.empty());
        CHECK(c->got[0]["type"] == "event");
        CHECK(c->got[0]["version"] == 2);
        CHECK(c->order[0] > players_done);  // after both players
    }
    REQUIRE(crowd[0]->got.size() == 2);
    CHECK(crowd[0]->got[1]["code"] == "not_seated");

    // A small audience is served in one go, as before.
    f.room->leave(crowd[0].get());
    for (std::size_t i = 1; i < crowd.size() - 3; ++i) f.room->leave(crowd[i].get());
    f.run();
    for (auto& c : crowd) c->got.clear();
    f.room->setup(f.bob, f.b, f.setup_msg(2));
    f.run();
    CHECK(crowd.back()->last("event")["version"] == 3);
}

TEST_CASE("room: the spectator count reaches the players at most once per interval") {
    Fixture f(200);
    f.a->got.clear();
    // A spectator of the open game who then takes the seat is no longer counted.
    f.room->watch(f.bob, f.b, std::nullopt);
    f.run();
    CHECK(f.a->spectator_counts == std::vector<int>{1});  // the first change goes at once
    f.room->join(f.bob, f.b);
    f.run();
    CHECK(f.b->last("snapshot")["spectators"] == 0);
    CHECK(f.a->spectator_counts == std::vector<int>{1});  // within the interval: not yet
    f.run_until([&] { return f.a->spectator_counts.size() == 2; });
    CHECK(f.a->spectator_counts == std::vector<int>{1, 0});  // ... but when it ends
    CHECK(f.b->spectator_counts == std::vector<int>{0});

    // A crowd arriving at once: one message now, then one with the count at the interval's end.
    f.run_for(300);  // a quiet interval
    f.a->spectator_counts.clear();
    std::vector<std::shared_ptr<Fake>> crowd;
    for (int i = 0; i < 5; ++i) {
        crowd.push_back(std::make_shared<Fake>());
        f.room->watch(Player{"p-s" + std::to_string(i), "s"}, crowd.back(), std::nullopt);
    }
    f.run();
    CHECK(f.a->spectator_counts == std::vector<int>{1});
    CHECK(crowd[4]->last("snapshot")["spectators"] == 5);
    CHECK(crowd[4]->spectator_counts.empty());  // spectators are not told
    f.room->leave(crowd[4].get());
    auto ann2 = std::make_shared<Fake>();  // a player's second connection: not a spectator
    f.room->watch(f.ann, ann2, std::nullopt);
    f.run();
    CHECK(ann2->last("snapshot")["spectators"] == 4);
    f.run_until([&] { return f.a->spectator_counts.size() == 2; });
    CHECK(f.a->spectator_counts == std::vector<int>{1, 4});
    CHECK(ann2->spectator_counts == std::vector<int>{4});

    // Changes that cancel out within the interval send nothing.
    f.room->leave(crowd[3].get());
    f.room->watch(Player{"p-s3", "s"}, crowd[3], std::nullopt);
    f.run_for(300);
    CHECK(f.a->spectator_counts == std::vector<int>{1, 4});
}

TEST_CASE("room: a live-list subscriber finds every entry up to date, though nobody watched") {
    Fixture f;
    f.room->join(f.bob, f.b);
    f.run();
    auto s = f.setup_msg(1);
    REQUIRE(!f.mirror.apply_setup(Side::Silver, s.setup));
    f.room->setup(f.ann, f.a, s);  // nobody subscribes to the live list yet
    f.run();
    auto w = std::make_shared<Fake>();
    f.listings.subscribe_live(w);
    f.run();
    REQUIRE(w->got.size() == 1);  // the list, as it is now
    CHECK(w->got[0]["games"][0]["to_move"] == "bronze");
    s = f.setup_msg(2);
    REQUIRE(!f.mirror.apply_setup(Side::Bronze, s.setup));
    f.room->setup(f.bob, f.b, s);  // watched now: the change follows
    f.run();
    REQUIRE(w->got.size() == 2);
    CHECK(w->got[1]["games"][0]["to_move"] == "silver");
}

TEST_CASE("room: a live-list change held back by the interval goes out when it ends") {
    Fixture f(200);
    auto w = std::make_shared<Fake>();
    f.listings.subscribe_live(w);
    f.run();
    f.room->join(f.bob, f.b);  // a start is urgent: published at once
    f.run();
    REQUIRE(!w->got.empty());
    CHECK(w->got.back()["games"][0]["to_move"] == "silver");
    const auto before = w->got.size();
    auto s = f.setup_msg(1);
    REQUIRE(!f.mirror.apply_setup(Side::Silver, s.setup));
    f.room->setup(f.ann, f.a, s);  // within the interval: held back ...
    f.run();
    CHECK(w->got.size() == before);
    // ... and published when the interval ends, though nothing else happens in the game.
    f.run_until([&] { return w->got.size() > before; });
    REQUIRE(w->got.size() == before + 1);
    CHECK(w->got.back()["games"][0]["to_move"] == "bronze");
}

TEST_CASE("room: a game another node took over sends anyone who still finds it to the new owner") {
    Fixture f;
    f.room->join(f.bob, f.b);
    f.run();
    f.a->got.clear();
    f.room->lost(std::string(kFenced) + "game abc234 is no longer owned by this node");
    f.run();
    CHECK(f.a->moved_codes == std::vector<std::string>{"abc234"});
    CHECK(f.b->moved_codes == std::vector<std::string>{"abc234"});
    // A request that found the room before it was dropped: moved, not "could not be created".
    f.room->watch(f.cat, f.c, std::nullopt);
    f.room->join(f.cat, f.c);
    f.run();
    CHECK(f.c->got.empty());
    CHECK(f.c->moved_codes == std::vector<std::string>{"abc234", "abc234"});
}

// A write refused because another node owns the game now (PgStore's fence): nothing of it is
// sent, and everyone the room would have answered learns the game moved, also a connection of
// the mover that does not watch the game (its stand-in on the owner after its origin
// recreated it, say): without the word it would wait for an answer that never comes.
TEST_CASE("room: a write refused as fenced sends its waiting requester to the new owner") {
    struct FencingStore : NullStore {
        bool fence = false;
        void commit(GameWrite, Done done) override {
            if (fence)
                return done(std::string(kFenced) + "game abc234 is no longer owned by this node");
            done(std::nullopt);
        }
    } store;
    Fixture f(1000, &store);
    f.room->join(f.bob, f.b);
    f.run();
    auto s = f.setup_msg(1);
    REQUIRE(!f.mirror.apply_setup(Side::Silver, s.setup));
    store.fence = true;
    auto other = std::make_shared<Fake>();  // ann's second connection, watching nothing
    f.room->setup(f.ann, other, s);
    f.run();
    CHECK(other->got.empty());  // no ack: the setup was not saved
    CHECK(other->moved_codes == std::vector<std::string>{"abc234"});
    CHECK(f.a->moved_codes == std::vector<std::string>{"abc234"});
    CHECK(f.b->moved_codes == std::vector<std::string>{"abc234"});
}

// A commit whose answer stalls past the lease (nemesis seed 210, a stalled link to PostgreSQL):
// the new owner loads the journal with the write in it and answers the resent request; the old
// room, dropped meanwhile, learns only then that its commit went through. It must send nothing
// of it: the requester would get its ack twice.
TEST_CASE("room: a commit that ends well after the game was taken over sends nothing") {
    struct HeldStore : NullStore {
        bool hold = false;
        Done held;
        void commit(GameWrite, Done done) override {
            if (hold) return (void)(held = std::move(done));
            done(std::nullopt);
        }
    } store;
    Fixture f(1000, &store);
    f.room->join(f.bob, f.b);
    f.run();
    auto s = f.setup_msg(1);
    REQUIRE(!f.mirror.apply_setup(Side::Silver, s.setup));
    store.hold = true;
    f.room->setup(f.ann, f.a, s);
    f.run();
    REQUIRE(store.held);
    f.room->lost(std::string(kFenced) + "game abc234 was taken over by node n2");
    f.run();
    CHECK(f.a->moved_codes == std::vector<std::string>{"abc234"});
    f.a->got.clear();
    f.b->got.clear();
    std::exchange(store.held, nullptr)(std::nullopt);  // durable after all; the room let go
    f.run();
    CHECK(f.a->got.empty());  // no ack, no event: the new owner gives them
    CHECK(f.b->got.empty());
}

TEST_CASE("room: an old room dropped for a newer one of the game leaves it the seats") {
    Fixture f;
    f.directory.add("abc234", f.room);
    f.room->join(f.bob, f.b);
    f.run();
    REQUIRE(f.players.games_of(f.bob.id) == std::vector<std::string>{"abc234"});
    // This node claimed the game again: a newer room holds it, seated as the old one was.
    auto newer = f.factory.make(
        "abc234", RoomParams{Variant{}, std::nullopt, true, Side::Silver, false, std::nullopt},
        f.ann);
    f.directory.remove("abc234");
    f.directory.add("abc234", newer);
    f.room->lost(std::string(kFenced) + "game abc234 was claimed again at epoch 3");
    f.run();
    CHECK(f.b->moved_codes == std::vector<std::string>{"abc234"});
    CHECK(f.directory.find("abc234") == newer);
    CHECK(f.players.games_of(f.bob.id) == std::vector<std::string>{"abc234"});
}

// A tournament's pairing (RoomParams::opponent): the game is stored in its first write with
// both seats taken and playing, and both players are told only once it is stored. A game stored
// with one seat (as a join after the creation once did it) was left open forever when its node
// died between the two writes.
TEST_CASE("room: a pairing's game is stored whole in one write, then both players are told") {
    struct Recording : NullStore {
        std::vector<GameWrite> writes;
        Done held;
        void commit(GameWrite w, Done done) override {
            writes.push_back(std::move(w));
            held = std::move(done);
        }
    } store;
    Fixture f(1000, &store);
    std::vector<std::string> told;
    f.services.started = [&](const Player& p, const std::string& code) {
        told.push_back(p.id + " " + code);
    };
    store.writes.clear();
    if (store.held) std::exchange(store.held, nullptr)(std::nullopt);
    f.run();
    store.writes.clear();
    RoomParams params{Variant{}, std::nullopt, true, Side::Silver, true, std::nullopt};
    params.opponent = f.bob;
    auto room = f.factory.make("pair23", params, f.ann);
    room->open();
    f.run();
    REQUIRE(store.writes.size() == 1);
    REQUIRE(store.writes[0].create);
    const StoredGame& g = *store.writes[0].create;
    CHECK(g.status == "playing");
    CHECK(g.seat_id[0] == "p-ann");
    CHECK(g.seat_id[1] == "p-bob");
    // The row says the version its journal ends at (a node taking the game over checks it).
    REQUIRE(!store.writes[0].rows.empty());
    CHECK(g.version == store.writes[0].rows.back().version);
    CHECK(told.empty());  // not before the write is durable
    std::exchange(store.held, nullptr)(std::nullopt);
    f.run();
    CHECK(told == std::vector<std::string>{"p-ann pair23", "p-bob pair23"});
    CHECK(store.writes.size() == 1);
    room->watch(f.bob, f.b, std::nullopt);  // bob back: an event, stored first
    f.run();
    REQUIRE(store.held);
    std::exchange(store.held, nullptr)(std::nullopt);
    f.run();
    REQUIRE(!f.b->got.empty());
    const json snap = f.b->got.front();
    CHECK(snap["type"] == "snapshot");
    CHECK(snap["status"] == "playing");
    CHECK(snap["players"]["bronze"]["id"] == "p-bob");
}

}  // namespace tf::server
