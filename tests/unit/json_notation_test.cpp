// Canonical JSON (spec §6), variants (§1), the turn notation and the state round trip:
// strict types, defaults, bounds, hostile input, exact messages.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/notation.h"
#include "common/playout.h"
#include "common/record.h"

using namespace tf;

namespace {

Json J(const char* text) {
    return Json::parse(text);
}

// Parses a turn that must be rejected as badly formed; returns the message.
std::string bad_turn(const Json& j) {
    auto t = turn_from_json(j);
    REQUIRE_MESSAGE(!t, "accepted " << j.dump());
    CHECK(t.error().code == ErrorCode::BadFormat);
    return t.error().message;
}

Turn good_turn(const Json& j) {
    auto t = turn_from_json(j);
    REQUIRE_MESSAGE(t, j.dump() << ": " << (t ? "" : t.error().message));
    return *t;
}

// A legal elephant move from [4,3] to [4,4] with a facing, as JSON, to vary one field at a time.
Json base_turn() {
    return J(R"({"elephant": {"from": [4, 3], "path": [[4, 4]], "facing": "N"}, "burnt": [5, 5],
                 "guardians": [{"from": [0, 0], "dir": "cw", "steps": 1}]})");
}

Turn expected_base() {
    return Turn{
        ElephantMove{{4, 3}, {{4, 4}}, Dir::N}, Cell{5, 5}, {GuardianMove{{0, 0}, Rot::Cw, 1}}};
}

std::string nested(int depth) {
    return std::string(size_t(depth), '[') + std::string(size_t(depth), ']');
}

Game played_game(const Variant& v, std::uint64_t seed, int turns) {
    Game g(v);
    Rng rng(seed);
    play_random_game(g, rng, turns);
    return g;
}

}  // namespace

// ---------------------------------------------------------------- cells

TEST_CASE("json: a cell is an array of exactly two JSON integers") {
    auto ok = cell_from_json(J("[3, 2]"), "x");
    REQUIRE(ok);
    CHECK(*ok == Cell{3, 2});
    CHECK(*cell_from_json(J("[-5, 0]"), "x") ==
          Cell{-5, 0});  // off the board is the rules' business
    CHECK(*cell_from_json(J("[1000000, -1000000]"), "x") == Cell{1000000, -1000000});
    for (const char* text : {"[1.0, 2]",
                             "[1, 2.0]",
                             "[true, 2]",
                             "[1, false]",
                             "[\"3\", 2]",
                             "[1]",
                             "[1, 2, 3]",
                             "[]",
                             "{}",
                             "null",
                             "\"a1\"",
                             "3",
                             "[[1], 2]",
                             "[null, 2]",
                             "[1e30, 2]",
                             "{\"x\": 1, \"y\": 2}",
                             "[1000001, 0]",
                             "[0, -1000001]",
                             "[18446744073709551615, 0]",
                             "[-9223372036854775808, 0]",
                             "[9223372036854775807, 1]"}) {
        CAPTURE(text);
        auto c = cell_from_json(J(text), "elephant.from");
        REQUIRE(!c);
        CHECK(c.error().code == ErrorCode::BadFormat);
        CHECK(c.error().message.rfind("elephant.from: ", 0) == 0);
    }
    CHECK(cell_from_json(J("[1.0, 2]"), "burnt").error().message ==
          "burnt: a cell is an array of two integers [x, y], got [1.0,2]");
    CHECK(cell_from_json(J("[1000001, 2]"), "burnt").error().message ==
          "burnt: coordinate 1000001 is far off the board");
}

// ---------------------------------------------------------------- turns

TEST_CASE("json: a full turn parses into exactly its values") {
    CHECK(good_turn(base_turn()) == expected_base());
    const Turn t = good_turn(J(R"({"elephant": {"from": [9, 9], "path": [[9, 10]]},
        "guardians": [{"from": [0, 10], "dir": "ccw", "steps": 3}, {"from": [3, 0], "dir": "cw", "steps": 1000000000}]})"));
    CHECK(t.elephant->from == Cell{9, 9});
    CHECK(t.elephant->path == std::vector<Cell>{{9, 10}});
    CHECK(!t.elephant->facing);
    CHECK(!t.burnt);
    REQUIRE(t.guardians.size() == 2);
    CHECK(t.guardians[0] == GuardianMove{{0, 10}, Rot::Ccw, 3});
    CHECK(t.guardians[1] == GuardianMove{{3, 0}, Rot::Cw, 1000000000});
}

