#include "core/glicko2.h"

#include <algorithm>
#include <cmath>

namespace kz {

namespace {
constexpr double kScale = 173.7178;  // Glicko -> Glicko-2 scale (step 2)
constexpr double kPi = 3.14159265358979323846;
constexpr double kEpsilon = 0.000001;  // convergence tolerance of step 5
constexpr double kMaxDeviation = 350;

double g(double phi) {
  return 1.0 / std::sqrt(1.0 + 3.0 * phi * phi / (kPi * kPi));
}
double expected(double mu, double mu_j, double phi_j) {
  return 1.0 / (1.0 + std::exp(-g(phi_j) * (mu - mu_j)));
}
}  // namespace

double glicko2_expected_score(double rating, double opponent_rating, double opponent_deviation) {
  return expected((rating - 1500.0) / kScale, (opponent_rating - 1500.0) / kScale,
                  opponent_deviation / kScale);
}

Glicko2Rating glicko2_update(const Glicko2Rating& player, const std::vector<Glicko2Game>& games,
                             double tau) {
  // Step 2: to the Glicko-2 scale.
  const double mu = (player.rating - 1500.0) / kScale;
  const double phi = player.deviation / kScale;
  const double sigma = player.volatility;
  Glicko2Rating out = player;
  if (games.empty()) {
    // Step 6 only: the deviation grows with the volatility.
    out.deviation = std::min(kMaxDeviation, std::sqrt(phi * phi + sigma * sigma) * kScale);
    return out;
  }
  // Steps 3 and 4: the estimated variance v and the improvement delta.
  double v_inv = 0, delta_sum = 0;
  for (const Glicko2Game& game : games) {
    const double mu_j = (game.opponent_rating - 1500.0) / kScale;
    const double phi_j = game.opponent_deviation / kScale;
    const double e = expected(mu, mu_j, phi_j);
    v_inv += g(phi_j) * g(phi_j) * e * (1 - e);
    delta_sum += g(phi_j) * (game.score - e);
  }
  const double v = 1.0 / v_inv;
  const double delta = v * delta_sum;
  // Step 5: the new volatility, the root of f by the Illinois algorithm.
  const double a = std::log(sigma * sigma);
  auto f = [&](double x) {
    const double ex = std::exp(x);
    const double d = phi * phi + v + ex;
    return ex * (delta * delta - phi * phi - v - ex) / (2 * d * d) - (x - a) / (tau * tau);
  };
  double A = a, B = 0;
  if (delta * delta > phi * phi + v) {
    B = std::log(delta * delta - phi * phi - v);
  } else {
    int k = 1;
    while (f(a - k * tau) < 0) ++k;
    B = a - k * tau;
  }
  double fA = f(A), fB = f(B);
  for (int iteration = 0; std::fabs(B - A) > kEpsilon && iteration < 200; ++iteration) {
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
  const double sigma_new = std::exp(A / 2);
  // Steps 6-8: the new deviation and rating, back on the Glicko scale.
  const double phi_star = std::sqrt(phi * phi + sigma_new * sigma_new);
  const double phi_new = 1.0 / std::sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
  const double mu_new = mu + phi_new * phi_new * delta_sum;
  out.rating = kScale * mu_new + 1500.0;
  out.deviation = std::min(kMaxDeviation, kScale * phi_new);
  out.volatility = sigma_new;
  return out;
}

}  // namespace kz
