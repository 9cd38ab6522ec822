// Unit tests of rules-v1 (../shared/spec/rules-v1.md), one TEST_CASE per clause, from positions
// built by hand. Every rejected turn or setup is checked for its ErrorCode and for leaving the
// game exactly as it was (state_to_json before == after).
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/notation.h"

using namespace tf;

namespace {

Cell C(std::string_view name, int n) {
    auto c = parse_cell_name(name, n);
    REQUIRE_MESSAGE(c, "bad cell name in test: " << name);
    return *c;
}

// A hand-built position. The field is drawn cell by cell with put():
//   '.' empty, 't' trunk, '#' burnt trunk,
//   'N' 'E' 'S' 'W' a silver elephant facing that way, 'n' 'e' 's' 'w' a bronze one.
// Guardians default to the corners (they watch nothing): silver SW, NW; bronze NE, SE.
// game() balances what the board does not show so that the position is a reachable shape:
// missing trunks become silver's `spent`, missing elephants become their owner's `saved`
// (unless stats were set so that nothing is missing), burnt trunks on the field are taken
// from the players' burnt_left (silver first) unless burnt_left was set by hand.
struct Pos {
    int n;
    std::vector<std::string> grid;  // grid[y - 1][x - 1]
    Variant v;
    std::vector<std::pair<Side, std::string>> guards;
    Side to_move = Side::Silver;
    int quiet = 0;
    SideStats st[2];
    bool burnt_left_set = false;

    explicit Pos(int size, char fill = '.') : n(size), grid(size, std::string(size, fill)) {
        v.size = size;
        v.elephants = 0;  // 0: as many as the larger herd on the board
        guards = {
            {Side::Silver, "SW"}, {Side::Silver, "NW"}, {Side::Bronze, "NE"}, {Side::Bronze, "SE"}};
    }
    // Puts `what` on every cell of a space-separated list.
    Pos& put(std::string_view cells, char what) {
        size_t i = 0;
        while (i < cells.size()) {
            size_t j = cells.find(' ', i);
            if (j == std::string_view::npos) j = cells.size();
            if (j > i) {
                Cell c = C(cells.substr(i, j - i), n);
                REQUIRE(v.in_field(c));
                grid[c.y - 1][c.x - 1] = what;
            }
            i = j + 1;
        }
        return *this;
    }
    Pos& guardians(const char* s1, const char* s2, const char* b1, const char* b2) {
        guards = {{Side::Silver, s1}, {Side::Silver, s2}, {Side::Bronze, b1}, {Side::Bronze, b2}};
        return *this;
    }
    Pos& trunks(Side s, int k) {
        st[idx(s)].trunks = k;
        return *this;
    }
    Pos& move(Side s) {
        to_move = s;
        return *this;
    }
    Pos& quiet_turns(int q) {
        quiet = q;
        return *this;
    }
    Pos& quiet_limit(int q) {
        v.quiet = q;
        return *this;
    }
    Pos& burnt_per_player(int b) {
        v.burnt = b;
        return *this;
    }
    Pos& burnt_left(int silver, int bronze) {
        st[0].burnt_left = silver;
        st[1].burnt_left = bronze;
        burnt_left_set = true;
        return *this;
    }

    Snapshot snapshot() const {
        Snapshot s;
        s.variant = v;
        s.phase = Phase::Play;
        s.to_move = to_move;
        s.quiet_turns = quiet;
        s.stats[0] = st[0];
        s.stats[1] = st[1];
        int count[2] = {0, 0};
        for (int y = 1; y <= n; ++y)
            for (int x = 1; x <= n; ++x) {
                const char ch = grid[y - 1][x - 1];
                const Cell c{x, y};
                if (ch == 't') s.trunks.push_back(c);
                if (ch == '#') s.burnt.push_back(c);
                for (Side side : {Side::Silver, Side::Bronze}) {
                    const char* letters = side == Side::Silver ? "NESW" : "nesw";
                    for (int d = 0; d < 4; ++d)
                        if (ch == letters[d]) {
                            s.elephants.push_back({side, c, Dir(d)});
                            ++count[idx(side)];
                        }
                }
            }
        if (s.variant.elephants == 0) s.variant.elephants = std::max({count[0], count[1], 1});
        for (const auto& [side, name] : guards) s.guardians.push_back({side, C(name, n)});
        const int held =
            s.stats[0].trunks + s.stats[0].spent + s.stats[1].trunks + s.stats[1].spent;
        const int missing = s.variant.initial_trunks() - int(s.trunks.size()) - held;
        REQUIRE(missing >= 0);
        s.stats[0].spent += missing;
        for (int i = 0; i < 2; ++i) {
            const int gone =
                s.variant.elephants - count[i] - s.stats[i].saved - s.stats[1 - i].captured;
            REQUIRE(gone >= 0);
            s.stats[i].saved += gone;
        }
        if (!burnt_left_set) {
            int placed = int(s.burnt.size());
            for (int i = 0; i < 2; ++i) {
                const int used = std::min(placed, s.variant.burnt);
                s.stats[i].burnt_left = s.variant.burnt - used;
                placed -= used;
            }
            REQUIRE(placed == 0);
        }
        return s;
    }

    Game game() const {
        auto g = Game::from_snapshot(snapshot());
        REQUIRE_MESSAGE(g, (g ? "" : g.error().message));
        REQUIRE(g->is_ok());
        return *g;
    }
};

// What a cell shows, in Pos's letters ('.' also for a crossing without anything on it).
char at(const Game& g, std::string_view name) {
    const Cell c = C(name, g.variant().size);
    if (auto e = g.elephant_on(c))
        return (e->side == Side::Silver ? "NESW" : "nesw")[int(e->facing)];
    if (g.has_trunk(c)) return 't';
    if (g.has_burnt(c)) return '#';
    return '.';
}

Turn T(const Game& g, std::string_view notation) {
    auto t = turn_from_notation(notation, g.variant().size);
    REQUIRE_MESSAGE(t, "bad notation in test: " << notation);
    return *t;
}

std::string state(const Game& g) {
    return state_to_json(g).dump();
}

void accept(Game& g, const Turn& t) {
    const std::string before = state(g);
    auto e = g.apply_turn(t);
    CHECK_MESSAGE(!e, "rejected " << turn_to_notation(t, g.variant().size) << ": "
                                  << (e ? e->message : std::string()));
    if (!e) CHECK(state(g) != before);
    CHECK(g.is_ok());
}
void accept(Game& g, std::string_view notation) {
    accept(g, T(g, notation));
}

// Checks that the turn is rejected with `code` and that nothing changed; returns the message.
std::string reject(Game& g, const Turn& t, ErrorCode code) {
    const std::string before = state(g);
    auto e = g.apply_turn(t);
    REQUIRE_MESSAGE(e, "accepted " << turn_to_notation(t, g.variant().size));
    CHECK_MESSAGE(error_code_name(e->code) == error_code_name(code), e->message);
    CHECK(state(g) == before);
    CHECK(g.is_ok());
    return e->message;
}
std::string reject(Game& g, std::string_view notation, ErrorCode code) {
    return reject(g, T(g, notation), code);
}

std::string reject_setup(Game& g, Side s, const Setup& st, ErrorCode code) {
    const std::string before = state(g);
    auto e = g.apply_setup(s, st);
    REQUIRE_MESSAGE(e, "setup accepted");
    CHECK_MESSAGE(error_code_name(e->code) == error_code_name(code), e->message);
    CHECK(state(g) == before);
    return e->message;
}

Setup setup(int n, std::initializer_list<const char*> elephants,
            std::initializer_list<const char*> guardians) {
    Setup s;
    for (const char* e : elephants) s.elephants.push_back(C(e, n));
    for (const char* g : guardians) s.guardians.push_back(C(g, n));
    return s;
}

std::vector<std::string> moves(const Game& g) {
    std::vector<std::string> out;
    for (const Json& m : moves_to_json(g))
        out.push_back(turn_to_notation(*turn_from_json(Json{{"elephant", m}}), g.variant().size));
    std::sort(out.begin(), out.end());
    return out;
}

bool has_move(const Game& g, std::string_view notation) {
    const auto ms = moves(g);
    return std::find(ms.begin(), ms.end(), std::string(notation)) != ms.end();
}

// Silver boxed in at a1 facing N (a2 burnt, b1 a trunk it cannot take sideways) and bronze boxed
// in at a7 facing E (b7 burnt, a6 a trunk): both must pass, which leaves room to test the other
// parts of a turn alone.
Pos boxed7() {
    return Pos(7).put("a1", 'N').put("a2 b7", '#').put("b1 a6", 't').put("a7", 'e');
}

}  // namespace