TEST_CASE("json: null, absent and an empty guardians list all mean 'not done'") {
    const Turn none{};
    for (const char* text :
         {"{}", R"({"elephant": null, "burnt": null, "guardians": null})", R"({"guardians": []})",
          R"({"elephant": null})", R"({"burnt": null, "guardians": []})"}) {
        CAPTURE(text);
        CHECK(good_turn(J(text)) == none);
    }
    // facing null is the same as no facing.
    Json a = base_turn(), b = base_turn();
    a["elephant"]["facing"] = nullptr;
    b["elephant"].erase("facing");
    CHECK(good_turn(a) == good_turn(b));
    CHECK(!good_turn(a).elephant->facing);
    // Canonical output writes every key.
    CHECK(to_json(none) == J(R"({"elephant": null, "burnt": null, "guardians": []})"));
    CHECK(to_json(good_turn(b)) ==
          J(R"({"elephant": {"from": [4, 3], "path": [[4, 4]]}, "burnt": [5, 5],
                                         "guardians": [{"from": [0, 0], "dir": "cw", "steps": 1}]})"));
}

TEST_CASE("json: unknown fields are ignored at every level") {
    Json j = base_turn();
    j["comment"] = "hello";
    j["version"] = Json::array({1, 2});
    j["elephant"]["speed"] = 3.5;
    j["elephant"]["note"] = nullptr;
    j["guardians"][0]["colour"] = "black";
    CHECK(good_turn(j) == expected_base());
    auto s = setup_from_json(
        J(R"({"elephants": [[2, 1]], "guardians": [[0, 0], [0, 10]], "extra": {"a": 1}})"));
    REQUIRE(s);
    CHECK(s->elephants == std::vector<Cell>{{2, 1}});
    auto v = variant_from_json(J(R"({"size": 7, "name": "small", "elephants": 3})"));
    REQUIRE(v);
    CHECK(*v == Variant{7, 3, 3, 40});
}

TEST_CASE("json: missing from, path, dir or steps makes the turn illegal") {
    Json j = base_turn();
    j["elephant"].erase("from");
    CHECK(bad_turn(j) == "elephant.from: missing");
    j = base_turn();
    j["elephant"].erase("path");
    CHECK(bad_turn(j) == "elephant.path: expected an array of cells");
    j = base_turn();
    j["elephant"]["path"] = nullptr;
    bad_turn(j);
    j = base_turn();
    j["guardians"][0].erase("from");
    CHECK(bad_turn(j) == "guardians[0].from: missing");
    j = base_turn();
    j["guardians"][0].erase("dir");
    CHECK(bad_turn(j) == "guardians[0].dir: expected \"cw\" or \"ccw\"");
    j = base_turn();
    j["guardians"][0].erase("steps");
    CHECK(bad_turn(j) == "guardians[0].steps: expected an integer >= 1");
    j = base_turn();
    j["elephant"]["from"] = nullptr;
    bad_turn(j);
}

