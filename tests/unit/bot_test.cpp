// Tests of the computer opponent (common/bot.h): every setup and turn it chooses is legal, on
// variants across the spec's ranges and at every level; the same position, level and seed give
// the same turn (also from concurrent threads); it passes (and only then) when no elephant move
// exists; it takes a capture that wins; bad calls are explicit errors.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/bot.h"
#include "common/json.h"
#include "common/notation.h"
#include "common/playout.h"

using namespace tf;

namespace {

// Under AddressSanitizer or without optimisation the games are cut shorter.
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
constexpr bool kSlow = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSlow = true;
#else
constexpr bool kSlow = false;
#endif
#else
constexpr bool kSlow = false;
#endif

std::string vname(const Variant& v) {
    return to_json(v).dump();
}

// Small budgets: the rules of the choice are the same at every budget, only the depth differs.
BotOptions small(int level, std::uint64_t seed) {
    BotOptions o;
    o.level = level;
    o.seed = seed;
    o.nodes = std::uint64_t(100 * level * level);
    return o;
}

struct Extras {
    int burnt = 0, guardians = 0, passes = 0, captures = 0;
};

// Plays a game where `silver` and `bronze` are bot levels (0 = uniformly random elephant moves),
// checking every bot setup and turn with the rules. Returns false after a failed check.
bool play_checked(const Variant& v, int silver, int bronze, std::uint64_t seed, int max_turns,
                  Extras& ex) {
    Game g(v);
    Rng rng(seed);
    auto level = [&](Side s) { return s == Side::Silver ? silver : bronze; };
    while (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
        const Side s = g.to_move();
        Setup st;
        if (level(s)) {
            auto e = bot_setup(g, small(level(s), seed));
            REQUIRE_MESSAGE(e, "bot_setup failed");
            st = *e;
        } else {
            st = random_setup(g, rng);
        }
        auto err = g.apply_setup(s, st);
        CHECK_MESSAGE(!err, vname(v), " seed ", seed,
                      ": illegal bot setup: ", (err ? err->message : ""));
        if (err) return false;
    }
    MoveList ml;
    while (!g.over() && g.turns_played() < max_turns) {
        const Side s = g.to_move();
        if (!level(s)) {
            Move m;
            if (random_move(g, rng, ml, m))
                g.play(m);
            else
                g.play_pass();
            continue;
        }
        auto t = bot_turn(g, small(level(s), seed + std::uint64_t(g.turns_played())));
        REQUIRE_MESSAGE(t, "bot_turn failed: ", (t ? "" : t.error().message));
        const bool can_move = g.has_legal_move();
        CHECK(bool(t->elephant) == can_move);
        const int captured = g.stats(s).captured;
        auto err = g.apply_turn(*t);
        CHECK_MESSAGE(!err, vname(v), " seed ", seed, " turn ", g.turns_played(), ": illegal ",
                      turn_to_notation(*t, v.size), ": ", (err ? err->message : ""));
        if (err) return false;
        CHECK(g.is_ok());
        ex.burnt += t->burnt ? 1 : 0;
        ex.guardians += int(t->guardians.size());
        ex.passes += t->elephant ? 0 : 1;
        ex.captures += g.stats(s).captured - captured;
    }
    return true;
}

// A position from a snapshot with the trunk and elephant counts balanced the way
// Game::from_snapshot requires: trunks not on the field are silver's spent ones.
Game position(Variant v, Side to_move, std::vector<Cell> trunks, std::vector<Cell> burnt,
              std::vector<ElephantInfo> elephants, std::vector<GuardianInfo> guardians,
              int silver_trunks) {
    Snapshot s;
    s.variant = v;
    s.to_move = to_move;
    s.trunks = std::move(trunks);
    s.burnt = std::move(burnt);
    s.elephants = std::move(elephants);
    s.guardians = std::move(guardians);
    s.stats[0].trunks = silver_trunks;
    s.stats[0].spent = v.initial_trunks() - int(s.trunks.size()) - silver_trunks;
    int placed = int(s.burnt.size());
    for (int i = 0; i < 2; ++i) {
        const int used = std::min(placed, v.burnt);
        s.stats[i].burnt_left = v.burnt - used;
        placed -= used;
    }
    auto g = Game::from_snapshot(s);
    REQUIRE_MESSAGE(g, (g ? "" : g.error().message));
    return *g;
}

Game midgame(std::uint64_t seed, int turns) {
    Game g{Variant{}};
    Rng rng(seed);
    play_random_game(g, rng, turns);
    REQUIRE(!g.over());
    return g;
}

}  // namespace

TEST_CASE("bot: every setup and turn is legal, on every variant size and level") {
    const Variant variants[] = {
        {5, 3, 2, 20}, {5, 1, 0, 2},   {6, 4, 9, 10},   {7, 5, 3, 30},  {8, 2, 1, 1000},
        {9, 5, 3, 40}, {10, 8, 9, 50}, {11, 9, 9, 100}, {12, 6, 4, 60}, {13, 11, 3, 1000},
    };
    const int max_turns = kSlow ? 60 : 400;
    Extras ex;
    std::uint64_t seed = 1;
    for (const Variant& v : variants) {
        const int games = v.size <= 9 ? 3 : 1;
        for (int i = 0; i < games; ++i, ++seed) {
            // Levels cycle so that every level plays both colours and against the random player.
            const int a = 1 + int(seed % 5), b = int((seed * 3) % 6);
            CAPTURE(vname(v));
            CAPTURE(seed);
            REQUIRE(play_checked(v, a, b, seed, max_turns, ex));
            REQUIRE(play_checked(v, b, a, seed + 1000, max_turns, ex));
        }
    }
    MESSAGE("burnt trunks placed " << ex.burnt << ", guardian moves " << ex.guardians
                                   << ", captures " << ex.captures << ", passes " << ex.passes);
    // The bot plays whole turns, not only elephant moves.
    CHECK(ex.guardians > 0);
    CHECK(ex.captures > 0);
    CHECK(ex.burnt > 0);
}

