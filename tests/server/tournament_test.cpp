// Tournaments' arithmetic (server/tournament/): sides, the Swiss pairing and standings, the
// arena's points and pairing. Expected figures are worked out by hand in the comments, or by a
// brute-force search written here apart from the pairing's own.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "server/tournament/arena.h"
#include "server/tournament/swiss.h"

using namespace tf;
using namespace tf::server::tournament;

namespace {

constexpr Side S = Side::Silver, B = Side::Bronze;

SideHistory sides(std::vector<Side> v) {
    return {std::move(v)};
}

std::vector<Entrant> entrants(int n) {
    std::vector<Entrant> out;
    for (int i = 0; i < n; ++i)
        out.push_back({"p" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1), 2000 - 10 * i});
    return out;
}

// Is there a round without a repeat among `ids` (one of `byes` sitting out when odd)?
bool pairable(const std::vector<SwissPlayer>& ps, const std::vector<std::string>& byes) {
    std::function<bool(std::vector<const SwissPlayer*>)> match =
        [&](std::vector<const SwissPlayer*> left) {
            if (left.empty()) return true;
            const SwissPlayer* a = left.back();
            left.pop_back();
            for (std::size_t i = 0; i < left.size(); ++i) {
                if (a->met.count(left[i]->id)) continue;
                auto rest = left;
                rest.erase(rest.begin() + long(i));
                if (match(rest)) return true;
            }
            return false;
        };
    std::vector<const SwissPlayer*> all;
    for (const auto& p : ps) all.push_back(&p);
    if (all.size() % 2 == 0) return match(all);
    for (const auto& b : byes) {
        auto rest = all;
        std::erase_if(rest, [&](const SwissPlayer* p) { return p->id == b; });
        if (match(rest)) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("tournament sides: preferences and who takes silver") {
    CHECK(preference(sides({})).strength == SidePreference::None);
    CHECK(preference(sides({S})).strength == SidePreference::Strong);
    CHECK(preference(sides({S})).side == B);
    CHECK(preference(sides({S, B})).strength == SidePreference::Mild);
    CHECK(preference(sides({S, B})).side == S);
    CHECK(preference(sides({B, S, S})).strength == SidePreference::Absolute);  // twice in a row
    CHECK(preference(sides({B, S, S})).side == B);
    CHECK(preference(sides({S, B, S, S})).side == B);  // difference 2
    CHECK(side_conflict(sides({S, S}), sides({B, S, S})));
    CHECK_FALSE(side_conflict(sides({S, S}), sides({B, B})));

    // Different wishes: both granted, whoever is ranked higher.
    CHECK(side_of_higher(sides({S}), sides({B})) == B);
    // The same side wanted: the stronger wish wins (strong over mild).
    CHECK(side_of_higher(sides({S, B}), sides({B})) == B);
    CHECK(side_of_higher(sides({B}), sides({S, B})) == S);
    // Equally strong: the latest game in which they differed decides, each takes the other's.
    CHECK(side_of_higher(sides({S, B, S}), sides({S, S, B})) == B);
    // An absolute wish beats a strong one, even the lower ranked player's.
    CHECK(side_of_higher(sides({S, B, S}), sides({B, S, S})) == S);
    // Nothing to tell them apart: the higher ranked one's wish, or `fresh`.
    CHECK(side_of_higher(sides({B}), sides({B})) == S);
    CHECK(side_of_higher(sides({}), sides({}), B) == B);
    CHECK(side_of_higher(sides({}), sides({S})) == S);
}

TEST_CASE("swiss: round 1 is top half against bottom half, sides alternating by board") {
    const auto ps = swiss_players(entrants(8), {});
    const SwissPairing r = pair_swiss(ps);
    REQUIRE(r.games.size() == 4);
    CHECK_FALSE(r.bye);
    CHECK(r.games[0].silver == "p01");
    CHECK(r.games[0].bronze == "p05");
    CHECK(r.games[1].silver == "p06");
    CHECK(r.games[1].bronze == "p02");
    CHECK(r.games[2].silver == "p03");
    CHECK(r.games[2].bronze == "p07");
    CHECK(r.games[3].silver == "p08");
    CHECK(r.games[3].bronze == "p04");
    CHECK(r.repeats == 0);
    CHECK(r.side_clashes == 0);
}

TEST_CASE("swiss: round 2 pairs by score, floats the odd one down, never repeats") {
    // Round 1 of 6: p01 beat p04, p05 beat p02 (an upset), p03 drew p06.
    SwissRecord rec;
    rec.games = {{1, "p01", "p04", GameResult::SilverWins},
                 {1, "p05", "p02", GameResult::SilverWins},
                 {1, "p03", "p06", GameResult::Draw}};
    const SwissPairing r = pair_swiss(swiss_players(entrants(6), rec));
    // Winners p01, p05 meet; the draws p03, p06 have met: p03 floats down to the top loser
    // (p02) and p06 meets p04. Sides: each gets the side it lacks.
    REQUIRE(r.games.size() == 3);
    CHECK(r.games[0].silver == "p05");  // p01 (silver) and p05 (silver): equal wishes for
    CHECK(r.games[0].bronze == "p01");  // bronze; no game apart: the higher (p01) gets its wish
    std::set<std::pair<std::string, std::string>> rest{{r.games[1].silver, r.games[1].bronze},
                                                       {r.games[2].silver, r.games[2].bronze}};
    CHECK(rest.count({"p02", "p03"}) == 1);  // p02 had bronze, p03 silver
    CHECK(rest.count({"p06", "p04"}) == 1);  // both had bronze: p06 ranks higher (a point)
    CHECK(r.repeats == 0);
}

TEST_CASE("swiss: the bye goes to the lowest ranked player without one") {
    SwissRecord rec;
    rec.games = {{1, "p01", "p03", GameResult::SilverWins},
                 {1, "p04", "p02", GameResult::BronzeWins}};
    rec.byes = {{1, "p05"}};
    const auto ps = swiss_players(entrants(5), rec);
    CHECK(ps[4].score == 2);
    CHECK(ps[4].had_bye);
    const SwissPairing r = pair_swiss(ps);
    // p05 (2 points) ranks above p03 and p04 (0): the lowest without a bye is p04.
    REQUIRE(r.bye);
    CHECK(*r.bye == "p04");
    CHECK(r.games.size() == 2);
}

TEST_CASE("swiss: simulated tournaments keep every promise the pairing makes") {
    std::mt19937 rng(20261207);
    for (int trial = 0; trial < 60; ++trial) {
        const int n = 3 + int(rng() % 14);
        const int rounds = std::min(n - 1, 2 + int(rng() % 6));
        auto ents = entrants(n);
        std::shuffle(ents.begin(), ents.end(), rng);  // ratings not in id order
        SwissRecord rec;
        CAPTURE(trial);
        CAPTURE(n);
        for (int round = 1; round <= rounds; ++round) {
            CAPTURE(round);
            const auto ps = swiss_players(ents, rec);
            const SwissPairing r = pair_swiss(ps);
            // Everyone exactly once: in a game or the bye.
            std::multiset<std::string> seen;
            for (const auto& g : r.games) seen.insert({g.silver, g.bronze});
            if (r.bye) seen.insert(*r.bye);
            CHECK(seen.size() == std::size_t(n));
            CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == std::size_t(n));
            CHECK(r.bye.has_value() == (n % 2 == 1));
            // No repeat while a round without one exists (searched apart, by brute force), and
            // no second bye while someone has none.
            std::vector<std::string> fresh;
            for (const auto& p : ps)
                if (!p.had_bye) fresh.push_back(p.id);
            if (n <= 12 && pairable(ps, fresh)) {
                CHECK(r.repeats == 0);
                if (r.bye) CHECK(std::find(fresh.begin(), fresh.end(), *r.bye) != fresh.end());
            }
            // Without a side clash, nobody plays a side three times in a row or is more than
            // two games off balance.
            std::map<std::string, const SwissPlayer*> by_id;
            for (const auto& p : ps) by_id[p.id] = &p;
            if (r.side_clashes == 0)
                for (const auto& g : r.games) {
                    for (const auto& [id, side] :
                         {std::pair{g.silver, S}, std::pair{g.bronze, B}}) {
                        auto h = by_id[id]->sides;
                        h.played.push_back(side);
                        const std::size_t k = h.played.size();
                        CHECK(std::abs(h.difference()) <= 2);
                        if (k >= 3)
                            CHECK_FALSE((h.played[k - 1] == h.played[k - 2] &&
                                         h.played[k - 2] == h.played[k - 3]));
                    }
                }
            // Score groups: a pair's scores differ only when someone had to float.
            for (const auto& g : r.games) rec.games.push_back({round, g.silver, g.bronze, {}});
            if (r.bye) rec.byes.push_back({round, *r.bye});
            for (auto& g : rec.games)
                if (!g.result) g.result = GameResult(rng() % 3);
        }
        const auto st = swiss_standings(ents, rec);
        int total = 0;
        for (const auto& s : st) total += s.score;
        CHECK(total == int(rec.games.size()) * 2 + int(rec.byes.size()) * 2);
    }
}

TEST_CASE("swiss: standings and tie-breaks, worked by hand") {
    // Four players, two rounds:
    //   round 1: a beats b, c draws d;  round 2: a draws c, d beats b.
    // Scores: a 1.5, c 1, d 1.5, b 0.
    // Buchholz: a = b 0 + c 1 = 1; d = c 1 + b 0 = 1; c = d 1.5 + a 1.5 = 3; b = a + d = 3.
    // Sonneborn-Berger: a = b 0 (won) + c 1 / 2 = 0.5; d = c 1 / 2 + b 0 = 0.5;
    //   c = d 1.5 / 2 + a 1.5 / 2 = 1.5; b = 0.
    const std::vector<Entrant> es{{"a", 1600}, {"b", 1700}, {"c", 1500}, {"d", 1650}};
    SwissRecord rec;
    rec.games = {{1, "a", "b", GameResult::SilverWins},
                 {1, "c", "d", GameResult::Draw},
                 {2, "a", "c", GameResult::Draw},
                 {2, "b", "d", GameResult::BronzeWins}};
    const auto st = swiss_standings(es, rec);
    REQUIRE(st.size() == 4);
    // a and d: 1.5 and Buchholz 1 and SB 0.5 each; d's rating (1650) is higher.
    CHECK(st[0].id == "d");
    CHECK(st[1].id == "a");
    CHECK(st[2].id == "c");
    CHECK(st[3].id == "b");
    CHECK(st[0].score == 3);
    CHECK(st[1].buchholz == 2);   // half points: 1
    CHECK(st[1].sonneborn == 2);  // quarter points: 0.5
    CHECK(st[2].buchholz == 6);
    CHECK(st[2].sonneborn == 6);  // 1.5
    CHECK(st[3].buchholz == 6);
    CHECK(st[3].sonneborn == 0);
    CHECK(st[2].draws == 2);

    const std::string report = swiss_report("Test Swiss", es, rec);
    CHECK(report.find("1. d  1.5  1  0.5") != std::string::npos);
    CHECK(report.find("3. c  1  3  1.5") != std::string::npos);
    CHECK(report.find("Round 2 (silver first)\n1. a ½-½ c\n2. b 0-1 d\n") != std::string::npos);
}

TEST_CASE("arena: points, fire, berserk and early draws") {
    const std::vector<Entrant> es{{"a", 1500}, {"b", 1500}, {"c", 1500}};
    const auto W = GameResult::SilverWins, L = GameResult::BronzeWins, D = GameResult::Draw;
    // a is silver in every game: W W W(fire: 4) D(fire: 2, ends it) W L; then a berserk win
    // after 8 turns (+1) and one after 3 turns (no extra point), and an early draw (0).
    std::vector<ArenaGame> rec{{"a", "b", W, 20},      {"a", "c", W, 20},      {"a", "b", W, 20},
                               {"a", "c", D, 20},      {"a", "b", W, 20},      {"a", "c", L, 20},
                               {"a", "b", W, 8, true}, {"a", "c", W, 3, true}, {"a", "b", D, 4}};
    const auto st = arena_standings(es, rec);
    const ArenaStanding& a = st[0];
    REQUIRE(a.id == "a");
    std::vector<int> pts;
    for (const auto& e : a.sheet) pts.push_back(e.points);
    // The eighth game is a's second win in a row (not yet on fire) and its berserk too short;
    // the early draw scores nothing although a was on fire.
    CHECK(pts == std::vector<int>{2, 2, 4, 2, 2, 0, 3, 2, 0});
    CHECK(a.points == 17);
    CHECK(a.berserks == 1);
    CHECK_FALSE(a.fire);  // the last game was a draw
    CHECK(a.wins == 6);
    CHECK(a.draws == 2);
    CHECK(a.losses == 1);
    // c: L, D(20 turns: 1), W(2), L: 3 points; b: L L L L D(early: 0): 0 points.
    CHECK(st[1].id == "c");
    CHECK(st[1].points == 3);
    CHECK(st[2].points == 0);
    // Performance: nine opponents of 1500: 1500 + 500 × (6 wins − 1 loss) / 9 = 1777.
    CHECK(a.performance == 1777);
}

TEST_CASE("arena: pairing by standing, never the last opponent, sides balanced") {
    std::vector<ArenaWaiting> w{{"a", 1, sides({S}), "b"},
                                {"b", 2, sides({B}), "a"},
                                {"c", 3, sides({B}), "d"},
                                {"d", 4, sides({}), "c"},
                                {"e", 5, sides({S, S}), std::nullopt}};
    const auto pairs = pair_arena(w, false);
    // a skips b (just met) and takes c; b takes d; e waits.
    REQUIRE(pairs.size() == 2);
    CHECK(pairs[0].silver == "c");  // a had silver, c bronze
    CHECK(pairs[0].bronze == "a");
    CHECK(pairs[1].silver == "b");  // b had bronze
    CHECK(pairs[1].bronze == "d");

    // Two who just met wait, unless there is nobody else in the tournament.
    const std::vector<ArenaWaiting> two{{"a", 1, sides({S}), "b"}, {"b", 2, sides({B}), "a"}};
    CHECK(pair_arena(two, false).empty());
    const auto again = pair_arena(two, true);
    REQUIRE(again.size() == 1);
    CHECK(again[0].silver == "b");
}

#include "server/tournament/tournament.h"

namespace {

// Makes every game step() asked for, under codes g1, g2, ...
void make_all(Tournament& t, const Steps& s, int& next_code) {
    for (const std::size_t i : s.make) t.made(i, "g" + std::to_string(++next_code));
}

Tournament copy_of(const Tournament& t) {
    return Tournament(t.settings(), t.phase(), t.round(), t.entrants(), t.games(), t.byes());
}

}  // namespace

TEST_CASE("tournament: a Swiss of a dozen runs its rounds, late joiners and withdrawals too") {
    Settings set{.kind = Kind::Swiss, .starts_at = 1000, .rounds = 4, .round_gap_ms = 500};
    Tournament t(set);
    for (const auto& e : entrants(11)) CHECK(t.join(e.id, e.rating) == JoinRefusal::None);
    CHECK(t.step(999).make.empty());
    CHECK(t.phase() == Phase::Created);
    CHECK(t.next_due() == 1000);

    std::mt19937 rng(7);
    std::map<std::string, int> expected;  // half points, counted here from the results given
    int code = 0;
    std::int64_t now = 1000;
    for (int round = 1; round <= 4; ++round) {
        CAPTURE(round);
        if (round == 2) CHECK(t.join("late", 1800) == JoinRefusal::None);  // a twelfth
        if (round == 3) CHECK(t.withdraw("p11"));
        Steps s = t.step(now);
        CHECK(s.started == (round == 1));
        CHECK(s.round == round);
        const int active = round == 1 ? 11 : round == 2 ? 12 : 11;
        CHECK(int(s.make.size()) == active / 2);
        CHECK(s.bye.has_value() == (active % 2 == 1));
        if (s.bye) expected[*s.bye] += 2;
        make_all(t, s, code);
        CHECK(t.step(now).make.empty());  // nothing twice
        // Results, one by one; the round ends with the last one and the next waits the gap.
        for (const std::size_t i : s.make) {
            const TournamentGame g = t.games()[i];
            CHECK(g.round == round);
            if (round >= 3) CHECK((g.silver != "p11" && g.bronze != "p11"));
            const auto r = GameResult(rng() % 3);
            expected[g.silver] += half_points(r, Side::Silver);
            expected[g.bronze] += half_points(r, Side::Bronze);
            now += 100;
            CHECK(t.ended(g.code, r, 30, false, false, now));
            CHECK_FALSE(t.ended(g.code, r, 30, false, false, now));  // once only
        }
        if (round < 4) {
            CHECK(t.next_due() == now + 500);
            CHECK(t.step(now + 499).round == 0);
            now += 500;
        }
    }
    const Steps last = t.step(now + 500);
    CHECK(last.finished);
    CHECK(t.phase() == Phase::Finished);
    CHECK(t.join("more", 1500) == JoinRefusal::Over);
    const auto st = t.swiss_standings();
    CHECK(st.size() == 12);
    for (const auto& s : st) CHECK(s.score == expected[s.id]);
    // "late" missed round 1: three games at most, or two and a bye.
    for (const auto& s : st)
        if (s.id == "late") CHECK(s.played + s.byes == 3);
}

TEST_CASE("tournament: a Swiss with fewer than two players is cancelled") {
    Tournament t(Settings{.kind = Kind::Swiss, .starts_at = 10, .rounds = 3});
    t.join("a", 1500);
    CHECK(t.step(10).cancelled);
    CHECK(t.phase() == Phase::Cancelled);
    CHECK(t.join("b", 1500) == JoinRefusal::Over);
}

TEST_CASE("tournament: an arena pairs whoever is free, counts only games ended in time") {
    Settings set{.kind = Kind::Arena, .starts_at = 0, .length_ms = 60'000, .max_players = 5};
    Tournament t(set);
    for (const char* id : {"a", "b", "c", "d", "e"}) t.join(id, 1500);
    CHECK(t.join("f", 1500) == JoinRefusal::Full);
    int code = 0;
    Steps s = t.step(0);
    CHECK(s.started);
    REQUIRE(s.make.size() == 2);  // five players: one waits
    make_all(t, s, code);
    std::string waiting;
    for (const char* id : {"a", "b", "c", "d", "e"})
        if (!t.playing(id)) waiting = id;
    REQUIRE(!waiting.empty());
    CHECK(t.step(1000).make.empty());  // nobody free to meet the one waiting

    // The first game ends: its two players are free with the one waiting. Neither meets its
    // last opponent again: one of them meets the one waiting, the other waits.
    const TournamentGame g1 = t.games()[0];
    CHECK(t.ended(g1.code, GameResult::SilverWins, 20, false, false, 2000));
    s = t.step(2000);
    REQUIRE(s.make.size() == 1);
    make_all(t, s, code);
    const TournamentGame g3 = t.games()[s.make[0]];
    CHECK((g3.silver == waiting || g3.bronze == waiting));
    CHECK(!((g3.silver == g1.silver && g3.bronze == g1.bronze) ||
            (g3.silver == g1.bronze && g3.bronze == g1.silver)));
    CHECK(t.arena_standings()[0].id == g1.silver);
    CHECK(t.arena_standings()[0].points == 2);

    // A failover now: the new director rebuilds from the store's rows and does the same.
    Tournament again = copy_of(t);
    CHECK(again.step(2500).make.empty());
    CHECK(t.step(2500).make.empty());

    // The second game ends after the arena's end: it does not count; the arena finishes.
    const TournamentGame g2 = t.games()[1];
    const Steps end = t.step(60'000);
    CHECK(end.finished);
    CHECK(t.ended(g2.code, GameResult::BronzeWins, 20, false, false, 61'000));
    for (const auto& st : t.arena_standings())
        if (st.id == g2.bronze) CHECK(st.points == 0);
    CHECK(t.step(70'000).make.empty());
}

TEST_CASE("tournament: what was paired is never paired again by the next director") {
    Tournament t(Settings{.kind = Kind::Swiss, .starts_at = 0, .rounds = 2});
    for (const auto& e : entrants(4)) t.join(e.id, e.rating);
    const Steps s = t.step(0);
    REQUIRE(s.make.size() == 2);
    t.made(s.make[0], "g1");
    t.made(s.make[1], "g2");  // saved; the director may die before making the games
    Tournament next = copy_of(t);
    const Steps again = next.step(5);
    CHECK(again.round == 0);  // no new round, no new pairing: the service remakes g1, g2
    CHECK(again.make.empty());
    CHECK(next.games().size() == 2);
}

TEST_CASE("tournament: arena streaks follow the order games ended, not the order paired") {
    Tournament t(Settings{.kind = Kind::Arena, .starts_at = 0, .length_ms = 100'000});
    std::vector<TournamentGame> games{
        {.code = "g1", .silver = "a", .bronze = "b"},
        {.code = "g2", .silver = "a", .bronze = "c"},
        {.code = "g3", .silver = "a", .bronze = "d"},
    };
    Tournament r(t.settings(), Phase::Running, 0,
                 {{"a", 1500}, {"b", 1500}, {"c", 1500}, {"d", 1500}}, games, {});
    // g3 ends first as a draw, then a wins g1 and g2: no fire (the draw came first).
    CHECK(r.ended("g3", GameResult::Draw, 20, false, false, 10));
    CHECK(r.ended("g1", GameResult::SilverWins, 20, false, false, 20));
    CHECK(r.ended("g2", GameResult::SilverWins, 20, false, false, 30));
    CHECK(r.arena_standings()[0].points == 5);
}