TEST_CASE("json: values of another type are rejected (1.0, true, \"3\", ...)") {
    struct Case {
        const char* pointer;
        const char* value;
    };
    for (const Case& c : {
             Case{"/elephant/from", "[4.0, 3]"},
             Case{"/elephant/from", "[4, true]"},
             Case{"/elephant/from", "[\"4\", 3]"},
             Case{"/elephant/from", "\"d3\""},
             Case{"/elephant/path", "[4, 4]"},
             Case{"/elephant/path", "[[4, 4.0]]"},
             Case{"/elephant/path", "\"d4\""},
             Case{"/elephant/path", "{}"},
             Case{"/elephant/facing", "\"n\""},
             Case{"/elephant/facing", "\"NE\""},
             Case{"/elephant/facing", "0"},
             Case{"/elephant/facing", "true"},
             Case{"/elephant/facing", "[\"N\"]"},
             Case{"/elephant/facing", "\"\""},
             Case{"/elephant", "true"},
             Case{"/elephant", "[]"},
             Case{"/elephant", "\"pass\""},
             Case{"/elephant", "0"},
             Case{"/burnt", "[5, 5.5]"},
             Case{"/burnt", "[[5, 5], [6, 6]]"},
             Case{"/burnt", "true"},
             Case{"/burnt", "\"e5\""},
             Case{"/guardians", "{}"},
             Case{"/guardians", "true"},
             Case{"/guardians", "\"SW+1\""},
             Case{"/guardians/0", "null"},
             Case{"/guardians/0", "[0, 0]"},
             Case{"/guardians/0/dir", "\"CW\""},
             Case{"/guardians/0/dir", "\"clockwise\""},
             Case{"/guardians/0/dir", "1"},
             Case{"/guardians/0/dir", "null"},
             Case{"/guardians/0/steps", "1.0"},
             Case{"/guardians/0/steps", "true"},
             Case{"/guardians/0/steps", "\"3\""},

             Case{"/guardians/0/steps", "-5"},
             Case{"/guardians/0/steps", "1e30"},
             Case{"/guardians/0/steps", "null"},
             Case{"/guardians/0/steps", "18446744073709551615"},
             Case{"/guardians/0/steps", "-9223372036854775808"},
             Case{"/guardians/0/from", "[0.0, 0]"},
         }) {
        CAPTURE(c.pointer);
        CAPTURE(c.value);
        Json j = base_turn();
        j[Json::json_pointer(c.pointer)] = J(c.value);
        bad_turn(j);
    }
    CHECK(bad_turn(J(R"({"elephant": {"from": [4, 3], "path": [[4, 4]], "facing": "north"}})")) ==
          "elephant.facing: expected \"N\", \"E\", \"S\" or \"W\", got \"north\"");
    Json j = base_turn();
    j["guardians"][0]["steps"] = -5;
    CHECK(bad_turn(j) == "guardians[0].steps: expected an integer >= 1, got -5");
    // steps 0 is illegal too. The parser lets it through (nlohmann stores 0 as unsigned, so the
    // `< 1` test is skipped) and the rules refuse it with guardian_steps: the turn is illegal
    // either way, which is what the spec asks.
    {
        Game g(Variant{7, 3, 2, 30});
        Rng rng(5);
        play_random_game(g, rng, 0);
        REQUIRE(g.phase() == Phase::Play);
        MoveList ml;
        g.generate(ml);
        REQUIRE(ml.size > 0);
        Json t = to_json(g.to_turn(ml[0]));
        t["guardians"] = J(R"([{"from": [0, 0], "dir": "cw", "steps": 0}])");
        t["guardians"][0]["from"] = to_json(g.guardians()[0].cell);
        auto parsed = turn_from_json(t);
        if (parsed) {
            const std::string before = state_to_json(g).dump();
            auto e = g.apply_turn(*parsed);
            REQUIRE(e);
            CHECK(e->code == ErrorCode::GuardianSteps);
            CHECK(state_to_json(g).dump() == before);
        } else {
            CHECK(parsed.error().code == ErrorCode::BadFormat);
        }
    }
    for (const char* top : {"[]", "null", "\"pass\"", "5", "true"}) {
        CAPTURE(top);
        bad_turn(J(top));
    }
    CHECK(bad_turn(J("[1, 2]")) == "turn: expected an object, got [1,2]");
}

TEST_CASE("json: hostile input returns an error and never crashes") {
    SUBCASE("a 10,000-step path") {
        Json path = Json::array();
        for (int i = 0; i < 10000; ++i) path.push_back(Json::array({4, 4 + i % 2}));
        Json j{{"elephant", {{"from", {4, 3}}, {"path", path}, {"facing", "N"}}}};
        CHECK(bad_turn(j) == "elephant.path: has 10000 cells");
        // A long path that still parses is refused by the rules, without changing the game.
        Json k{{"elephant",
                {{"from", {4, 3}},
                 {"path", Json(std::vector<Json>(path.begin(), path.begin() + 999))}}}};
        Game g(Variant{});
        Rng rng(7);
        play_random_game(g, rng, 0);
        REQUIRE(g.phase() == Phase::Play);
        const std::string before = state_to_json(g).dump();
        auto e = g.apply_turn(good_turn(k));
        REQUIRE(e);
        CHECK(state_to_json(g).dump() == before);
    }
    SUBCASE("huge and negative coordinates") {
        for (const char* cell :
             {"[1e30, 1]", "[99999999999999999999, 1]", "[-99999999999999999999, 1]",
              "[2147483648, 1]", "[-2147483649, 1]", "[1, 4294967296]"}) {
            CAPTURE(cell);
            Json j = base_turn();
            j["elephant"]["from"] = J(cell);
            bad_turn(j);
            j = base_turn();
            j["burnt"] = J(cell);
            bad_turn(j);
            j = base_turn();
            j["guardians"][0]["from"] = J(cell);
            bad_turn(j);
        }
        // In range for the parser, far off the board for the rules: an error, not a crash.
        Game g(Variant{});
        Rng rng(3);
        play_random_game(g, rng, 0);
        for (const char* cell : {"[-1000000, -1000000]", "[1000000, 3]", "[4, -1000000]"}) {
            CAPTURE(cell);
            for (const char* where :
                 {"/elephant/from", "/elephant/path/0", "/burnt", "/guardians/0/from"}) {
                Json j = base_turn();
                j[Json::json_pointer(where)] = J(cell);
                const std::string before = state_to_json(g).dump();
                auto e = g.apply_turn(good_turn(j));
                CHECK(e);
                CHECK(state_to_json(g).dump() == before);
            }
        }
    }
    SUBCASE("deeply wrong types") {
        const char* texts[] = {
            R"({"elephant": {"from": {"x": 4, "y": 3}, "path": [[4, 4]]}})",
            R"({"elephant": {"from": [[4], [3]], "path": [[4, 4]]}})",
            R"({"elephant": {"from": [4, 3], "path": [[[4, 4]]]}})",
            R"({"elephant": {"from": [4, 3], "path": [[4, [4]]]}})",
            R"({"elephant": {"from": [4, 3], "path": [{"0": 4, "1": 4}]}})",
            R"({"elephant": {"from": [4, 3], "path": [null]}})",
            R"({"guardians": [[{"from": [0, 0], "dir": "cw", "steps": 1}]]})",
            R"({"guardians": [{"from": [0, 0], "dir": ["cw"], "steps": 1}]})",
            R"({"guardians": [{"from": [0, 0], "dir": "cw", "steps": [1]}]})",
            R"({"guardians": [{"from": [0, 0], "dir": "cw", "steps": {"k": 1}}]})",
        };
        for (const char* text : texts) {
            CAPTURE(text);
            bad_turn(J(text));
        }
        // Strings that are not valid UTF-8 (a JSON value built in memory, not parsed) must not make
        // the error message throw.
        for (const char* where :
             {"/elephant/facing", "/guardians/0/dir", "/elephant/from", "/burnt"}) {
            CAPTURE(where);
            Json j = base_turn();
            j[Json::json_pointer(where)] = std::string("\xff\xfe\xc3");
            bad_turn(j);
        }
        // 17 guardian entries (a turn can hold at most 2 legal ones).
        Json j = base_turn();
        for (int i = 0; i < 16; ++i) j["guardians"].push_back(j["guardians"][0]);
        bad_turn(j);
        // Nested arrays where a cell should be, a few thousand levels deep.
        for (int depth : {3, 100, 5000}) {
            CAPTURE(depth);
            bad_turn(
                J(("{\"elephant\": {\"from\": " + nested(depth) + ", \"path\": []}}").c_str()));
            bad_turn(J(("{\"burnt\": " + nested(depth) + "}").c_str()));
        }
    }
}