TEST_CASE("bot: the same position, level and seed give the same turn, also from threads") {
    for (std::uint64_t s = 1; s <= 3; ++s) {
        const Game g = midgame(s, int(10 * s));
        for (int level = 1; level <= (kSlow ? 3 : 5); ++level) {
            BotOptions o;
            o.level = level;
            o.seed = s;
            BotInfo i1, i2;
            auto t1 = bot_turn(g, o, &i1);
            auto t2 = bot_turn(g, o, &i2);
            REQUIRE(t1);
            REQUIRE(t2);
            CHECK(*t1 == *t2);
            CHECK(i1.nodes == i2.nodes);
            CHECK(i1.depth == i2.depth);
            // Depth 1 is always completed; deeper iterations stop at the budget.
            CHECK(i1.nodes <= bot_node_budget(level) + std::uint64_t(i1.candidates) + 1000);
        }
    }
    // Concurrent calls share nothing: each thread gets the sequential answer.
    const Game g = midgame(9, 20);
    BotOptions o;
    o.level = 2;
    o.seed = 7;
    const Turn expected = *bot_turn(g, o);
    std::vector<Turn> got(4);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&, i] {
            auto t = bot_turn(g, o);
            if (t) got[size_t(i)] = *t;
        });
    for (auto& t : threads) t.join();
    for (const Turn& t : got) CHECK(t == expected);
    // Setups too.
    Game fresh{Variant{}};
    CHECK(*bot_setup(fresh, o) == *bot_setup(fresh, o));
}

TEST_CASE("bot: passes exactly when no elephant move exists") {
    // Silver's only elephant is walled in by burnt trunks.
    const Variant v{5, 1, 2, 20};
    Game g = position(v, Side::Silver, {{5, 5}, {5, 4}, {5, 1}}, {{2, 3}, {4, 3}, {3, 2}, {3, 4}},
                      {{Side::Silver, {3, 3}, Dir::N}, {Side::Bronze, {1, 5}, Dir::E}},
                      {{Side::Silver, {0, 0}},
                       {Side::Silver, {0, 6}},
                       {Side::Bronze, {6, 6}},
                       {Side::Bronze, {6, 0}}},
                      2);
    REQUIRE(!g.has_legal_move());
    for (int level = 1; level <= 5; ++level) {
        auto t = bot_turn(g, {level, 3});
        REQUIRE(t);
        CHECK(!t->elephant);
        Game probe = g;
        CHECK(!probe.apply_turn(*t));
    }
    // Bronze, to move in the same position, has moves and must make one.
    Snapshot s = g.snapshot();
    s.to_move = Side::Bronze;
    Game b = *Game::from_snapshot(s);
    auto t = bot_turn(b, {3, 3});
    REQUIRE(t);
    CHECK(t->elephant);
}

TEST_CASE("bot: takes a guardian capture that wins the game") {
    // Column c is watched from Sc; moving silver's NW guardian 2 cells counterclockwise to W4
    // watches row 4 and captures bronze's last elephant on c4: silver wins 3 to 0.
    const Variant v{5, 1, 0, 20};
    const Game g = position(v, Side::Silver, {{5, 5}, {5, 4}, {5, 3}, {4, 5}}, {},
                            {{Side::Silver, {2, 2}, Dir::N}, {Side::Bronze, {3, 4}, Dir::E}},
                            {{Side::Silver, {3, 0}},
                             {Side::Silver, {0, 6}},
                             {Side::Bronze, {6, 6}},
                             {Side::Bronze, {6, 0}}},
                            3);
    for (int level = 1; level <= 5; ++level) {
        auto t = bot_turn(g, {level, 1});
        REQUIRE(t);
        CAPTURE(turn_to_notation(*t, v.size));
        Game after = g;
        REQUIRE(!after.apply_turn(*t));
        CHECK(after.over());
        CHECK(after.winner() == Side::Silver);
        CHECK(after.stats(Side::Silver).captured == 1);
    }
}

TEST_CASE("bot: bad calls are errors, not crashes") {
    Game g{Variant{}};
    auto t = bot_turn(g, {3, 1});
    REQUIRE(!t);
    CHECK(t.error().code == ErrorCode::WrongPhase);
    CHECK(!bot_setup(g, {0, 1}));
    CHECK(bot_setup(g, {0, 1}).error().code == ErrorCode::BadFormat);
    CHECK(!bot_setup(g, {6, 1}));
    Game m = midgame(4, 6);
    CHECK(bot_setup(m, {1, 1}).error().code == ErrorCode::WrongPhase);
    CHECK(bot_turn(m, {-1, 1}).error().code == ErrorCode::BadFormat);
    m.resign(Side::Silver);
    CHECK(bot_turn(m, {1, 1}).error().code == ErrorCode::GameOver);
    CHECK(bot_setup(m, {1, 1}).error().code == ErrorCode::GameOver);
    CHECK(bot_node_budget(0) == 0);
    CHECK(bot_node_budget(6) == 0);
    for (int l = 1; l <= 5; ++l) CHECK(bot_node_budget(l) > 0);
}
