// Puzzles (common/puzzles.h): the engine's second-best turn never being the excluded one, puzzles
// found in the bot's own games holding under the deeper verification, answers judged by the
// position they lead to, and the JSON form. The yield over a larger corpus is measured by
// tests/client/puzzles_test.py.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/bot.h"
#include "common/notation.h"
#include "common/position.h"
#include "common/puzzles.h"
#include "common/record.h"

using namespace tf;

namespace {

// Fewer games in the (unoptimised) sanitizer build: searches are its slowest part.
#ifdef NDEBUG
constexpr std::uint64_t kGames = 4;
#else
constexpr std::uint64_t kGames = 2;
#endif

// Puzzles of a few small-board bot games (the same seeds always give the same ones; seed 2 has
// three).
std::vector<Puzzle> corpus() {
    static const std::vector<Puzzle> kPuzzles = [] {
        std::vector<Puzzle> out;
        for (std::uint64_t seed = 1; seed <= kGames; ++seed) {
            auto ps = mine_record(selfplay_record(seed, Variant{7, 3, 2, 30}),
                                  "selfplay:" + std::to_string(seed));
            REQUIRE(ps);
            out.insert(out.end(), ps->begin(), ps->end());
        }
        return out;
    }();
    return kPuzzles;
}

}  // namespace

TEST_CASE("bot_turn_excluding: never the excluded position, and none left is an error") {
    Json rec = selfplay_record(9, Variant{7, 3, 2, 30});
    auto r = replay_record(rec);
    REQUIRE(r);
    Game g(r->record.variant);
    g.apply_setup(Side::Silver, r->record.silver);
    g.apply_setup(Side::Bronze, r->record.bronze);
    for (size_t i = 0; i < 6; ++i) g.apply_turn(r->record.turns[i]);
    BotOptions o;
    o.level = 3;
    auto best = bot_turn(g, o);
    REQUIRE(best);
    Game after = g;
    after.apply_turn(*best);
    auto second = bot_turn_excluding(g, o, {after});
    REQUIRE(second);
    Game after2 = g;
    REQUIRE(!after2.apply_turn(*second));
    CHECK(position_string(after2) != position_string(after));
}

TEST_CASE("puzzles: mined from bot games, each one verified, legal, themed, stable") {
    const auto ps = corpus();
    REQUIRE(!ps.empty());
    for (const Puzzle& p : ps) {
        INFO(to_json(p).dump());
        auto g = game_from_position(p.position);
        REQUIRE(g);
        CHECK(p.line.size() % 2 == 1);
        CHECK(p.margin >= PuzzleOptions{}.min_margin);
        CHECK(!p.themes.empty());
        for (const auto& t : p.themes)
            CHECK(std::find(puzzle_themes().begin(), puzzle_themes().end(), t) !=
                  puzzle_themes().end());
        std::string why;
        CHECK_MESSAGE(verify_puzzle(p, PuzzleOptions{}.verify_nodes, PuzzleOptions{}, &why), why);
        // The JSON form reads back the same.
        auto back = puzzle_from_json(to_json(p));
        REQUIRE(back);
        CHECK(to_json(*back) == to_json(p));
        // Found again at its position: the same puzzle.
        auto again = find_puzzle(*g);
        REQUIRE(again);
        CHECK(again->id == p.id);
    }
}

TEST_CASE("puzzles: answers judged by the position they lead to") {
    const auto ps = corpus();
    REQUIRE(!ps.empty());
    const Puzzle& p = ps.front();
    auto g = game_from_position(p.position);
    REQUIRE(g);
    CHECK(*judge_answer(p, 0, p.line[0]) == Answer::Correct);
    // Every other elephant move alone: wrong or (rarely) as good; never correct unless it is
    // the same position as the solution.
    MoveList ml;
    g->generate(ml);
    Game sol = *g;
    sol.apply_turn(p.line[0]);
    int wrong = 0;
    for (const Move& m : ml) {
        const Turn t = g->to_turn(m);
        Game x = *g;
        x.apply_turn(t);
        auto a = judge_answer(p, 0, t);
        REQUIRE(a);
        if (position_string(x) == position_string(sol))
            CHECK(*a == Answer::Correct);
        else
            CHECK(*a != Answer::Correct);
        wrong += *a == Answer::Wrong;
    }
    CHECK(wrong > 0);
    // An illegal answer is the rules' error; a solver index that is the opponent's is refused.
    Turn bad = p.line[0];
    bad.guardians.push_back(GuardianMove{{0, 0}, Rot::Cw, 99});
    auto e = judge_answer(p, 0, bad);
    CHECK(!e);
    CHECK(!judge_answer(p, 1, p.line[0]));
}

TEST_CASE("puzzles: malformed JSON is refused") {
    CHECK(!puzzle_from_json(Json::array()));
    CHECK(!puzzle_from_json(Json{{"position", "nonsense"}, {"line", Json::array()}}));
    const auto ps = corpus();
    REQUIRE(!ps.empty());
    Json j = to_json(ps.front());
    j["line"] = Json::array();
    CHECK(!puzzle_from_json(j));
}

TEST_CASE("bot_turn_score: the best turn searched alone to the same depth scores as the search") {
    Json rec = selfplay_record(11, Variant{});
    auto r = replay_record(rec);
    REQUIRE(r);
    Game g(r->record.variant);
    g.apply_setup(Side::Silver, r->record.silver);
    g.apply_setup(Side::Bronze, r->record.bronze);
    int checked = 0, same = 0;
    const size_t positions = kGames == 4 ? 30 : 12;  // fewer in the sanitizer build
    for (size_t i = 0; i < r->record.turns.size() && i < positions; ++i) {
        BotOptions o;
        o.level = kMaxBotLevel;
        o.nodes = 20'000;
        BotInfo info;
        auto best = bot_turn(g, o, &info);
        REQUIRE(best);
        if (info.score_depth > 0) {
            BotOptions wide = o;
            wide.nodes = o.nodes * 4;
            auto alone = bot_turn_score(g, wide, *best, info.score_depth);
            REQUIRE(alone);
            ++checked;
            same += *alone == info.score;
        }
        g.apply_turn(r->record.turns[i]);
    }
    MESSAGE(same << " of " << checked << " best turns score the same alone");
    CHECK(checked * 3 >= int(positions) * 2);
    CHECK(same * 10 >= checked * 8);  // the transposition table may shift a few
    // A turn the engine does not consider, or a game not in play: no score.
    Game fresh(Variant{});
    CHECK(!bot_turn_score(fresh, BotOptions{}, Turn{}, 1));
}