// Error messages quote a malformed value shallowly: a 200 kB message of nested arrays must not
// recurse once per level (it used to overflow the stack through json::dump()).
TEST_CASE("json: a cell nested 200,000 arrays deep is an error, not a crash") {
    bad_turn(J(("{\"burnt\": " + nested(200000) + "}").c_str()));
    bad_turn(J(("{\"elephant\": {\"from\": " + nested(200000) + ", \"path\": []}}").c_str()));
    auto s = setup_from_json(
        J(("{\"elephants\": [" + nested(200000) + "], \"guardians\": []}").c_str()));
    CHECK(!s);
}

// ---------------------------------------------------------------- setups

TEST_CASE("json: setups") {
    auto s =
        setup_from_json(J(R"({"elephants": [[2, 1], [3, 1]], "guardians": [[0, 0], [10, 5]]})"));
    REQUIRE(s);
    CHECK(*s == Setup{{{2, 1}, {3, 1}}, {{0, 0}, {10, 5}}});
    CHECK(to_json(*s) == J(R"({"elephants": [[2, 1], [3, 1]], "guardians": [[0, 0], [10, 5]]})"));
    for (const char* text :
         {R"({"guardians": [[0, 0], [10, 5]]})", R"({"elephants": [[2, 1]]})",
          R"({"elephants": null, "guardians": [[0, 0], [10, 5]]})",
          R"({"elephants": [[2, 1.0]], "guardians": [[0, 0], [10, 5]]})",
          R"({"elephants": [[2, 1]], "guardians": [[0, 0], [10, true]]})",
          R"({"elephants": [[2, 1]], "guardians": {"a": [0, 0]}})",
          R"({"elephants": [2, 1], "guardians": [[0, 0], [10, 5]]})", "[]", "null"}) {
        CAPTURE(text);
        auto e = setup_from_json(J(text));
        REQUIRE(!e);
        CHECK(e.error().code == ErrorCode::BadFormat);
    }
    Json many = J(R"({"guardians": [[0, 0], [10, 5]]})");
    many["elephants"] = Json::array();
    for (int i = 0; i < 10000; ++i) many["elephants"].push_back(Json::array({2, 1}));
    CHECK(!setup_from_json(many));
    // A well-formed setup with the wrong count is for the rules to refuse.
    auto few = setup_from_json(J(R"({"elephants": [], "guardians": []})"));
    REQUIRE(few);
    Game g(Variant{});
    CHECK(g.apply_setup(Side::Silver, *few)->code == ErrorCode::SetupCount);
}