// ---------------------------------------------------------------- §3 setup

TEST_CASE("setup: legal setups, facings, zones and who moves first") {
    Game g(Variant{7, 3, 2, 30});
    CHECK(g.phase() == Phase::SetupSilver);
    CHECK(g.to_move() == Side::Silver);
    CHECK(g.trunks_on_field() == 49 - 12 - 1);
    CHECK(!g.has_trunk(C("a1", 7)));
    CHECK(!g.has_trunk(C("b1", 7)));
    CHECK(!g.has_trunk(C("a7", 7)));
    CHECK(g.has_trunk(C("b2", 7)));
    // Silver's guardians watch column b and row 3: b3 becomes a crossing, no elephant on it.
    CHECK(!g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "g1"}, {"Sb", "W3"})));
    CHECK(g.phase() == Phase::SetupBronze);
    CHECK(g.to_move() == Side::Bronze);
    CHECK(g.crossings() == std::vector<Cell>{C("b3", 7)});
    CHECK(!g.apply_setup(Side::Bronze, setup(7, {"a2", "a4", "a7"}, {"NE", "E5"})));
    CHECK(g.phase() == Phase::Play);
    CHECK(g.to_move() == Side::Silver);
    CHECK(at(g, "b1") == 'N');
    CHECK(at(g, "g1") == 'N');
    CHECK(at(g, "a2") == 'e');
    CHECK(at(g, "a7") == 'e');
    CHECK(g.crossings() == std::vector<Cell>{C("b3", 7), C("b5", 7)});
    CHECK(g.guardian_on(C("E5", 7))->side == Side::Bronze);
    CHECK(g.guardian_on(C("Sb", 7))->side == Side::Silver);
    CHECK(g.stats(Side::Silver).burnt_left == 2);
    CHECK(g.stats(Side::Bronze).burnt_left == 2);
    CHECK(g.is_ok());
}

TEST_CASE("setup: wrong counts") {
    Game g(Variant{7, 3, 2, 30});
    CHECK(reject_setup(g, Side::Silver, setup(7, {"b1", "c1"}, {"SW", "NW"}),
                       ErrorCode::SetupCount) ==
          "silver's setup places 2 elephants; this variant needs 3");
    reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "d1", "e1"}, {"SW", "NW"}),
                 ErrorCode::SetupCount);
    CHECK(reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "d1"}, {"SW"}),
                       ErrorCode::SetupCount) ==
          "silver's setup places 1 guardians; a setup places exactly 2");
    reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "d1"}, {"SW", "NW", "NE"}),
                 ErrorCode::SetupCount);
    reject_setup(g, Side::Silver, setup(7, {}, {}), ErrorCode::SetupCount);
    CHECK(g.phase() == Phase::SetupSilver);
}

TEST_CASE("setup: elephants only in their own start zone") {
    Game g(Variant{7, 3, 2, 30});
    CHECK(reject_setup(g, Side::Silver, setup(7, {"a1", "c1", "d1"}, {"SW", "NW"}),
                       ErrorCode::SetupZone) ==
          "elephant 1 at a1 is outside silver's start zone (b1 to g1)");
    reject_setup(g, Side::Silver, setup(7, {"b1", "c2", "d1"}, {"SW", "NW"}), ErrorCode::SetupZone);
    reject_setup(g, Side::Silver, setup(7, {"b1", "a2", "d1"}, {"SW", "NW"}), ErrorCode::SetupZone);
    reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "Sd"}, {"SW", "NW"}), ErrorCode::SetupZone);
    Setup far = setup(7, {"b1", "c1"}, {"SW", "NW"});
    far.elephants.push_back({1000000, 1});
    reject_setup(g, Side::Silver, far, ErrorCode::SetupZone);
    REQUIRE(!g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "d1"}, {"SW", "NW"})));
    CHECK(reject_setup(g, Side::Bronze, setup(7, {"a2", "a1", "a4"}, {"NE", "SE"}),
                       ErrorCode::SetupZone) ==
          "elephant 2 at a1 is outside bronze's start zone (a2 to a7)");
    reject_setup(g, Side::Bronze, setup(7, {"a2", "b1", "a4"}, {"NE", "SE"}), ErrorCode::SetupZone);
    reject_setup(g, Side::Bronze, setup(7, {"a2", "b3", "a4"}, {"NE", "SE"}), ErrorCode::SetupZone);
}

TEST_CASE("setup: duplicates") {
    Game g(Variant{7, 3, 2, 30});
    CHECK(reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "b1"}, {"SW", "NW"}),
                       ErrorCode::SetupDuplicate) == "elephants 1 and 3 are both on b1");
    CHECK(reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "d1"}, {"Sd", "Sd"}),
                       ErrorCode::SetupDuplicate) == "guardians 1 and 2 are both on Sd");
    REQUIRE(!g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "d1"}, {"SW", "NW"})));
    reject_setup(g, Side::Bronze, setup(7, {"a2", "a2", "a4"}, {"NE", "SE"}),
                 ErrorCode::SetupDuplicate);
    reject_setup(g, Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"E2", "E2"}),
                 ErrorCode::SetupDuplicate);
}

TEST_CASE("setup: guardians on the ring, not on a taken cell") {
    Game g(Variant{7, 3, 2, 30});
    CHECK(reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "d1"}, {"SW", "d4"}),
                       ErrorCode::SetupRing) == "guardian 2 at d4 is not on the ring");
    reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "d1"}, {"b1", "SW"}), ErrorCode::SetupRing);
    Setup off = setup(7, {"b1", "c1", "d1"}, {"SW"});
    off.guardians.push_back({9, 9});  // beyond NE on a 7x7 board
    reject_setup(g, Side::Silver, off, ErrorCode::SetupRing);
    off.guardians.back() = {-1, 0};
    reject_setup(g, Side::Silver, off, ErrorCode::SetupRing);
    // All 4N + 4 ring cells are accepted, corners included.
    int ring = 0;
    for (int y = 0; y <= 8; ++y)
        for (int x = 0; x <= 8; ++x) {
            Game probe(Variant{7, 3, 2, 30});
            Setup s = setup(7, {"b1", "c1", "d1"}, {});
            s.guardians = {{x, y}, x == 0 && y == 8 ? Cell{8, 8} : Cell{0, 8}};
            const bool legal = !probe.apply_setup(Side::Silver, s);
            const bool on_ring = x == 0 || y == 0 || x == 8 || y == 8;
            CHECK_MESSAGE(legal == on_ring, "guardian at [" << x << ", " << y << "]");
            ring += legal;
        }
    CHECK(ring == 4 * 7 + 4);
    REQUIRE(!g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "d1"}, {"SW", "Nc"})));
    CHECK(reject_setup(g, Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"NE", "Nc"}),
                       ErrorCode::SetupTaken)
              .find("guardian 2 at Nc") == 0);
    reject_setup(g, Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"SW", "SE"}),
                 ErrorCode::SetupTaken);
}

TEST_CASE("setup: silver is checked against its own guardians only") {
    // Silver's guardians watch column c and row 1: c1 is a crossing.
    Game g(Variant{7, 3, 2, 30});
    CHECK(reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "d1"}, {"Sc", "W1"}),
                       ErrorCode::SetupCrossing) ==
          "the silver elephant at c1 would stand on a crossing (column c and row 1 are watched)");
    // Column c and row 2: the crossing c2 holds a trunk, which is fine.
    CHECK(!g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "d1"}, {"Sc", "E2"})));
    CHECK(g.crossings() == std::vector<Cell>{C("c2", 7)});
    CHECK(g.has_trunk(C("c2", 7)));
}

