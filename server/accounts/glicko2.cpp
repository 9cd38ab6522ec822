#include "server/accounts/glicko2.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tf::server::glicko2 {

namespace {

constexpr double kScale = 173.7178;  // Glicko to Glicko-2 (step 2)
constexpr double kEpsilon = 1e-6;    // convergence of the volatility iteration (step 5)

double g(double phi) {
    return 1 / std::sqrt(1 + 3 * phi * phi / (std::numbers::pi * std::numbers::pi));
}
double expected(double mu, double mu_j, double phi_j) {
    return 1 / (1 + std::exp(-g(phi_j) * (mu - mu_j)));
}

// Step 5: the new volatility, by the Illinois algorithm.
double new_volatility(double phi, double sigma, double delta, double v, double tau) {
    const double a = std::log(sigma * sigma);
    auto f = [&](double x) {
        const double ex = std::exp(x);
        const double d = phi * phi + v + ex;
        return ex * (delta * delta - phi * phi - v - ex) / (2 * d * d) - (x - a) / (tau * tau);
    };
    double A = a, B;
    if (delta * delta > phi * phi + v) {
        B = std::log(delta * delta - phi * phi - v);
    } else {
        int k = 1;
        while (f(a - k * tau) < 0 && k < 1000) ++k;
        B = a - k * tau;
    }
    double fA = f(A), fB = f(B);
    for (int i = 0; i < 1000 && std::abs(B - A) > kEpsilon; ++i) {
        const double C = A + (A - B) * fA / (fB - fA);
        const double fC = f(C);
        if (fC * fB <= 0) {
            A = B;
            fA = fB;
        } else {
            fA /= 2;
        }
        B = C;
        fB = fC;
    }
    return std::exp(A / 2);
}

}  // namespace

Rating update_raw(const Rating& player, const Game* games, int n, double periods, double tau) {
    const double mu = (player.rating - 1500) / kScale;
    const double phi = player.deviation / kScale;
    const double sigma = player.volatility;
    if (n == 0) {
        const double phi_star = std::sqrt(phi * phi + periods * sigma * sigma);
        return {player.rating, phi_star * kScale, sigma};
    }
    double v_inv = 0, sum = 0;
    for (int i = 0; i < n; ++i) {
        const double mu_j = (games[i].opponent.rating - 1500) / kScale;
        const double phi_j = games[i].opponent.deviation / kScale;
        const double e = expected(mu, mu_j, phi_j);
        v_inv += g(phi_j) * g(phi_j) * e * (1 - e);
        sum += g(phi_j) * (games[i].score - e);
    }
    const double v = 1 / v_inv;
    const double delta = v * sum;
    const double sigma2 = new_volatility(phi, sigma, delta, v, tau);
    const double phi_star = std::sqrt(phi * phi + periods * sigma2 * sigma2);
    const double phi2 = 1 / std::sqrt(1 / (phi_star * phi_star) + 1 / v);
    const double mu2 = mu + phi2 * phi2 * sum;
    return {1500 + kScale * mu2, kScale * phi2, sigma2};
}

Rating rate(const Rating& player, const Rating& opponent, double score, double days,
            const Params& p) {
    // lichess counts a game as a fraction of a rating period by the time since the player's
    // last one, at least a tiny one (two games in a row still inflate nothing noticeably).
    const double periods = std::max(days * p.periods_per_day, 1e-6);
    Game game{opponent, score};
    Rating r = update_raw(player, &game, 1, periods, p.tau);
    r.deviation = std::clamp(r.deviation, p.min_deviation, p.max_deviation);
    r.volatility = std::min(r.volatility, p.max_volatility);
    r.rating = std::clamp(r.rating, player.rating - p.max_delta, player.rating + p.max_delta);
    return r;
}

double deviation_after(const Rating& r, double days, const Params& p) {
    const double phi = r.deviation / kScale;
    const double t = std::max(days, 0.0) * p.periods_per_day;
    return std::clamp(std::sqrt(phi * phi + t * r.volatility * r.volatility) * kScale,
                      p.min_deviation, p.max_deviation);
}

}  // namespace tf::server::glicko2