// ---------------------------------------------------------------- variants

TEST_CASE("variant: defaults for missing keys") {
    CHECK(*variant_from_json(Json(nullptr)) == Variant{9, 5, 3, 40});
    CHECK(*variant_from_json(J("{}")) == Variant{9, 5, 3, 40});
    CHECK(*variant_from_json(J(R"({"size": 11})")) == Variant{11, 5, 3, 40});
    CHECK(*variant_from_json(J(R"({"quiet": 2})")) == Variant{9, 5, 3, 2});
    CHECK(*variant_from_json(J(R"({"burnt": 0, "elephants": 1})")) == Variant{9, 1, 0, 40});
    CHECK(*variant_from_json(J(R"({"size": null, "burnt": 9})")) == Variant{9, 5, 9, 40});
    CHECK(to_json(Variant{}) == J(R"({"size": 9, "elephants": 5, "burnt": 3, "quiet": 40})"));
    CHECK(Variant{}.initial_trunks() == 64);
    CHECK(Variant{5, 3, 3, 40}.initial_trunks() == 16);
    CHECK(Variant{13, 5, 3, 40}.initial_trunks() == 169 - 25);
}

TEST_CASE("variant: bounds") {
    struct Case {
        const char* text;
        bool ok;
    };
    for (const Case& c :
         {Case{R"({"size": 5, "elephants": 3})", true}, Case{R"({"size": 13})", true},
          Case{R"({"size": 4, "elephants": 2})", false}, Case{R"({"size": 14})", false},
          Case{R"({"size": 5, "elephants": 4})", false},
          Case{R"({"size": 13, "elephants": 11})", true},
          Case{R"({"size": 13, "elephants": 12})", false}, Case{R"({"elephants": 0})", false},
          Case{R"({"elephants": 7})", true}, Case{R"({"elephants": 8})", false},
          Case{R"({"elephants": -1})", false}, Case{R"({"burnt": 0})", true},
          Case{R"({"burnt": 9})", true}, Case{R"({"burnt": 10})", false},
          Case{R"({"burnt": -1})", false}, Case{R"({"quiet": 2})", true},
          Case{R"({"quiet": 1000})", true}, Case{R"({"quiet": 1})", false},
          Case{R"({"quiet": 1001})", false}, Case{R"({"quiet": 0})", false},
          // The default of 5 elephants does not fit a 5x5 or 6x6 field (E <= N - 2).
          Case{R"({"size": 5})", false}, Case{R"({"size": 6})", false},
          Case{R"({"size": 7})", true}}) {
        CAPTURE(c.text);
        auto v = variant_from_json(J(c.text));
        CHECK(bool(v) == c.ok);
        if (!v) CHECK(v.error().code == ErrorCode::BadVariant);
        if (v) CHECK(!check_variant(*v));
    }
    CHECK(variant_from_json(J(R"({"size": 4})")).error().message ==
          "variant: size must be between 5 and 13, got 4");
    CHECK(variant_from_json(J(R"({"size": 7, "elephants": 6})")).error().message ==
          "variant: elephants must be between 1 and 5, got 6 (at most size - 2)");
    CHECK(variant_from_json(J(R"({"quiet": 1})")).error().message ==
          "variant: quiet must be between 2 and 1000, got 1");
}

TEST_CASE("variant: strict types, huge values") {
    for (const char* text :
         {R"({"size": 9.0})", R"({"size": "9"})", R"({"size": true})", R"({"size": [9]})",
          R"({"quiet": 40.5})", R"({"burnt": "3"})", R"({"elephants": {}})", R"({"size": 1e30})",
          R"({"size": 4294967305})", R"({"size": 18446744073709551615})",
          R"({"quiet": -9223372036854775808})", "[]", "9", "\"default\""}) {
        CAPTURE(text);
        auto v = variant_from_json(J(text));
        REQUIRE(!v);
        CHECK((v.error().code == ErrorCode::BadFormat || v.error().code == ErrorCode::BadVariant));
    }
    CHECK(variant_from_json(J(R"({"size": "9"})")).error().code == ErrorCode::BadFormat);
    CHECK(variant_from_json(J(R"({"size": "9"})")).error().message ==
          "variant.size: expected an integer, got \"9\"");
    // 2^32 + 9 must not wrap around to a valid 9.
    CHECK(!variant_from_json(J(R"({"size": 4294967305})")));
}

// ---------------------------------------------------------------- notation

