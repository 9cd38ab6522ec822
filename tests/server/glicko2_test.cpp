// Glicko-2 (server/accounts/glicko2.h): Glickman's worked example to the paper's digits, lichess's
// own test vector, and the properties a rating must have (it moves the right way, an upset moves it
// more, uncertainty grows with inactivity and shrinks with games, the clamps hold).
#include <doctest/doctest.h>

#include "server/accounts/glicko2.h"

namespace tf::server::glicko2 {
namespace {

TEST_CASE("glicko2: Glickman's example (1500/200/0.06 after three games, tau 0.5)") {
    const Rating player{1500, 200, 0.06};
    const Game games[] = {{{1400, 30, 0.06}, 1}, {{1550, 100, 0.06}, 0}, {{1700, 300, 0.06}, 0}};
    const Rating r = update_raw(player, games, 3, 1, 0.5);
    CHECK(r.rating == doctest::Approx(1464.06).epsilon(0.00001));
    CHECK(r.deviation == doctest::Approx(151.52).epsilon(0.0001));
    CHECK(r.volatility == doctest::Approx(0.05999).epsilon(0.0001));
}

TEST_CASE("glicko2: lichess's vector, two new players, one wins") {
    const Rating fresh;  // 1500 / 500 / 0.09
    const Rating w = rate(fresh, fresh, 1, 0);
    const Rating l = rate(fresh, fresh, 0, 0);
    CHECK(w.rating == doctest::Approx(1741).epsilon(0.001));
    CHECK(l.rating == doctest::Approx(1259).epsilon(0.001));
    CHECK(w.deviation == doctest::Approx(396).epsilon(0.003));
    CHECK(w.volatility == doctest::Approx(0.0899983).epsilon(0.0001));
    CHECK(w.rating - 1500 == doctest::Approx(1500 - l.rating));  // symmetric
}

TEST_CASE("glicko2: ratings move the right way, more for an upset") {
    const Rating a{1600, 80, 0.06}, b{1800, 80, 0.06};
    CHECK(rate(a, b, 1, 1).rating > a.rating);
    CHECK(rate(a, b, 0, 1).rating < a.rating);
    CHECK(rate(a, b, 0.5, 1).rating > a.rating);  // a draw with a stronger player gains
    CHECK(rate(b, a, 0.5, 1).rating < b.rating);
    const double upset = rate(a, b, 1, 1).rating - a.rating;
    const double expected_win = rate(b, a, 1, 1).rating - b.rating;
    CHECK(upset > expected_win);
    // An opponent with an uncertain rating says less.
    const Rating vague{1800, 350, 0.06};
    CHECK(rate(a, vague, 1, 1).rating - a.rating < upset);
}

TEST_CASE("glicko2: deviation grows with inactivity, shrinks with games, within the clamps") {
    const Rating r{1700, 60, 0.06};
    CHECK(deviation_after(r, 0) == doctest::Approx(60));
    CHECK(deviation_after(r, 30) > 60);
    CHECK(deviation_after(r, 365) > deviation_after(r, 30));
    CHECK(deviation_after(r, 365) == doctest::Approx(110).epsilon(0.15));  // lichess's figure
    CHECK(deviation_after(r, 1e9) == doctest::Approx(500));                // at most 500
    const Rating after = rate(r, {1700, 60, 0.06}, 1, 1);
    CHECK(after.deviation < 60);
    Rating settled{1700, 46, 0.04};
    for (int i = 0; i < 50; ++i) settled = rate(settled, {1700, 46, 0.04}, i % 2, 0.01);
    CHECK(settled.deviation >= 45);  // at least 45
    Rating wild{1500, 300, 0.2};
    CHECK(rate(wild, {1500, 300, 0.06}, 1, 1).volatility <= 0.1);
}

TEST_CASE("glicko2: one game moves a rating at most 700 points") {
    const Rating weak{800, 500, 0.09}, strong{2800, 45, 0.06};
    CHECK(rate(weak, strong, 1, 1).rating <= 800 + 700);
    CHECK(rate(weak, strong, 1, 1).rating > 800);
}

}  // namespace
}  // namespace tf::server::glicko2