TEST_CASE("setup: bronze is checked against all four guardians and both herds") {
    SUBCASE("bronze elephant on a crossing made by a silver and a bronze guardian") {
        Game g(Variant{7, 3, 2, 30});
        REQUIRE(!g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "d1"}, {"W3", "SE"})));  // row 3
        CHECK(
            reject_setup(g, Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"Na", "NE"}),
                         ErrorCode::SetupCrossing) ==
            "the bronze elephant at a3 would stand on a crossing (column a and row 3 are watched)");
        CHECK(!g.apply_setup(Side::Bronze, setup(7, {"a2", "a5", "a4"}, {"Na", "NE"})));
        CHECK(g.crossings() == std::vector<Cell>{C("a3", 7)});
    }
    SUBCASE("bronze elephant on a crossing of silver's guardians alone") {
        Game g(Variant{7, 3, 2, 30});
        REQUIRE(!g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "d1"}, {"Sa", "W3"})));
        reject_setup(g, Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"NE", "SE"}),
                     ErrorCode::SetupCrossing);
        CHECK(!g.apply_setup(Side::Bronze, setup(7, {"a2", "a6", "a4"}, {"NE", "SE"})));
    }
    SUBCASE("bronze guardians would put a silver elephant on a crossing") {
        Game g(Variant{7, 3, 2, 30});
        REQUIRE(
            !g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "d1"}, {"Sc", "NE"})));  // column c
        CHECK(reject_setup(g, Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"W1", "SE"}),
                           ErrorCode::SetupCrossing) ==
              "bronze's guardians would put the silver elephant at c1 on a crossing");
        CHECK(g.phase() == Phase::SetupBronze);
        CHECK(!g.apply_setup(Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"W2", "SE"})));
    }
}

TEST_CASE("setup: wrong phase and order") {
    Game g(Variant{7, 3, 2, 30});
    reject_setup(g, Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"NE", "SE"}),
                 ErrorCode::WrongPhase);
    reject(g, Turn{}, ErrorCode::WrongPhase);
    REQUIRE(!g.apply_setup(Side::Silver, setup(7, {"b1", "c1", "d1"}, {"SW", "NW"})));
    reject_setup(g, Side::Silver, setup(7, {"b1", "c1", "d1"}, {"SE", "NE"}),
                 ErrorCode::WrongPhase);
    reject(g, Turn{}, ErrorCode::WrongPhase);
    REQUIRE(!g.apply_setup(Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"NE", "SE"})));
    reject_setup(g, Side::Bronze, setup(7, {"a2", "a3", "a4"}, {"E1", "E2"}),
                 ErrorCode::WrongPhase);
    accept(g, "b1-b2");  // b2 holds a trunk, collected forward
    CHECK(g.stats(Side::Silver).trunks == 1);
}

// ---------------------------------------------------------------- §4.1 elephant move

TEST_CASE("plain steps go one cell in any direction, 1 to 3 of them") {
    const Pos p = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't');
    for (const char* to : {"d4", "e3", "d2", "c3"}) {
        Game g = p.game();
        accept(g, std::string("d3-") + to + ":W");
        CHECK(at(g, to) == 'W');
        CHECK(at(g, "d3") == '.');
        CHECK(g.to_move() == Side::Bronze);
        CHECK(g.turns_played() == 1);
        CHECK(g.quiet_turns() == 1);
    }
    Game g = p.game();
    accept(g, "d3-c3-c2-d2:S");
    CHECK(at(g, "d2") == 'S');
    CHECK(at(g, "c3") == '.');
    CHECK(at(g, "c2") == '.');
    g = p.game();
    accept(g, "d3-e3-e4:N");
    CHECK(at(g, "e4") == 'N');
}

TEST_CASE("step shape: adjacent, or a jump over exactly one elephant") {
    Game g = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't').game();
    CHECK(reject(g, "d3-e4:N", ErrorCode::StepShape) ==
          "step 1 goes from d3 to e4: a step moves to an adjacent cell, or jumps over one elephant "
          "to the cell beyond");
    reject(g, "d3-d3:N", ErrorCode::StepShape);
    reject(g, "d3-d6:N", ErrorCode::StepShape);
    reject(g, "d3-d4-f6:N", ErrorCode::StepShape);
    CHECK(reject(g, "d3-d5:N", ErrorCode::JumpOverNothing) ==
          "step 1 goes two cells from d3 to d5, but d4 holds no elephant to jump over");
    Turn far = T(g, "d3-d4:N");
    far.elephant->path[0] = {4, 1000000};
    reject(g, far, ErrorCode::StepShape);
    far.elephant->path[0] = {-2147483647 - 1, 3};
    reject(g, far, ErrorCode::StepShape);
}

TEST_CASE("the moving elephant must be one of the mover's own") {
    Game g = Pos(7).put("d3", 'N').put("e5", 'e').put("g1", 't').game();
    CHECK(reject(g, "e5-e6:N", ErrorCode::NotOwnElephant) == "there is no silver elephant at e5");
    reject(g, "c3-c4:N", ErrorCode::NotOwnElephant);
    reject(g, "Sd-d1:N", ErrorCode::NotOwnElephant);
    Turn far = T(g, "d3-d4:N");
    far.elephant->from = {4000, -3};
    reject(g, far, ErrorCode::NotOwnElephant);
}

TEST_CASE("a jump over an enemy elephant turns it around") {
    Game g = Pos(7).put("d3", 'N').put("d4", 'n').put("g1", 't').game();
    accept(g, "d3-d5:E");
    CHECK(at(g, "d5") == 'E');
    CHECK(at(g, "d4") == 's');
    CHECK(at(g, "d3") == '.');
    // Sideways and backwards jumps onto free cells are fine too.
    for (auto [jumped, before, path, after] :
         {std::tuple{"e3", 'e', "d3-f3:S", 'w'}, std::tuple{"d2", 'n', "d3-d1:S", 's'}}) {
        Game h = Pos(7).put("d3", 'N').put(jumped, before).put("g7", 't').game();
        accept(h, path);
        CHECK(at(h, jumped) == after);
    }
}

TEST_CASE("a jump over an own elephant turns it around") {
    Game g = Pos(7).put("d3", 'N').put("d4", 'W').put("a7 b7", 'e').put("g1", 't').game();
    accept(g, "d3-d5:N");
    CHECK(at(g, "d4") == 'E');
    CHECK(at(g, "d5") == 'N');
}

TEST_CASE("three jumps in one move turn three elephants around") {
    Game g = Pos(7)
                 .put("d1", 'N')
                 .put("d2", 'e')
                 .put("d4", 'S')
                 .put("d6", 'w')
                 .put("a7", 'e')
                 .put("g1", 't')
                 .game();
    accept(g, "d1-d3-d5-d7:W");
    CHECK(at(g, "d7") == 'W');
    CHECK(at(g, "d2") == 'w');
    CHECK(at(g, "d4") == 'N');
    CHECK(at(g, "d6") == 'e');
    CHECK(at(g, "d3") == '.');
    CHECK(at(g, "d5") == '.');
}

TEST_CASE("a step jumps at most one elephant") {
    Game g = Pos(7).put("d3", 'N').put("d4 d5", 'n').put("g1", 't').game();
    CHECK(reject(g, "d3-d5:N", ErrorCode::StepOnElephant) == "step 1 lands on the elephant at d5");
    reject(g, "d3-d6:N", ErrorCode::StepShape);
    reject(g, "d3-d4:N", ErrorCode::StepOnElephant);
    for (const std::string& m : moves(g)) {
        CAPTURE(m);
        for (const char* north : {"d3-d4", "d3-d5", "d3-d6"}) CHECK(m.rfind(north, 0) != 0);
    }
    CHECK(has_move(g, "d3-e3:N"));
}

TEST_CASE("the starting cell counts as empty while the elephant moves") {
    Game g = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't').game();
    CHECK(reject(g, "d3-d4-d2:N", ErrorCode::JumpOverNothing) ==
          "step 2 goes two cells from d4 to d2, but d3 holds no elephant to jump over");
    reject(g, "d3-d4-d3:N", ErrorCode::StepRevisit);
    CHECK(!has_move(g, "d3-d4-d2:N"));
    // Going back over another elephant onto the start cell is a revisit, and turns nobody around.
    Game h = Pos(7).put("d3", 'N').put("d4", 'e').put("g1", 't').game();
    CHECK(reject(h, "d3-d5-d3:N", ErrorCode::StepRevisit) ==
          "step 2 lands on d3, which this move already visited");
    CHECK(at(h, "d4") == 'e');
}