TEST_CASE("notation: cell names") {
    CHECK(cell_name({3, 2}, 9) == "c2");
    CHECK(cell_name({3, 0}, 9) == "Sc");
    CHECK(cell_name({3, 10}, 9) == "Nc");
    CHECK(cell_name({0, 4}, 9) == "W4");
    CHECK(cell_name({10, 4}, 9) == "E4");
    CHECK(cell_name({0, 0}, 9) == "SW");
    CHECK(cell_name({0, 10}, 9) == "NW");
    CHECK(cell_name({10, 10}, 9) == "NE");
    CHECK(cell_name({10, 0}, 9) == "SE");
    CHECK(cell_name({13, 13}, 13) == "m13");
    CHECK(cell_name({0, 12}, 13) == "W12");
    CHECK(cell_name({11, 0}, 9) == "[11, 0]");
    CHECK(cell_name({-1, 5}, 9) == "[-1, 5]");
    for (int n = kMinSize; n <= kMaxSize; ++n) {
        int ring = 0, field = 0;
        for (int y = 0; y <= n + 1; ++y)
            for (int x = 0; x <= n + 1; ++x) {
                const std::string name = cell_name({x, y}, n);
                CAPTURE(name);
                auto back = parse_cell_name(name, n);
                REQUIRE(back);
                CHECK(*back == Cell{x, y});
                const Variant v{n, 1, 0, 40};
                ring += v.on_ring({x, y});
                field += v.in_field({x, y});
            }
        CHECK(ring == 4 * n + 4);
        CHECK(field == n * n);
    }
    for (const char* bad :
         {"",    "a",  "a0", "j1", "a10", "a01", "S",   "Sj",     "SA",  "W0", "W10",
          "W04", "w4", "sw", "E",  "Nc1", "c2 ", " c2", "[3, 2]", "SWW", "-1"}) {
        CAPTURE(bad);
        CHECK(!parse_cell_name(bad, 9));
    }
    CHECK(*parse_cell_name("m13", 13) == Cell{13, 13});
    CHECK(!parse_cell_name("m13", 12));
    CHECK(*parse_cell_name("E12", 13) == Cell{14, 12});
}

TEST_CASE("notation: hand-written turns round-trip") {
    struct Case {
        const char* text;
        Turn turn;
    };
    const Case cases[] = {
        {"c1-c2-c4:N", Turn{ElephantMove{{3, 1}, {{3, 2}, {3, 4}}, Dir::N}, std::nullopt, {}}},
        {"i9-Ni", Turn{ElephantMove{{9, 9}, {{9, 10}}, std::nullopt}, std::nullopt, {}}},
        {"pass", Turn{}},
        {"pass *e5", Turn{std::nullopt, Cell{5, 5}, {}}},
        {"pass Sc+2", Turn{std::nullopt, std::nullopt, {GuardianMove{{3, 0}, Rot::Cw, 2}}}},
        {"a2-b2 *e5 Sc+2 W4-1",
         Turn{ElephantMove{{1, 2}, {{2, 2}}, std::nullopt},
              Cell{5, 5},
              {GuardianMove{{3, 0}, Rot::Cw, 2}, GuardianMove{{0, 4}, Rot::Ccw, 1}}}},
        {"d3-d4-e4-e5:W SW-12 NE+1",
         Turn{ElephantMove{{4, 3}, {{4, 4}, {5, 4}, {5, 5}}, Dir::W},
              std::nullopt,
              {GuardianMove{{0, 0}, Rot::Ccw, 12}, GuardianMove{{10, 10}, Rot::Cw, 1}}}},
        {"i5-E5", Turn{ElephantMove{{9, 5}, {{10, 5}}, std::nullopt}, std::nullopt, {}}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.text);
        auto t = turn_from_notation(c.text, 9);
        REQUIRE_MESSAGE(t, (t ? "" : t.error().message));
        CHECK(*t == c.turn);
        CHECK(turn_to_notation(c.turn, 9) == c.text);
        CHECK(*turn_from_json(to_json(c.turn)) == c.turn);
    }
    // Extra spaces are tolerated; printing normalises them.
    CHECK(turn_to_notation(*turn_from_notation("  c1-c2:E   *e5  ", 9), 9) == "c1-c2:E *e5");
    // Size matters for the ring names: Nc is [3, 6] on a 5x5 board.
    CHECK(turn_from_notation("c5-Nc", 5)->elephant->path[0] == Cell{3, 6});
    CHECK(turn_to_notation(*turn_from_notation("m13-Nm", 13), 13) == "m13-Nm");
}

