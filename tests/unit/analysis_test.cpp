// Tests of the game analysis (common/analysis.h): the scale (win chance, judgement, lichess's
// accuracy formula) on known values; one position per step, turns + 1 of them; the same record
// gives the same analysis; the engine's own turns cost nothing; a turn that throws the game away
// is a blunder with the engine's better turn beside it; finished positions are 100/0/50; records
// that cannot be analysed are errors.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/analysis.h"
#include "common/bot.h"
#include "common/playout.h"

using namespace tf;

namespace {

// A small budget keeps the tests fast; the analysis works the same at every budget.
constexpr std::uint64_t kNodes = 3'000;

// The analyser's own search (level 5's depth, seed 1, the budget).
BotOptions analyser_search() {
    BotOptions o;
    o.level = kMaxBotLevel;
    o.seed = 1;
    o.nodes = kNodes;
    return o;
}

// Both setups by the bot; the record of the game so far.
Record start(Game& g, std::uint64_t seed) {
    Record r;
    r.variant = g.variant();
    BotOptions o;
    o.seed = seed;
    r.silver = *bot_setup(g, o);
    g.apply_setup(Side::Silver, r.silver);
    r.bronze = *bot_setup(g, o);
    g.apply_setup(Side::Bronze, r.bronze);
    return r;
}

Analysis analyse(const Record& r, std::uint64_t nodes = kNodes) {
    auto a = Analyser::create(to_json(r), nodes);
    REQUIRE(a);
    while (!a->finished()) a->step();
    return a->result();
}

// A random game of elephant moves on `v` to its end, as a record.
Record random_game(const Variant& v, std::uint64_t seed) {
    Rng rng(seed);
    Record r;
    r.variant = v;
    Game g(v);
    r.silver = random_setup(g, rng);
    g.apply_setup(Side::Silver, r.silver);
    r.bronze = random_setup(g, rng);
    g.apply_setup(Side::Bronze, r.bronze);
    MoveList ml;
    Move m;
    while (!g.over()) {
        Turn t = random_move(g, rng, ml, m) ? g.to_turn(m) : Turn{};
        g.apply_turn(t);
        r.turns.push_back(t);
    }
    return r;
}

}  // namespace

TEST_CASE("analysis: the scale") {
    CHECK(win_chance(0) == doctest::Approx(50));
    CHECK(win_chance(300) == doctest::Approx(75));  // three points ahead
    CHECK(win_chance(-300) == doctest::Approx(25));
    CHECK(win_chance(kForcedEval) > 99.99);
    CHECK(win_chance(-kForcedEval) < 0.01);
    // Lichess's per-move accuracy: 103.1668 * exp(-0.04354 * loss) - 3.1669, within 0..100.
    CHECK(turn_accuracy(0) == doctest::Approx(99.9999));
    CHECK(turn_accuracy(10) == doctest::Approx(63.5812).epsilon(1e-4));
    CHECK(turn_accuracy(30) == doctest::Approx(24.7756).epsilon(1e-4));
    CHECK(turn_accuracy(100) == 0);
    CHECK(judge_loss(9.9) == Judgement::None);
    CHECK(judge_loss(10) == Judgement::Inaccuracy);
    CHECK(judge_loss(20) == Judgement::Mistake);
    CHECK(judge_loss(29.9) == Judgement::Mistake);
    CHECK(judge_loss(30) == Judgement::Blunder);
}

TEST_CASE("analysis: one position per step, turns + 1 of them, the same every time") {
    Game g(Variant{});
    Record r = start(g, 3);
    Rng rng(5);
    MoveList ml;
    Move m;
    for (int i = 0; i < 8 && random_move(g, rng, ml, m); ++i) {
        r.turns.push_back(g.to_turn(m));
        g.apply_turn(r.turns.back());
    }
    auto a = Analyser::create(to_json(r), kNodes);
    REQUIRE(a);
    CHECK(a->total() == int(r.turns.size()) + 1);
    for (int i = 0; i < a->total(); ++i) {
        CHECK(a->done() == i);
        CHECK(!a->finished());
        a->step();
    }
    CHECK(a->finished());
    a->step();  // nothing more to do
    CHECK(a->done() == a->total());
    const Analysis first = a->result();
    CHECK(first.positions.size() == r.turns.size() + 1);
    CHECK(first.turns.size() == r.turns.size());
    CHECK(first.nodes == kNodes);
    for (size_t i = 0; i < first.turns.size(); ++i) {
        CHECK(first.turns[i].side == (i % 2 ? Side::Bronze : Side::Silver));
        CHECK(first.turns[i].turn == r.turns[i]);
        CHECK(first.positions[i].best);  // a game in play always has a best turn
    }
    CHECK(to_json(analyse(r)).dump() == to_json(first).dump());
}

TEST_CASE("analysis: the engine's own turns lose nothing") {
    Game g(Variant{});
    Record r = start(g, 7);
    for (int i = 0; i < 10 && !g.over(); ++i) {
        r.turns.push_back(*bot_turn(g, analyser_search()));
        g.apply_turn(r.turns.back());
    }
    const Analysis a = analyse(r);
    for (const TurnEval& t : a.turns) {
        CHECK(t.loss == 0);
        CHECK(t.judgement == Judgement::None);
        CHECK(!t.best);
    }
    for (const PlayerEval& p : a.players) {
        CHECK(p.accuracy == 100);
        CHECK(p.inaccuracies + p.mistakes + p.blunders == 0);
    }
}

