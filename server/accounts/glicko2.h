// Glicko-2 (M. E. Glickman, "Example of the Glicko-2 system", glicko.net/glicko/glicko2.pdf),
// lichess-flavoured: every game is its own rating period, applied at once; a player's
// deviation first grows with the time since their last rated game (fractional rating periods,
// 0.21436 a day: a deviation of 60 reaches 110 in about 160 days without games at volatility 0.09);
// deviation kept within 45..500, volatility at most 0.1, one game moves a rating at most 700
// points. New players start at 1500 / 500 / 0.09. Pure arithmetic: the stores call it inside the
// transaction that ends a rated game.
#pragma once

namespace tf::server::glicko2 {

struct Rating {
    double rating = 1500;
    double deviation = 500;
    double volatility = 0.09;
    friend bool operator==(const Rating&, const Rating&) = default;
};

struct Params {
    double tau = 0.75;
    double min_deviation = 45, max_deviation = 500;
    double max_volatility = 0.1;
    double max_delta = 700;
    double periods_per_day = 0.21436;
};

// One result of a rating period: the opponent as rated before it, and the score (1 win,
// 0.5 draw, 0 loss).
struct Game {
    Rating opponent;
    double score = 0;
};

// The rating after a period of `games` that began `periods` rating periods after the player's
// last one (Glickman's formulas with t = periods for the pre-period deviation; periods = 1 is
// the paper's plain rating period). No games: only the deviation grows. Unclamped.
Rating update_raw(const Rating& player, const Game* games, int n, double periods, double tau);

// One rated game under lichess's rules (clamps, maximum change): `days` since the player's last
// rated game (0 for a first game).
Rating rate(const Rating& player, const Rating& opponent, double score, double days,
            const Params& p = {});

// The deviation today of a rating last updated `days` ago (as a player page shows it).
double deviation_after(const Rating& r, double days, const Params& p = {});

}  // namespace tf::server::glicko2