TEST_CASE("notation: error messages for bad notation") {
    struct Case {
        const char* text;
        const char* message;
    };
    for (const Case& c : {
             Case{"", "empty turn: write an elephant move such as c1-c2:N, or pass"},
             Case{"   ", "empty turn: write an elephant move such as c1-c2:N, or pass"},
             Case{"c1", "'c1' is not an elephant move: write from-to cells like c1-c2-c3"},
             Case{"c1-c2-c3-c4-c5:N",
                  "'c1-c2-c3-c4-c5:N' is not an elephant move: write from-to cells like c1-c2-c3"},
             Case{"z1-c2:N", "'z1' is not a cell of a 9x9 board"},
             Case{"c1-c10:N", "'c10' is not a cell of a 9x9 board"},
             Case{"c1-c2:X", "'X' is not a facing (N, E, S or W)"},
             Case{"c1-c2:", "'' is not a facing (N, E, S or W)"},
             Case{"c1--c2:N", "'' is not a cell of a 9x9 board"},
             Case{"pass Sc2",
                  "'Sc2' is not a guardian move: write the ring cell, + or -, and the cells, like "
                  "Sc+2"},
             Case{"pass +2",
                  "'+2' is not a guardian move: write the ring cell, + or -, and the cells, like "
                  "Sc+2"},
             Case{"pass Sc+0", "'Sc+0': the guardian's cells must be a whole number >= 1"},
             Case{"pass Sc+", "'Sc+': the guardian's cells must be a whole number >= 1"},
             Case{"pass Sc+x", "'Sc+x': the guardian's cells must be a whole number >= 1"},
             Case{"pass Sc+2x", "'Sc+2x': the guardian's cells must be a whole number >= 1"},
             Case{"pass Sc+99999999999999999999",
                  "'Sc+99999999999999999999': the guardian's cells must be a whole "
                  "number >= 1"},
             Case{"pass Sc--2", "'Sc--2': the guardian's cells must be a whole number >= 1"},
             Case{"pass *k5", "'k5' is not a cell of a 9x9 board"},
             Case{"pass *e5 *e6",
                  "'*e6' is not a guardian move: write the ring cell, + or -, and the cells, like "
                  "Sc+2"},
             Case{"pass SW+1 SW+1 SW+1 SW+1 SW+1 SW+1 SW+1 SW+1", "too many parts in one turn"},
         }) {
        CAPTURE(c.text);
        auto t = turn_from_notation(c.text, 9);
        REQUIRE(!t);
        CHECK(t.error().code == ErrorCode::BadFormat);
        CHECK(t.error().message == c.message);
    }
}

// ---------------------------------------------------------------- state round trip

TEST_CASE("state: game_from_json(state_to_json(g)) gives back the same game") {
    std::vector<Game> games;
    games.push_back(Game(Variant{}));  // before any setup
    {
        Game g(Variant{7, 3, 2, 30});
        Rng rng(1);
        g.apply_setup(Side::Silver, random_setup(g, rng));  // between the setups
        games.push_back(g);
    }
    for (int size : {5, 7, 9, 13})
        for (int turns : {0, 1, 7, 40, 1000}) {
            const int e = std::min(5, size - 2);
            games.push_back(
                played_game(Variant{size, e, 3, 30}, std::uint64_t(size * 1000 + turns), turns));
        }
    Game resigned = played_game(Variant{}, 5, 10);
    resigned.resign(Side::Bronze);
    games.push_back(resigned);
    Game timed = played_game(Variant{}, 6, 11);
    timed.resign(Side::Silver, EndReason::Time);
    games.push_back(timed);
    Game agreed = played_game(Variant{}, 8, 12);
    agreed.agree_draw();
    games.push_back(agreed);
    Game abandoned = played_game(Variant{}, 9, 13);
    abandoned.resign(Side::Silver, EndReason::Abandon);
    games.push_back(abandoned);

    for (const Game& g : games) {
        const Json s = state_to_json(g);
        CAPTURE(s.dump());
        auto back = game_from_json(s);
        REQUIRE_MESSAGE(back, (back ? "" : back.error().message));
        CHECK(state_to_json(*back) == s);
        CHECK(result_to_json(*back) == result_to_json(g));
        CHECK(moves_to_json(*back) == moves_to_json(g));
        CHECK(back->winner() == g.winner());
        CHECK(back->is_ok() == g.is_ok());
        // The rebuilt game goes on exactly like the original.
        Game a = g, b = *back;
        Rng ra(42), rb(42);
        play_random_game(a, ra, 30);
        play_random_game(b, rb, 30);
        CHECK(state_to_json(a) == state_to_json(b));
    }
    CHECK(result_to_json(resigned).at("winner") == "silver");
    CHECK(result_to_json(agreed).at("winner") == "draw");
}

