// Position strings (common/position.h) and records with variations (common/variations.h):
// round trips over seeded games of every shape of variant, the documented example, and every
// kind of malformed input named in its error.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "common/analysis.h"
#include "common/bot.h"
#include "common/json.h"
#include "common/notation.h"
#include "common/playout.h"
#include "common/position.h"
#include "common/record.h"
#include "common/variations.h"

using namespace tf;

namespace {

const Variant kVariants[] = {{5, 3, 2, 20}, {5, 1, 0, 2},    {7, 4, 2, 30},
                             {9, 5, 3, 40}, {11, 9, 9, 100}, {13, 2, 9, 50}};

// One turn of a seeded game: mostly random elephant moves (so games reach every end), now and
// then a level-2 bot turn (burnt trunks and guardian moves, so captures and spent trunks).
Turn next_turn(const Game& g, Rng& rng) {
    if (rng.below(3) == 0) {
        BotOptions opt;
        opt.level = 2;
        opt.seed = rng.next();
        if (auto t = bot_turn(g, opt)) return *t;
    }
    MoveList scratch;
    Move m;
    if (random_move(g, rng, scratch, m)) return g.to_turn(m);
    return Turn{};
}

Game started(const Variant& v, Rng& rng) {
    Game g(v);
    g.apply_setup(Side::Silver, random_setup(g, rng));
    g.apply_setup(Side::Bronze, random_setup(g, rng));
    return g;
}

void same_position(const Game& a, const Game& b) {
    Json ja = state_to_json(a), jb = state_to_json(b);
    if (a.over()) {  // who "is to move" in a finished game is not part of its position
        ja.erase("to_move");
        jb.erase("to_move");
    }
    // The order of the pieces follows how they came on the board, which a position does not hold.
    for (Json* j : {&ja, &jb})
        for (const char* k : {"elephants", "guardians"})
            std::sort((*j)[k].begin(), (*j)[k].end(),
                      [](const Json& x, const Json& y) { return x.dump() < y.dump(); });
    CHECK(ja == jb);
}

}  // namespace

TEST_CASE("position strings: written and read back, every position of seeded games") {
    int positions = 0, ended = 0;
    for (const Variant& v : kVariants) {
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            Rng rng(seed * 7919 + std::uint64_t(v.size));
            Game g = started(v, rng);
            for (int turn = 0; turn < 400; ++turn) {
                auto text = position_string(g);
                REQUIRE(text);
                auto back = game_from_position(*text);
                INFO(*text);
                REQUIRE_MESSAGE(bool(back), (back ? "" : back.error().message));
                same_position(g, *back);
                CHECK(position_string(*back) == text);
                ++positions;
                if (g.over()) {
                    CHECK(text->find(" - ") != std::string::npos);
                    CHECK(back->over());
                    CHECK(back->end_reason() == g.end_reason());
                    ++ended;
                    break;
                }
                REQUIRE(!g.apply_turn(next_turn(g, rng)));
            }
        }
    }
    CHECK(positions > 1000);
    CHECK(ended > 20);
}

TEST_CASE("position strings: the documented example") {
    // docs/RULES.md §8 "Position strings": the 5x5 board of the worked example.
    const std::string text =
        "5.3.2.20 7/g1oooo1/1eoooo1/2Seoo1/2Neoo1/5N1/1G2gG1 s 2.0.2.0.0 "
        "2.0.2.0.0 0 4";
    auto g = game_from_position(text);
    REQUIRE_MESSAGE(bool(g), (g ? "" : g.error().message));
    CHECK(g->variant() == Variant{5, 3, 2, 20});
    CHECK(g->to_move() == Side::Silver);
    CHECK(g->turns_played() == 4);
    CHECK(g->has_trunk({2, 5}));
    CHECK(!g->has_trunk({1, 5}));
    auto e = g->elephant_on({2, 3});
    REQUIRE(e);
    CHECK(e->side == Side::Silver);
    CHECK(e->facing == Dir::S);
    auto b = g->elephant_on({3, 3});
    REQUIRE(b);
    CHECK(b->side == Side::Bronze);
    CHECK(b->facing == Dir::E);
    CHECK(g->guardian_on({0, 5})->side == Side::Bronze);
    CHECK(g->guardian_on({1, 0})->side == Side::Silver);
    CHECK(g->guardian_on({4, 0})->side == Side::Bronze);
    CHECK(g->stats(Side::Silver).trunks == 2);
    CHECK(g->stats(Side::Bronze).burnt_left == 2);
    CHECK(position_string(*g) == text);
    // `_` stands for a space, so the string fits in an address.
    std::string underscored = text;
    for (char& c : underscored)
        if (c == ' ') c = '_';
    auto u = game_from_position(underscored);
    REQUIRE(u);
    CHECK(position_string(*u) == text);
}