TEST_CASE("trunks are collected by a forward step only, which ends the move") {
    const Pos p = Pos(7).put("d3", 'N').put("d4 e3 d2 c3", 't').put("a7", 'e');
    Game g = p.game();
    CHECK(moves(g) == std::vector<std::string>{"d3-d4"});
    CHECK(reject(g, "d3-e3", ErrorCode::TrunkNotForward) ==
          "step 1 reaches the trunk at e3 moving east, but the elephant faces north: a trunk is "
          "collected only "
          "by a forward step");
    reject(g, "d3-d2", ErrorCode::TrunkNotForward);
    reject(g, "d3-c3", ErrorCode::TrunkNotForward);
    CHECK(
        reject(g, "d3-d4:N", ErrorCode::FacingNotAllowed) ==
        "the move ends by collecting the trunk at d4, so the facing stays N and may not be given");
    reject(g, "d3-d4:E", ErrorCode::FacingNotAllowed);
    const int trunks = g.trunks_on_field();
    accept(g, "d3-d4");
    CHECK(at(g, "d4") == 'N');
    CHECK(g.trunks_on_field() == trunks - 1);
    CHECK(g.stats(Side::Silver).trunks == 1);
    CHECK(g.score(Side::Silver) == 1);
    CHECK(g.quiet_turns() == 0);
}

TEST_CASE("collection keeps the facing and ends the move, even after earlier steps") {
    Game g = Pos(7).put("d3", 'E').put("e3", 't').put("a7", 'e').game();
    accept(g, "d3-e3");
    CHECK(at(g, "e3") == 'E');

    Game h = Pos(7).put("d3", 'N').put("c4 d4", 't').put("a7", 'e').game();
    CHECK(reject(h, "d3-d4-d5:N", ErrorCode::MoveContinues) ==
          "step 1 collects the trunk at d4, which ends the move, but the path goes on");
    accept(h, "d3-c3-c4");
    CHECK(at(h, "c4") == 'N');
    CHECK(h.stats(Side::Silver).trunks == 1);
}

TEST_CASE("a forward jump collects a trunk; a sideways one does not") {
    Game g = Pos(7).put("d3", 'N').put("d4", 'e').put("d5", 't').put("g1", 't').game();
    accept(g, "d3-d5");
    CHECK(at(g, "d5") == 'N');
    CHECK(at(g, "d4") == 'w');
    CHECK(g.stats(Side::Silver).trunks == 1);

    Game h = Pos(7).put("d3", 'N').put("e3", 'n').put("f3", 't').game();
    reject(h, "d3-f3", ErrorCode::TrunkNotForward);
    CHECK(at(h, "e3") == 'n');  // not turned around: the turn was rejected as a whole
}

TEST_CASE("a move has 1 to 3 steps") {
    Game g = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't').game();
    Turn four = T(g, "d3-d4-d5-d6:N");
    four.elephant->path.push_back(C("d7", 7));
    CHECK(reject(g, four, ErrorCode::PathLength) ==
          "the move has 4 steps; an elephant moves 1 to 3 steps");
    Turn empty{ElephantMove{C("d3", 7), {}, Dir::N}, std::nullopt, {}};
    CHECK(reject(g, empty, ErrorCode::PathLength) ==
          "the move has 0 steps; an elephant moves 1 to 3 steps");
    Turn huge = empty;
    for (int i = 0; i < 1000; ++i) huge.elephant->path.push_back(C(i % 2 ? "d3" : "d4", 7));
    reject(g, huge, ErrorCode::PathLength);
    accept(g, "d3-d4-d5-d6:S");
    CHECK(at(g, "d6") == 'S');
}

TEST_CASE("a move never revisits a cell") {
    Game g = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't').game();
    CHECK(reject(g, "d3-d4-e4-d4:N", ErrorCode::StepRevisit) ==
          "step 3 lands on d4, which this move already visited");
    reject(g, "d3-d4-d3:N", ErrorCode::StepRevisit);
    reject(g, "d3-e3-d3:N", ErrorCode::StepRevisit);
    accept(g, "d3-c3-c4-d4:N");
}

TEST_CASE("landing on a crossing is refused, and a trunk on a crossing cannot be collected") {
    // Silver's W4 watches row 4 and bronze's Sd column d: d4 is the only crossing.
    const Pos p = Pos(7)
                      .guardians("W4", "NW", "Sd", "SE")
                      .put("d3", 'N')
                      .put("d4", 't')
                      .put("a7", 'e')
                      .put("g1", 't');
    Game g = p.game();
    REQUIRE(g.crossings() == std::vector<Cell>{C("d4", 7)});
    CHECK(reject(g, "d3-d4", ErrorCode::StepOnCrossing) == "step 1 lands on a crossing at d4");
    CHECK(g.has_trunk(C("d4", 7)));
    for (const std::string& m : moves(g)) CHECK(m.find("d4") == std::string::npos);

    Game h = Pos(p).put("d4", '.').game();
    reject(h, "d3-d4:N", ErrorCode::StepOnCrossing);
    reject(h, "d3-c3-c4-d4:N", ErrorCode::StepOnCrossing);
    // A jump onto a crossing is refused as well.
    Game j = Pos(p).put("d4", '.').put("d3", 'e').put("d2", 'N').game();
    reject(j, "d2-d4:N", ErrorCode::StepOnCrossing);
    CHECK(at(j, "d3") == 'e');
}

TEST_CASE("landing on a burnt trunk is refused; a burnt trunk is not jumped") {
    Game g = Pos(7).put("e3", 'N').put("e5", '#').put("a7", 'e').put("g1", 't').game();
    CHECK(reject(g, "e3-e4-e5:N", ErrorCode::StepOnBurnt) == "step 2 lands on a burnt trunk at e5");
    Game h = Pos(7).put("e3", 'N').put("e4", '#').put("a7", 'e').put("g1", 't').game();
    reject(h, "e3-e4:N", ErrorCode::StepOnBurnt);
    CHECK(reject(h, "e3-e5:N", ErrorCode::JumpOverNothing) ==
          "step 1 goes two cells from e3 to e5, but e4 holds no elephant to jump over");
    Game j = Pos(7).put("e3", 'N').put("e4", 'n').put("e5", '#').put("g1", 't').game();
    reject(j, "e3-e5:N", ErrorCode::StepOnBurnt);
}

TEST_CASE("landing on an elephant is refused") {
    Game g = Pos(7).put("d3", 'N').put("d4", 'e').put("c3", 'W').put("g1", 't').game();
    CHECK(reject(g, "d3-d4:N", ErrorCode::StepOnElephant) ==
          "step 1 lands on the elephant at d4 (a step toward an elephant jumps over it)");
    reject(g, "d3-c3:N", ErrorCode::StepOnElephant);
    reject(g, "d3-e3-e4-d4:N", ErrorCode::StepOnElephant);
}

TEST_CASE("no step leaves the field except an exit") {
    Game g = Pos(7).put("a3", 'N').put("g7", 'e').put("g1", 't').game();
    CHECK(reject(g, "a3-W3:N", ErrorCode::StepOffField) ==
          "step 1 leaves the field at W3: only an elephant facing north on silver's goal edge may "
          "step forward off "
          "the field");
    Game h = Pos(7).put("d1", 'S').put("g7", 'e').put("g2", 't').game();
    reject(h, "d1-Sd:N", ErrorCode::StepOffField);
    reject(h, "d1-Sd", ErrorCode::StepOffField);
}

// ---------------------------------------------------------------- exits

TEST_CASE("exit: a forward plain step off the goal edge saves the elephant") {
    const Pos p = Pos(7).put("d7 b3", 'N').put("a7", 'e').put("g1", 't');
    Game g = p.game();
    CHECK(has_move(g, "d7-Nd"));
    CHECK(!has_move(g, "d7-Nd:N"));
    CHECK(reject(g, "d7-Nd:N", ErrorCode::FacingNotAllowed) ==
          "the move ends by leaving the field, so it takes no facing");
    CHECK(reject(g, "d7-Nd-Ne", ErrorCode::MoveContinues) ==
          "step 1 leaves the field and saves the elephant, which ends the move, but the path goes "
          "on");
    const int saved = g.stats(Side::Silver).saved, score = g.score(Side::Silver);
    Game q = Pos(p).quiet_turns(5).game();
    accept(q, "d7-Nd");
    CHECK(q.stats(Side::Silver).saved == saved + 1);
    CHECK(q.score(Side::Silver) == score + 3);
    CHECK(q.elephants_on_field(Side::Silver) == 1);
    CHECK(!q.elephant_on(C("d7", 7)));
    CHECK(q.quiet_turns() == 0);
    CHECK(!q.over());
}