TEST_CASE("state: inconsistent states are refused") {
    const Game g = played_game(Variant{7, 3, 2, 30}, 11, 6);
    REQUIRE(g.phase() == Phase::Play);
    const Json s = state_to_json(g);
    auto refused = [](const Json& bad) {
        auto r = game_from_json(bad);
        CHECK_MESSAGE(!r, bad.dump());
    };
    Json j = s;
    j["trunks"].push_back(j["elephants"][0]["cell"]);  // a trunk under an elephant
    refused(j);
    j = s;
    j["trunks"].erase(0);  // a trunk vanished: not conserved
    refused(j);
    j = s;
    j["players"]["silver"]["trunks"] = 1000;
    refused(j);
    j = s;
    j["players"]["bronze"]["saved"] = j["players"]["bronze"]["saved"].get<int>() + 1;
    refused(j);
    j = s;
    j["guardians"].push_back(Json{{"side", "silver"}, {"cell", {0, 3}}});
    refused(j);
    j = s;
    j["guardians"][0]["cell"] = {3, 3};  // a guardian in the field
    refused(j);
    j = s;
    j["elephants"][0]["facing"] = "X";
    refused(j);
    j = s;
    j["phase"] = "finished";
    refused(j);
    j = s;
    j["to_move"] = "gold";
    refused(j);
    j = s;
    j["variant"]["size"] = 4;
    refused(j);
    j = s;
    j["quiet_turns"] = 30;  // the game would be over
    refused(j);
    j = s;
    j["turns_played"] = 1.5;
    refused(j);
    j = s;
    j["burnt"].push_back({4, 4});  // placed without being taken from anyone's burnt_left
    refused(j);
    j = s;
    j.erase("players");
    refused(j);
    refused(Json::array());
    refused(Json(nullptr));
}

// ---------------------------------------------------------------- records

TEST_CASE("record: replay reports the first illegal turn with the game as it stood") {
    const Json record = J(R"({
        "variant": {"size": 7, "elephants": 3, "burnt": 2, "quiet": 30},
        "setup": {"silver": {"elephants": [[2, 1], [3, 1], [4, 1]], "guardians": [[0, 0], [0, 8]]},
                  "bronze": {"elephants": [[1, 2], [1, 3], [1, 4]], "guardians": [[8, 8], [8, 0]]}},
        "turns": [{"elephant": {"from": [2, 1], "path": [[2, 2]]}},
                  {"elephant": {"from": [1, 2], "path": [[2, 2], [3, 2]]}, "unknown": 1},
                  {"elephant": {"from": [3, 1], "path": [[3, 2]]}, "burnt": [[1, 1]]}]})");
    auto r = replay_record(record);
    REQUIRE(r);
    CHECK(r->applied == 1);
    CHECK(r->error_turn == 1);
    REQUIRE(r->error);
    // Bronze's a2 faces E; [2,2] holds silver's elephant, so a plain step onto it is refused.
    CHECK(r->error->code == ErrorCode::StepOnElephant);
    CHECK(r->game.to_move() == Side::Bronze);
    CHECK(r->game.stats(Side::Silver).trunks == 1);
    const Json sum = replay_summary(*r);
    CHECK(sum.at("applied") == 1);
    CHECK(sum.at("error").at("turn") == 1);
    CHECK(sum.at("error").at("code") == "step_on_elephant");
    CHECK(to_json(r->record).at("turns").size() == 1);

    Json bad_setup = record;
    bad_setup["setup"]["bronze"]["guardians"] = J("[[0, 0], [8, 0]]");
    auto rs = replay_record(bad_setup);
    REQUIRE(rs);
    CHECK(rs->error_setup == Side::Bronze);
    CHECK(rs->error->code == ErrorCode::SetupTaken);
    CHECK(rs->applied == 0);

    CHECK(!replay_record(J("[]")));
    CHECK(!replay_record(J(R"({"variant": {"size": 99}, "setup": {"silver": {}, "bronze": {}}})")));
    CHECK(!replay_record(J(R"({"setup": {"silver": {}}})")));
}

TEST_CASE("state: a game that ended during the setups reads back from its state") {
    using namespace tf;
    Game g{Variant{}};
    Rng rng(3);
    REQUIRE(!g.apply_setup(Side::Silver, random_setup(g, rng)));
    g.resign(Side::Bronze);  // bronze never set up
    auto back = game_from_json(state_to_json(g));
    REQUIRE(bool(back));
    CHECK(state_to_json(*back) == state_to_json(g));
    Game none{Variant{}};
    none.resign(Side::Silver, EndReason::Time);  // nobody set up
    REQUIRE(bool(game_from_json(state_to_json(none))));
    // ... but the rules themselves end no game before the setups are done.
    Json j = state_to_json(none);
    j["reason"] = "trunks";
    CHECK(!game_from_json(j));
}