TEST_CASE("position strings: setups have none") {
    Game g(Variant{});
    CHECK(!position_string(g));
    Rng rng(5);
    g.apply_setup(Side::Silver, random_setup(g, rng));
    CHECK(!position_string(g));
    g.apply_setup(Side::Bronze, random_setup(g, rng));
    CHECK(position_string(g));
}

TEST_CASE("position strings: what is wrong is named") {
    const std::string ok =
        "5.3.2.20 7/g1oooo1/1eoooo1/2Seoo1/2Neoo1/5N1/1G2gG1 s 2.0.2.0.0 "
        "2.0.2.0.0 0 4";
    REQUIRE(game_from_position(ok));
    auto error = [](const std::string& text) {
        auto g = game_from_position(text);
        return g ? std::string("accepted") : g.error().message;
    };
    auto replace = [&](const std::string& from, const std::string& to) {
        std::string s = ok;
        s.replace(s.find(from), from.size(), to);
        return s;
    };
    CHECK(error("") == "position: expected 7 fields separated by spaces, found 1");
    CHECK(error(replace(" 0 4", " 0")).find("expected 7 fields") != std::string::npos);
    CHECK(error(replace("5.3.2.20", "5.3.2")).find("the variant is size.elephants") !=
          std::string::npos);
    auto v = game_from_position(replace("5.3.2.20", "99.3.2.20"));
    REQUIRE(!v);
    CHECK(v.error().code == ErrorCode::BadVariant);
    CHECK(error(replace("7/g1oooo1/", "7/")).find("the board has 6 rows") != std::string::npos);
    CHECK(error(replace("g1oooo1", "g1oooo2")).find("row 2 of the board has 8 cells") !=
          std::string::npos);
    CHECK(error(replace("g1oooo1", "g1oQoo1")).find("unknown piece 'Q'") != std::string::npos);
    CHECK(error(replace("g1oooo1", "g1oooo0")).find("bad count of empty cells") !=
          std::string::npos);
    // A trunk on the ring, an elephant on the ring: the state's own checks, named.
    CHECK(error(replace("7/g1o", "o6/g1o")).find("bad trunk cell") != std::string::npos);
    CHECK(error(replace(" s 2.0", " x 2.0")).find("s, b or -") != std::string::npos);
    CHECK(error(replace(" s 2.0", " - 2.0")).find("says the game is over") != std::string::npos);
    CHECK(error(replace("2.0.2.0.0", "2.0.2.0")).find("silver's counters") != std::string::npos);
    // A trunk held that is also on the field: not conserved.
    CHECK(error(replace("2.0.2.0.0", "3.0.2.0.0")).find("not conserved") != std::string::npos);
    CHECK(error(replace(" 0 4", " x 4")).find("whole numbers") != std::string::npos);
}

TEST_CASE("variations: read, printed, read again; JSON both ways") {
    Rng rng(42);
    Game g = started(Variant{}, rng);
    const std::string root = *position_string(g);
    // A main line of 12 turns with an alternative at turns 3 and 7, one nested.
    std::string text =
        "[Position \"" + root +
        "\"]\n[Game \"k3v9qa\"]\n[Note \"a \\\"quoted\\\" \\\\ value\"]\n\n{before anything}";
    Game at = g;
    std::vector<Game> line;
    for (int i = 0; i < 12; ++i) {
        line.push_back(at);
        const Turn t = next_turn(at, rng);
        text += " " + std::to_string(i + 1) + ". " + turn_to_notation(t, 9);
        if (i == 2) text += " {a comment}";
        REQUIRE(!at.apply_turn(t));
        if (i == 2 || i == 6) {
            Game alt = line[size_t(i)];
            text += " (";
            for (int k = 0; k < 3; ++k) {
                const Game alt_before = alt;
                const Turn a = next_turn(alt, rng);
                text += (k ? " " : "") + std::to_string(i + 1 + k) + ". " + turn_to_notation(a, 9);
                REQUIRE(!alt.apply_turn(a));
                if (i == 6 && k == 1) {
                    // a nested alternative to the alternative's second turn
                    Game nested = alt_before;
                    Turn b = next_turn(nested, rng);
                    for (int tries = 0; tries < 20 && b == a; ++tries) b = next_turn(nested, rng);
                    REQUIRE(!nested.apply_turn(b));
                    text += " (" + std::to_string(i + 2) + ". " + turn_to_notation(b, 9) + ")";
                }
            }
            text += ")";
        }
    }
    auto tree = parse_variations(text);
    REQUIRE_MESSAGE(bool(tree), (tree ? "" : tree.error().message));
    CHECK(tree->position == root);
    CHECK(tree->comment == "before anything");
    REQUIRE(tree->tags.size() == 3);
    CHECK(tree->tags[1] == std::pair<std::string, std::string>{"Game", "k3v9qa"});
    CHECK(tree->tags[2].second == "a \"quoted\" \\ value");
    // Main line 12 deep; turn 3 has two continuations of its parent: the main and the alternative.
    const VariationNode* n = &tree->children[0];
    int depth = 1;
    while (!n->children.empty()) {
        n = &n->children[0];
        ++depth;
    }
    CHECK(depth == 12);
    CHECK(tree->children[0].children[0].children.size() == 2);
    CHECK(tree->children[0].children[0].children[0].comment == "a comment");

    const std::string printed = print_variations(*tree);
    auto again = parse_variations(printed);
    REQUIRE_MESSAGE(bool(again), (again ? "" : again.error().message));
    CHECK(print_variations(*again) == printed);
    CHECK(to_json(*again) == to_json(*tree));
    for (size_t at_nl = 0, start = 0; (at_nl = printed.find('\n', start)) != std::string::npos;
         start = at_nl + 1)
        if (printed[start] != '[') CHECK(at_nl - start <= 80);  // tags may be long

    auto from_json = variations_from_json(to_json(*tree));
    REQUIRE(from_json);
    CHECK(print_variations(*from_json) == printed);
}