TEST_CASE("exit: after earlier steps of the same move") {
    Game g = Pos(7).put("d6 b3", 'N').put("a7", 'e').put("g1", 't').game();
    accept(g, "d6-d7-Nd");
    CHECK(g.stats(Side::Silver).saved == 1);
    Game h = Pos(7).put("c7 b3", 'N').put("a5", 'e').put("g1", 't').game();
    accept(h, "c7-d7-Nd");
    CHECK(h.stats(Side::Silver).saved == 1);
    Game k = Pos(7).put("d5 b3", 'N').put("a5", 'e').put("g1", 't').game();
    accept(k, "d5-d6-d7-Nd");
    // After a jump onto the goal edge too.
    Game j = Pos(7).put("d5 b3", 'N').put("d6", 'e').put("g1", 't').game();
    accept(j, "d5-d7-Nd");
    CHECK(j.stats(Side::Silver).saved == 1);
    CHECK(at(j, "d6") == 'w');
}

TEST_CASE("exit: whatever stands on the ring cell beyond") {
    Game g = Pos(7)
                 .guardians("Nd", "SW", "NE", "SE")
                 .put("d7 b3", 'N')
                 .put("a5", 'e')
                 .put("g1", 't')
                 .game();
    accept(g, "d7-Nd");
    CHECK(g.stats(Side::Silver).saved == 1);
    CHECK(g.guardian_on(C("Nd", 7)));
}

TEST_CASE("exit: only facing the goal direction, only forward, only from the goal edge") {
    // Facing east on the north edge: no exit north.
    Game g = Pos(7).put("d7", 'E').put("b3", 'N').put("a5", 'e').put("g1", 't').game();
    reject(g, "d7-Nd", ErrorCode::StepOffField);
    // Silver facing east on the east edge: east is not silver's goal.
    Game h = Pos(7).put("g4", 'E').put("b3", 'N').put("a5", 'e').put("g1", 't').game();
    CHECK(reject(h, "g4-E4", ErrorCode::StepOffField) ==
          "step 1 leaves the field at E4: only an elephant facing north on silver's goal edge may "
          "step forward off "
          "the field");
    CHECK(!has_move(h, "g4-E4"));
    // Silver facing north on the south edge cannot leave south.
    Game k = Pos(7).put("d1", 'N').put("a5", 'e').put("g7", 't').game();
    reject(k, "d1-Sd", ErrorCode::StepOffField);
    // Jumps never exit.
    Game j = Pos(7).put("d6", 'N').put("d7", 'n').put("b3", 'N').put("g1", 't').game();
    CHECK(reject(j, "d6-Nd", ErrorCode::StepOffField) ==
          "step 1 jumps off the field to Nd: an elephant leaves the field only by a plain forward "
          "step");
    CHECK(at(j, "d7") == 'n');
    for (const std::string& m : moves(j)) CHECK(m.find("Nd") == std::string::npos);
}

TEST_CASE("exit: bronze leaves east, not north") {
    const Pos p = Pos(7).put("g4 d7", 'e').put("b3", 'N').put("a1", 't').move(Side::Bronze);
    Game g = p.game();
    accept(g, "g4-E4");
    CHECK(g.stats(Side::Bronze).saved == 1);
    CHECK(g.to_move() == Side::Silver);
    Game h = Pos(7)
                 .put("g4", 'e')
                 .put("d7", 'n')
                 .put("b3", 'N')
                 .put("a1", 't')
                 .move(Side::Bronze)
                 .game();
    CHECK(reject(h, "d7-Nd", ErrorCode::StepOffField) ==
          "step 1 leaves the field at Nd: only an elephant facing east on bronze's goal edge may "
          "step forward off "
          "the field");
    accept(h, "g4-E4");
}

// ---------------------------------------------------------------- facing

TEST_CASE("facing is required exactly when the move ends on a free cell") {
    const Pos p = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't');
    Game g = p.game();
    CHECK(reject(g, "d3-d4", ErrorCode::FacingRequired) ==
          "the move ends on the free cell d4, so it needs a facing (N, E, S or W)");
    reject(g, "d3-c3-c2", ErrorCode::FacingRequired);
    for (const char* f : {"N", "E", "S", "W"}) {
        Game h = p.game();
        accept(h, std::string("d3-d4:") + f);
        CHECK(at(h, "d4") == f[0]);
    }
}

TEST_CASE("counting legal moves: one per (from, path, facing)") {
    // 5x5, everything a trunk except the 2x2 square b2 c2 b3 c3; silver at b2 facing N.
    // Column a and row 1 are burnt trunks (walls), everything else a trunk.
    const Pos walls =
        Pos(5, 't').burnt_per_player(9).put("a1 b1 c1 d1 e1 a2 a3 a4", '#').put("a5", 'e');
    Game g = Pos(walls).put("b2", 'N').put("c2 b3 c3", '.').game();
    const auto ms = moves(g);
    CHECK(ms.size() == 27);
    // Two different paths to c3 are two moves (times four facings).
    CHECK(has_move(g, "b2-b3-c3:W"));
    CHECK(has_move(g, "b2-c2-c3:W"));
    CHECK(has_move(g, "b2-b3-b4"));
    CHECK(has_move(g, "b2-c2-c3-c4"));
    CHECK(!has_move(g, "b2-c2-d2"));
    CHECK(!has_move(g, "b2-b3-c3-c2"));  // c2 is free: listed only with a facing
    CHECK(has_move(g, "b2-b3-c3-c2:S"));

    Game h = Pos(walls).put("c4", 'N').put("c3 c2", '.').game();
    CHECK(moves(h).size() == 9);
}

// ---------------------------------------------------------------- mandatory move / pass

TEST_CASE("an elephant move is mandatory when one exists") {
    Game g = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't').game();
    const std::string m = reject(g, "pass", ErrorCode::ElephantRequired);
    CHECK(m.rfind("silver must move an elephant: a legal move exists (for example d3-", 0) == 0);
    reject(g, "pass *e5", ErrorCode::ElephantRequired);
    reject(g, Turn{}, ErrorCode::ElephantRequired);
}

TEST_CASE("no legal elephant move: the elephant part is null, and non-null is illegal") {
    Game g = boxed7().game();
    CHECK(moves(g).empty());
    CHECK(!g.has_legal_move());
    CHECK(reject(g, "a1-a2:N", ErrorCode::NoLegalMove) ==
          "silver has no legal elephant move, so the turn's elephant part must be null");
    reject(g, "a1-b1", ErrorCode::NoLegalMove);
    accept(g, "pass");
    CHECK(g.to_move() == Side::Bronze);
    CHECK(g.turns_played() == 1);
    CHECK(g.quiet_turns() == 1);
    reject(g, "a7-b7:E", ErrorCode::NoLegalMove);
    accept(g, "pass *d4");  // the other parts of the turn may still be played
    CHECK(g.has_burnt(C("d4", 7)));
    CHECK(g.to_move() == Side::Silver);
    CHECK(g.quiet_turns() == 2);
}

TEST_CASE("an elephant with no move of its own is no excuse while another can move") {
    Game g = boxed7().put("f3", 'N').put("a5", 'e').game();
    reject(g, "pass", ErrorCode::ElephantRequired);
    reject(g, "a1-a2:N", ErrorCode::StepOnBurnt);
    accept(g, "f3-f4:N");
}

// ---------------------------------------------------------------- §4.2 burnt trunk