TEST_CASE("analysis: a turn that throws the game away is a blunder") {
    // The engine plays both sides; then, from the first position where one exists, the mover
    // plays the elephant move that leaves the opponent best off by a greedy (level 3) look.
    Game g(Variant{});
    Record r = start(g, 11);
    std::optional<Turn> bad;
    for (int i = 0; i < 30 && !bad && !g.over(); ++i) {
        BotInfo engine;
        const Turn best = *bot_turn(g, analyser_search(), &engine);
        MoveList ml;
        g.generate(ml);
        int worst = -kForcedEval;
        Turn worst_turn;
        for (const Move& m : ml) {
            Game c = g;
            c.play(m);
            if (c.over()) continue;
            BotOptions greedy;
            greedy.level = 3;
            BotInfo reply;
            bot_turn(c, greedy, &reply);
            if (reply.score > worst) {
                worst = reply.score;
                worst_turn = g.to_turn(m);
            }
        }
        // Five points given away: from an even position, well past the blunder mark (W 50 -> 20
        // is 3.8 points).
        if (i >= 4 && worst + engine.score >= 500) {
            bad = worst_turn;
        } else {
            r.turns.push_back(best);
            g.apply_turn(best);
        }
    }
    REQUIRE(bad);
    r.turns.push_back(*bad);
    const Analysis a = analyse(r);
    const TurnEval& t = a.turns.back();
    CAPTURE(to_json(a).dump());
    CHECK(t.judgement == Judgement::Blunder);
    CHECK(t.loss >= 30);
    REQUIRE(t.best);
    CHECK(*t.best != *bad);
    CHECK(a.players[idx(t.side)].blunders == 1);
    CHECK(a.players[idx(t.side)].accuracy < 100);
    CHECK(a.players[idx(~t.side)].accuracy == 100);
}

TEST_CASE("analysis: a finished position is won, lost or drawn for certain") {
    // 5 x 5, one elephant each, two quiet turns end the game: short games, many of them drawn.
    const Variant v{5, 1, 1, 2};
    bool seen[3] = {false, false, false};  // silver won, bronze won, drawn
    for (std::uint64_t seed = 1; seed < 200 && !(seen[0] && seen[1] && seen[2]); ++seed) {
        const Record r = random_game(v, seed);
        Game g(v);
        g.apply_setup(Side::Silver, r.silver);
        g.apply_setup(Side::Bronze, r.bronze);
        for (const Turn& t : r.turns) g.apply_turn(t);
        const Analysis a = analyse(r);
        const PositionEval& last = a.positions.back();
        CHECK(!last.best);
        CHECK(last.eval == 100 * (g.score(Side::Silver) - g.score(Side::Bronze)));
        CHECK(last.forced == g.winner());
        const int which = !g.winner() ? 2 : idx(*g.winner());
        CHECK(last.win == (which == 0 ? 100 : which == 1 ? 0 : 50));
        seen[which] = true;
    }
    CHECK(seen[0]);
    CHECK(seen[1]);
    CHECK(seen[2]);
}

TEST_CASE("analysis: records that cannot be analysed are errors") {
    CHECK(!Analyser::create(Json("not a record")));
    CHECK(!Analyser::create(Json::parse(R"({"variant": null, "turns": []})")));
    Game g(Variant{});
    Record r = start(g, 2);
    Json j = to_json(r);
    j["setup"]["bronze"] = j["setup"]["silver"];  // bronze's elephants in silver's zone
    auto bad_setup = Analyser::create(j);
    REQUIRE(!bad_setup);
    CHECK(bad_setup.error().message.starts_with("bronze's setup: "));
    MoveList ml;
    g.generate(ml);
    r.turns.push_back(g.to_turn(ml[0]));
    r.turns.push_back(r.turns.back());  // silver's move again, now bronze's turn
    auto bad_turn = Analyser::create(to_json(r));
    REQUIRE(!bad_turn);
    CHECK(bad_turn.error().code == ErrorCode::NotOwnElephant);
    CHECK(bad_turn.error().message.starts_with("turn 2: "));
    r.turns.pop_back();
    CHECK(Analyser::create(to_json(r)));
}

TEST_CASE("analysis: the JSON shape") {
    Game g(Variant{});
    Record r = start(g, 4);
    MoveList ml;
    g.generate(ml);
    r.turns.push_back(g.to_turn(ml[0]));
    const Json j = to_json(analyse(r));
    CHECK(j.at("nodes") == kNodes);
    REQUIRE(j.at("positions").size() == 2);
    for (const Json& p : j.at("positions")) {
        CHECK(p.at("eval").is_number_integer());
        CHECK(p.at("win").is_number());
        CHECK((p.at("forced").is_null() || p.at("forced").is_string()));
        CHECK(p.at("best").is_object());
    }
    const Json& t = j.at("turns").at(0);
    CHECK(t.at("side") == "silver");
    CHECK(t.at("turn") == to_json(r.turns[0]));
    CHECK(t.at("loss").is_number());
    CHECK((t.at("judgement").is_null() || t.at("judgement").is_string()));
    CHECK((t.at("best").is_null() || t.at("best").is_object()));
    for (const char* s : {"silver", "bronze"}) {
        const Json& p = j.at("players").at(s);
        CHECK(p.at("accuracy").is_number());
        for (const char* k : {"inaccuracies", "mistakes", "blunders"})
            CHECK(p.at(k).is_number_integer());
    }
    CHECK(j.at("players").at("bronze").at("accuracy") == 100);  // no turns yet
}