TEST_CASE("variations: errors name the turn and the rule") {
    const std::string root =
        "5.3.2.20 7/g1oooo1/1eoooo1/2Seoo1/2Neoo1/5N1/1G2gG1 s 2.0.2.0.0 2.0.2.0.0 0 4";
    auto game = game_from_position(root);
    REQUIRE(game);
    auto error = [](const std::string& text) {
        auto t = parse_variations(text);
        return t ? std::string("accepted") : t.error().message;
    };
    const std::string head = "[Position \"" + root + "\"]\n";
    CHECK(error("1. a1-a2") == "a [Position \"...\"] tag is required");
    CHECK(error("[Position \"nonsense\"]").find("position: expected 7 fields") !=
          std::string::npos);
    CHECK(error(head + "1. a1-a2").find("turn 1 where turn 5 comes") != std::string::npos);
    CHECK(error(head + "5. Ec+1").find("turn 5 (Ec+1): ") != std::string::npos);
    auto t = parse_variations(head + "5. a1-a2:N");
    REQUIRE(!t);
    CHECK(t.error().code != ErrorCode::BadFormat);  // the rules' own code
    CHECK(error(head + "5.").find("no turn after the number") != std::string::npos);
    CHECK(error(head + "(5. a1-b1:E)").find("'(' before any turn") != std::string::npos);
    CHECK(error(head + "{open").find("comment is not closed") != std::string::npos);
    CHECK(error(head + ")").find("')' without a '('") != std::string::npos);
    CHECK(error("[Position \"" + root).find("not closed") != std::string::npos);
    CHECK(error(head + "5.a1-b1:E c1").find("turn 5") != std::string::npos);
    // An empty tree is a position alone.
    auto empty = parse_variations(head);
    REQUIRE(empty);
    CHECK(empty->children.empty());
    CHECK(print_variations(*empty) == head + "\n");
    // JSON: an illegal turn is refused, as in the text.
    Json j = to_json(*empty);
    j["children"] =
        Json::array({Json{{"turn", Json{{"elephant", nullptr}, {"guardians", Json::array()}}}}});
    CHECK(!variations_from_json(j));
}

TEST_CASE("records from a position: replayed, printed, analysed") {
    const std::string pos =
        "5.3.2.20 7/g1oooo1/1eoooo1/2Seoo1/2Neoo1/5N1/1G2gG1 s 2.0.2.0.0 2.0.2.0.0 0 4";
    Json rec = {{"variant", {{"size", 5}, {"elephants", 3}, {"burnt", 2}, {"quiet", 20}}},
                {"position", pos},
                {"turns", Json::array()}};
    auto start = game_from_position(pos);
    REQUIRE(start);
    Game g = *start;
    const Turn t1 = *turn_from_notation("e1-e2", 5);
    REQUIRE(!g.apply_turn(t1));
    rec["turns"].push_back(to_json(t1));
    auto r = replay_record(rec);
    REQUIRE(r);
    CHECK(!r->error);
    CHECK(r->applied == 1);
    CHECK(r->record.position == pos);
    CHECK(state_to_json(r->game) == state_to_json(g));
    // Printed as it was read: position, no setup.
    const Json back = to_json(r->record);
    CHECK(back.contains("position"));
    CHECK(!back.contains("setup"));
    CHECK(back["turns"].size() == 1);
    // The analysis starts at the position.
    auto a = Analyser::create(rec, 2000);
    REQUIRE(a);
    CHECK(a->total() == 2);
    // Errors: another variant, a position that is no string or no position, an illegal turn.
    Json other = rec;
    other["variant"]["size"] = 7;
    CHECK(!replay_record(other));
    other = rec;
    other["position"] = 5;
    CHECK(!replay_record(other));
    other = rec;
    other["position"] = "nonsense";
    CHECK(!replay_record(other));
    other = rec;
    other["turns"].push_back(to_json(t1));  // e1 is empty now
    auto bad = replay_record(other);
    REQUIRE(bad);
    CHECK(bad->error);
    CHECK(bad->error_turn == 1);
}