TEST_CASE("burnt trunk: placed on a field cell with no trunk, burnt trunk or elephant") {
    const Pos p = Pos(7).put("d3", 'N').put("a7", 'e').put("g1 c5", 't').put("f5", '#');
    Game g = p.game();
    REQUIRE(g.stats(Side::Silver).burnt_left == 2);
    const int trunks = g.trunks_on_field();
    CHECK(reject(g, "d3-d4:N *c5", ErrorCode::BurntCell) ==
          "cannot place a burnt trunk on c5: it holds a trunk");
    CHECK(reject(g, "d3-d4:N *f5", ErrorCode::BurntCell) ==
          "cannot place a burnt trunk on f5: it holds a burnt trunk");
    CHECK(reject(g, "d3-d4:N *a7", ErrorCode::BurntCell) ==
          "cannot place a burnt trunk on a7: it holds an elephant");
    // The cell the elephant just reached holds it; the one it left is free.
    reject(g, "d3-d4:N *d4", ErrorCode::BurntCell);
    CHECK(reject(g, "d3-d4:N *Sd", ErrorCode::BurntCell) ==
          "a burnt trunk goes on a field cell, and Sd is not one");
    reject(g, "d3-d4:N *SW", ErrorCode::BurntCell);
    Turn far = T(g, "d3-d4:N");
    far.burnt = Cell{100, -100};
    reject(g, far, ErrorCode::BurntCell);

    Game h = p.game();
    accept(h, "d3-d4:N *d3");
    CHECK(h.has_burnt(C("d3", 7)));
    CHECK(h.stats(Side::Silver).burnt_left == 1);
    CHECK(h.stats(Side::Bronze).burnt_left == 3);
    CHECK(h.trunks_on_field() == trunks);
    CHECK(h.quiet_turns() == 1);  // placing a burnt trunk is not progress
    CHECK(h.score(Side::Silver) == p.game().score(Side::Silver));
}

TEST_CASE("burnt trunk: a crossing is allowed") {
    Game g = Pos(7)
                 .guardians("W5", "NW", "Sb", "SE")
                 .put("d3", 'N')
                 .put("a7", 'e')
                 .put("g1", 't')
                 .game();
    REQUIRE(g.crossings() == std::vector<Cell>{C("b5", 7)});
    accept(g, "d3-d4:N *b5");
    CHECK(g.has_burnt(C("b5", 7)));
    CHECK(g.is_crossing(C("b5", 7)));
}

TEST_CASE("burnt trunk: none left") {
    Game g = Pos(7).burnt_per_player(0).put("d3", 'N').put("a7", 'e').put("g1", 't').game();
    CHECK(reject(g, "d3-d4:N *e5", ErrorCode::NoBurntLeft) ==
          "silver has no burnt trunk left to place");
    Game h = Pos(7)
                 .put("d3", 'N')
                 .put("a7", 'e')
                 .put("g1", 't')
                 .put("c5 c6 c7", '#')
                 .burnt_left(0, 3)
                 .game();
    reject(h, "d3-d4:N *e5", ErrorCode::NoBurntLeft);
    // The last one may be placed.
    Game k = Pos(7)
                 .put("d3", 'N')
                 .put("a7", 'e')
                 .put("g1", 't')
                 .put("c5 c6", '#')
                 .burnt_left(1, 3)
                 .game();
    accept(k, "d3-d4:N *e5");
    CHECK(k.stats(Side::Silver).burnt_left == 0);
}

TEST_CASE("burnt trunk: at most one per turn, by the format") {
    Game g = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't').game();
    auto two =
        turn_from_json(Json::parse(R"({"elephant": {"from": [4,3], "path": [[4,4]], "facing": "N"},
                                               "burnt": [[5,5], [6,6]]})"));
    REQUIRE(!two);
    CHECK(two.error().code == ErrorCode::BadFormat);
    auto notation = turn_from_notation("d3-d4:N *e5 *f6", 7);
    CHECK(!notation);
    // One burnt trunk is fine, and then it is the only one the turn places.
    accept(g, "d3-d4:N *e5");
    CHECK(g.burnt_cells() == std::vector<Cell>{C("e5", 7)});
}

// ---------------------------------------------------------------- §4.3 guardian moves

TEST_CASE("guardian moves: clockwise is SW -> NW -> NE -> SE") {
    struct Case {
        Side side;
        const char* move;
        const char* from;
        const char* to;
    };
    for (const Case& c :
         {Case{Side::Silver, "pass SW+1", "SW", "W1"}, Case{Side::Silver, "pass SW-1", "SW", "Sa"},
          Case{Side::Silver, "pass NW+1", "NW", "Na"}, Case{Side::Silver, "pass NW-1", "NW", "W7"},
          Case{Side::Bronze, "pass NE+1", "NE", "E7"}, Case{Side::Bronze, "pass NE-1", "NE", "Ng"},
          Case{Side::Bronze, "pass SE+1", "SE", "Sg"}, Case{Side::Bronze, "pass SE-1", "SE", "E1"},
          Case{Side::Silver, "pass SW+3", "SW", "W3"}, Case{Side::Silver, "pass NW+4", "NW", "Nd"},
          Case{Side::Bronze, "pass NE+7", "NE", "E1"}, Case{Side::Bronze, "pass SE+7", "SE", "Sa"},
          Case{Side::Silver, "pass SW-7", "SW", "Sg"},
          Case{Side::Bronze, "pass SE-7", "SE", "E7"}}) {
        CAPTURE(c.move);
        Game g = boxed7().trunks(c.side, 10).move(c.side).game();
        const int spent = g.stats(c.side).spent;
        accept(g, c.move);
        REQUIRE(g.guardian_on(C(c.to, 7)));
        CHECK(g.guardian_on(C(c.to, 7))->side == c.side);
        CHECK(!g.guardian_on(C(c.from, 7)));
        const int k = c.move[8] - '0';
        CHECK(g.stats(c.side).trunks == 10 - k);
        CHECK(g.stats(c.side).spent == spent + k);
        CHECK(g.score(c.side) == 10 - k);
        CHECK(g.guardians().size() == 4);
    }
}

TEST_CASE("guardian moves: blocked by any other guardian, passing or stopping") {
    const Pos p = boxed7().trunks(Side::Silver, 20);
    Game g = p.game();
    accept(g, "pass SW+7");  // up to W7, just below silver's own NW
    Game h = p.game();
    CHECK(reject(h, "pass SW+8", ErrorCode::GuardianBlocked) ==
          "guardian move 1 from SW (cw) runs into the guardian at NW after 8 cells");
    reject(h, "pass SW+9", ErrorCode::GuardianBlocked);
    CHECK(reject(h, "pass SW-8", ErrorCode::GuardianBlocked) ==
          "guardian move 1 from SW (ccw) runs into the guardian at SE after 8 cells");
    reject(h, "pass SW-12", ErrorCode::GuardianBlocked);
    reject(h, "pass NW+8", ErrorCode::GuardianBlocked);
    reject(h, "pass NW-8", ErrorCode::GuardianBlocked);
    // A guardian that moved earlier in the turn blocks the later ones.
    CHECK(reject(h, "pass NW-7 SW+1", ErrorCode::GuardianBlocked) ==
          "guardian move 2 from SW (cw) runs into the guardian at W1 after 1 cell");
    accept(h, "pass SW+1 NW-6");  // NW down to W2, next to the guardian now on W1
    CHECK(h.guardian_on(C("W2", 7)));
    CHECK(h.guardian_on(C("W1", 7)));
    CHECK(h.stats(Side::Silver).trunks == 13);
}

TEST_CASE("guardian moves: the cost is k trunks, paid from what the player holds") {
    const Pos p = boxed7().trunks(Side::Silver, 3);
    Game g = p.game();
    CHECK(reject(g, "pass SW+4", ErrorCode::NotEnoughTrunks) ==
          "guardian move 1 (4 cells from SW) costs 4 trunks, but silver holds 3");
    CHECK(reject(g, "pass SW+2 NW+2", ErrorCode::NotEnoughTrunks) ==
          "guardian move 2 (2 cells from NW) costs 2 trunks, but silver holds 1");
    Turn huge = T(g, "pass SW+1");
    huge.guardians[0].steps = 1000000000000LL;
    reject(g, huge, ErrorCode::NotEnoughTrunks);
    accept(g, "pass SW+2 NW+1");
    CHECK(g.stats(Side::Silver).trunks == 0);
    CHECK(g.score(Side::Silver) == 0);
    Game none = boxed7().game();
    reject(none, "pass SW+1", ErrorCode::NotEnoughTrunks);
}

TEST_CASE("guardian moves: trunks collected earlier in the same turn count") {
    const Pos p = Pos(7).put("d3", 'N').put("d4 g1", 't').put("a7", 'e');
    Game g = p.game();
    REQUIRE(g.stats(Side::Silver).trunks == 0);
    reject(g, "d3-d4 SW+2", ErrorCode::NotEnoughTrunks);
    const int spent = g.stats(Side::Silver).spent;
    accept(g, "d3-d4 SW+1");
    CHECK(g.stats(Side::Silver).trunks == 0);
    CHECK(g.stats(Side::Silver).spent == spent + 1);
    CHECK(g.guardian_on(C("W1", 7)));
    CHECK(g.quiet_turns() == 0);  // the collection was progress
}

TEST_CASE("guardian moves: each own guardian at most once per turn") {
    Game g = boxed7().trunks(Side::Silver, 10).game();
    CHECK(reject(g, "pass SW+1 W1+1", ErrorCode::GuardianTwice) ==
          "guardian move 2: the guardian at W1 already moved this turn");
    reject(g, "pass NW-1 W7-1", ErrorCode::GuardianTwice);
    reject(g, "pass SW+1 NW-1 W1+1", ErrorCode::GuardianTwice);
    // The cell a guardian left is empty: naming it again finds no guardian.
    reject(g, "pass SW+1 SW+1", ErrorCode::GuardianNotOwn);
    accept(g, "pass SW+1 NW+1");
}

TEST_CASE("guardian moves: only the mover's own guardians, at least one cell") {
    Game g = boxed7().trunks(Side::Silver, 10).game();
    CHECK(reject(g, "pass NE+1", ErrorCode::GuardianNotOwn) ==
          "guardian move 1: there is no silver guardian at NE");
    reject(g, "pass SE-1", ErrorCode::GuardianNotOwn);
    reject(g, "pass Sd+1", ErrorCode::GuardianNotOwn);
    reject(g, "pass d4+1", ErrorCode::GuardianNotOwn);
    reject(g, "pass SW+1 NE+1", ErrorCode::GuardianNotOwn);
    Turn t = T(g, "pass SW+1");
    t.guardians[0].from = {-5, 100000};
    reject(g, t, ErrorCode::GuardianNotOwn);
    t = T(g, "pass SW+1");
    t.guardians[0].steps = 0;
    CHECK(reject(g, t, ErrorCode::GuardianSteps) ==
          "guardian move 1: a guardian moves at least 1 cell, not 0");
    t.guardians[0].steps = -5;
    reject(g, t, ErrorCode::GuardianSteps);
}

TEST_CASE("captures after a guardian move go to the opponent of the captured elephant's owner") {
    // Silver's guardian on Sd watches column d; moving NW down to W5 makes d5 a crossing.
    SUBCASE("silver captures a bronze elephant") {
        Game g = boxed7()
                     .guardians("Sd", "NW", "NE", "SE")
                     .put("d5", 'e')
                     .trunks(Side::Silver, 5)
                     .quiet_turns(3)
                     .game();
        const int before = g.score(Side::Silver), bronze = g.score(Side::Bronze);
        accept(g, "pass NW-3");
        CHECK(g.crossings() == std::vector<Cell>{C("d5", 7)});
        CHECK(!g.elephant_on(C("d5", 7)));
        CHECK(g.stats(Side::Silver).captured == 1);
        CHECK(g.stats(Side::Bronze).captured == 0);
        CHECK(g.elephants_on_field(Side::Bronze) == 1);
        CHECK(g.score(Side::Silver) == before - 3 + 2);
        CHECK(g.score(Side::Bronze) == bronze);
        CHECK(g.quiet_turns() == 0);
        CHECK(!g.over());
    }
    SUBCASE("silver's own guardian captures silver's own elephant: bronze scores") {
        Game g = Pos(7)
                     .guardians("Sd", "NW", "NE", "SE")
                     .put("d5 f2", 'N')
                     .put("a7", 'e')
                     .put("g7", 't')
                     .trunks(Side::Silver, 5)
                     .game();
        const int bronze = g.score(Side::Bronze);
        accept(g, "f2-f3:N NW-3");
        CHECK(!g.elephant_on(C("d5", 7)));
        CHECK(g.stats(Side::Bronze).captured == 1);
        CHECK(g.stats(Side::Silver).captured == 0);
        CHECK(g.score(Side::Bronze) == bronze + 2);
        CHECK(g.elephants_on_field(Side::Silver) == 1);
    }
    SUBCASE("bronze's guardian captures bronze's own elephant: silver scores") {
        Game g = Pos(7)
                     .guardians("Sd", "NW", "NE", "SE")
                     .put("d5 f2", 'e')
                     .put("a1", 'N')
                     .put("g7", 't')
                     .trunks(Side::Bronze, 5)
                     .move(Side::Bronze)
                     .game();
        accept(g, "f2-g2:E NE+3");  // NE down the east edge to E5
        CHECK(g.guardian_on(C("E5", 7))->side == Side::Bronze);
        CHECK(!g.elephant_on(C("d5", 7)));
        CHECK(g.stats(Side::Silver).captured == 1);
        CHECK(g.stats(Side::Bronze).captured == 0);
    }
    SUBCASE("one guardian move captures on every crossing, both sides") {
        Game g = Pos(7)
                     .guardians("Sd", "NW", "Sf", "SE")
                     .put("d5 a7", 'e')
                     .put("f5", 'S')
                     .put("g2", 'N')
                     .put("g7", 't')
                     .trunks(Side::Silver, 5)
                     .game();
        accept(g, "g2-g3:N NW-3");
        CHECK(g.crossings() == std::vector<Cell>{C("d5", 7), C("f5", 7)});
        CHECK(g.stats(Side::Silver).captured == 1);
        CHECK(g.stats(Side::Bronze).captured == 1);
        CHECK(g.elephants_on_field(Side::Silver) == 1);
        CHECK(g.elephants_on_field(Side::Bronze) == 1);
    }
}

TEST_CASE("a crossing that exists only between two guardian moves still captures") {
    Game g =
        boxed7().guardians("Sd", "NW", "NE", "SE").put("d5", 'e').trunks(Side::Silver, 5).game();
    accept(g, "pass NW-3 Sd+1");  // W5 + Sd makes d5; then Sd moves on to Sc
    CHECK(g.guardian_on(C("Sc", 7)));
    CHECK(g.guardian_on(C("W5", 7)));
    CHECK(g.crossings() == std::vector<Cell>{C("c5", 7)});
    CHECK(!g.elephant_on(C("d5", 7)));
    CHECK(g.stats(Side::Silver).captured == 1);
    CHECK(g.stats(Side::Silver).trunks == 1);
    // The other order moves Sd away first: no crossing ever reaches d5.
    Game h =
        boxed7().guardians("Sd", "NW", "NE", "SE").put("d5", 'e').trunks(Side::Silver, 5).game();
    accept(h, "pass Sd+1 NW-3");
    CHECK(h.elephant_on(C("d5", 7)));
    CHECK(h.stats(Side::Silver).captured == 0);
}

TEST_CASE("guardians never block or get jumped by field elephants") {
    // A guardian on Sd next to d1: silver's elephant on d2 steps south onto d1 and not beyond.
    Game g = Pos(7)
                 .guardians("Sd", "NW", "NE", "SE")
                 .put("d2", 'N')
                 .put("a7", 'e')
                 .put("g7", 't')
                 .game();
    reject(g, "d2-d1-Sd:N", ErrorCode::StepOffField);
    accept(g, "d2-d1:S");
}

// ---------------------------------------------------------------- §5 end of game

TEST_CASE("end: the last trunk collected ends the game at once") {
    const Pos p = Pos(7).put("d3", 'N').put("d4", 't').put("a7", 'e').put("b6", '#');
    Game g = p.game();
    REQUIRE(g.trunks_on_field() == 1);
    accept(g, "d3-d4");
    CHECK(g.over());
    CHECK(g.end_reason() == EndReason::Trunks);
    CHECK(g.trunks_on_field() == 0);
    CHECK(g.burnt_cells().size() == 1);  // burnt trunks do not keep the game going
    const Json r = result_to_json(g);
    CHECK(r.at("over") == true);
    CHECK(r.at("reason") == "trunks");
    CHECK(r.at("to_move").is_null());
    CHECK(reject(g, "a7-b7:E", ErrorCode::GameOver) == "the game is over");
    reject(g, "pass", ErrorCode::GameOver);
    MoveList ml;
    g.generate(ml);
    CHECK(ml.size == 0);
}

TEST_CASE("end: the rest of a turn after the end is illegal and changes nothing") {
    const Pos p = Pos(7).put("d3", 'N').put("d4", 't').put("a7", 'e').trunks(Side::Silver, 3);
    Game g = p.game();
    CHECK(reject(g, "d3-d4 *e5", ErrorCode::AfterEnd) ==
          "the game ended with the elephant move (no trunk is left), so the turn cannot go on with "
          "a burnt trunk or "
          "guardian moves");
    CHECK(g.trunks_on_field() == 1);
    CHECK(!g.over());
    reject(g, "d3-d4 SW+1", ErrorCode::AfterEnd);
    reject(g, "d3-d4 *e5 SW+1", ErrorCode::AfterEnd);
    accept(g, "d3-d4");
    CHECK(g.over());
}

TEST_CASE("end: a herd emptied by saving its last elephant") {
    const Pos p = Pos(7).put("d7", 'N').put("a5 b5", 'e').put("g1", 't');
    Game g = p.game();
    CHECK(reject(g, "d7-Nd *e5", ErrorCode::AfterEnd) ==
          "the game ended with the elephant move (a herd is gone), so the turn cannot go on with a "
          "burnt trunk or "
          "guardian moves");
    accept(g, "d7-Nd");
    CHECK(g.over());
    CHECK(g.end_reason() == EndReason::Herd);
    CHECK(g.elephants_on_field(Side::Silver) == 0);
    CHECK(g.elephants_on_field(Side::Bronze) == 2);
    CHECK(result_to_json(g).at("reason") == "herd");
}

TEST_CASE("end: a herd emptied by capture, mid-turn") {
    const Pos p = boxed7()
                      .guardians("Sd", "NW", "NE", "SE")
                      .put("a7", '.')
                      .put("b7", 't')
                      .put("d5", 'e')
                      .burnt_left(2, 3)
                      .trunks(Side::Silver, 5);
    Game g = p.game();
    REQUIRE(g.elephants_on_field(Side::Bronze) == 1);
    CHECK(reject(g, "pass NW-3 Sd+1", ErrorCode::AfterEnd) ==
          "the game ended with guardian move 1 (a herd is gone), so guardian move 2 cannot be "
          "played");
    accept(g, "pass NW-3");
    CHECK(g.over());
    CHECK(g.end_reason() == EndReason::Herd);
    CHECK(g.stats(Side::Silver).captured == 1);
    // Silver captures its own last elephant: the game ends too, and bronze scores the capture.
    Game h = Pos(7)
                 .guardians("Sd", "NW", "NE", "SE")
                 .put("d4", 'N')
                 .put("a7 b7", 'e')
                 .put("g1", 't')
                 .trunks(Side::Silver, 5)
                 .game();
    accept(h, "d4-d5:N NW-3");
    CHECK(h.over());
    CHECK(h.end_reason() == EndReason::Herd);
    CHECK(h.stats(Side::Bronze).captured == 1);
    CHECK(h.score(Side::Bronze) == 2);
}

TEST_CASE("end: Q quiet turns in a row") {
    SUBCASE("Q = 2, two passes") {
        Game g = boxed7().quiet_limit(2).game();
        accept(g, "pass");
        CHECK(!g.over());
        CHECK(g.quiet_turns() == 1);
        accept(g, "pass");
        CHECK(g.over());
        CHECK(g.end_reason() == EndReason::Quiet);
        CHECK(g.quiet_turns() == 2);
        CHECK(result_to_json(g).at("to_move").is_null());
    }
    SUBCASE("Q = 3 is not reached after two") {
        Game g = boxed7().quiet_limit(3).game();
        accept(g, "pass");
        accept(g, "pass");
        CHECK(!g.over());
        accept(g, "pass");
        CHECK(g.over());
    }
    SUBCASE("plain steps are quiet") {
        Game g = Pos(7).put("d3", 'N').put("d6", 's').put("g1", 't').quiet_limit(2).game();
        accept(g, "d3-d4:N");
        accept(g, "d6-d5:S");
        CHECK(g.over());
        CHECK(g.end_reason() == EndReason::Quiet);
    }
    SUBCASE("spending trunks, a burnt trunk and guardian moves are not progress") {
        Game g = boxed7().quiet_limit(2).quiet_turns(1).trunks(Side::Silver, 5).game();
        accept(g, "pass *d4 SW+1 NW+2");
        CHECK(g.over());
        CHECK(g.end_reason() == EndReason::Quiet);
    }
}

TEST_CASE("end: collection, saving and capture reset the quiet count") {
    SUBCASE("collection") {
        Game g = Pos(7)
                     .put("d3", 'N')
                     .put("d4 g1", 't')
                     .put("a7", 'e')
                     .quiet_limit(2)
                     .quiet_turns(1)
                     .game();
        accept(g, "d3-d4");
        CHECK(!g.over());
        CHECK(g.quiet_turns() == 0);
    }
    SUBCASE("saving") {
        Game g = Pos(7)
                     .put("d7 b3", 'N')
                     .put("a7", 'e')
                     .put("g1", 't')
                     .quiet_limit(2)
                     .quiet_turns(1)
                     .game();
        accept(g, "d7-Nd");
        CHECK(!g.over());
        CHECK(g.quiet_turns() == 0);
    }
    SUBCASE("capture") {
        Game g = boxed7()
                     .guardians("Sd", "NW", "NE", "SE")
                     .put("d5", 'e')
                     .trunks(Side::Silver, 5)
                     .quiet_limit(2)
                     .quiet_turns(1)
                     .game();
        accept(g, "pass NW-3");
        CHECK(!g.over());
        CHECK(g.quiet_turns() == 0);
    }
}

TEST_CASE("scoring: 1 per trunk held, 2 per capture, 3 per saved elephant; higher wins") {
    // Four elephants a side. Silver: 1 on the field, 2 saved, 1 lost to bronze. Bronze: 3 on the
    // field, 1 lost to silver.
    auto make = [](int bronze_trunks) {
        Pos p = Pos(7).put("d3", 'N').put("d4", 't').put("a5 a6 a7", 'e').put("f6", '#');
        p.v.elephants = 4;
        p.st[0].trunks = 3;
        p.st[0].saved = 2;
        p.st[0].captured = 1;
        p.st[0].spent = 7;  // spent trunks do not score
        p.st[1].trunks = bronze_trunks;
        p.st[1].captured = 1;
        return p.game();
    };
    for (auto [bt, winner] :
         {std::pair{10, "draw"}, std::pair{11, "bronze"}, std::pair{9, "silver"}}) {
        CAPTURE(bt);
        Game g = make(bt);
        CHECK(g.score(Side::Silver) == 3 + 2 + 6);
        CHECK(g.score(Side::Bronze) == bt + 2);
        CHECK(!g.winner());
        accept(g, "d3-d4");
        REQUIRE(g.over());
        CHECK(g.score(Side::Silver) == 12);  // the elephant still on the field scores nothing
        CHECK(g.score(Side::Bronze) == bt + 2);
        const Json r = result_to_json(g);
        CHECK(r.at("winner") == winner);
        CHECK(r.at("score") == Json{{"silver", 12}, {"bronze", bt + 2}});
        if (std::string(winner) == "draw") CHECK(!g.winner());
        if (std::string(winner) == "silver") CHECK(g.winner() == Side::Silver);
        if (std::string(winner) == "bronze") CHECK(g.winner() == Side::Bronze);
    }
}

TEST_CASE("resignation and time give the win to the other side whatever the score") {
    Game g = Pos(7).put("d3", 'N').put("a7", 'e').put("g1", 't').trunks(Side::Silver, 20).game();
    REQUIRE(g.score(Side::Silver) > g.score(Side::Bronze));
    Game r = g;
    r.resign(Side::Silver);
    CHECK(r.over());
    CHECK(r.end_reason() == EndReason::Resign);
    CHECK(r.winner() == Side::Bronze);
    CHECK(result_to_json(r).at("winner") == "bronze");
    CHECK(result_to_json(r).at("reason") == "resign");
    reject(r, "d3-d4:N", ErrorCode::GameOver);
    Game t = g;
    t.resign(Side::Silver, EndReason::Time);
    CHECK(t.winner() == Side::Bronze);
    CHECK(result_to_json(t).at("reason") == "time");
    Game b = g;
    b.resign(Side::Bronze);
    CHECK(b.winner() == Side::Silver);
    // A finished game cannot be resigned again.
    r.resign(Side::Bronze);
    CHECK(r.winner() == Side::Bronze);
}
