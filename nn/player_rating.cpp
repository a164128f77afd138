#include "nn/player_rating.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kz {

namespace {

// log(sum of exp(v)) without overflow.
double log_sum_exp(std::span<const double> v) {
  const double top = *std::max_element(v.begin(), v.end());
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (double x : v) sum += std::exp(x - top);
  return top + std::log(sum);
}

}  // namespace

PlayerRatingEstimate estimate_player_rating(const std::vector<int>& grid,
                                            std::span<const GameRatingEvidence> games,
                                            const HumanHeadInfo& info,
                                            const PlayerRatingOptions& options) {
  const size_t n = grid.size();
  if (n == 0) throw std::invalid_argument("estimate_player_rating: empty rating grid");
  const double scale = options.likelihood_scale;
  if (!(scale > 0 && scale <= 1))
    throw std::invalid_argument("estimate_player_rating: likelihood scale outside (0, 1]");
  for (const GameRatingEvidence& g : games)
    if ((!g.player.empty() && g.player.size() != n) ||
        (!g.opponent.empty() && g.opponent.size() != n))
      throw std::invalid_argument("estimate_player_rating: grid and log-likelihoods differ");

  // log P(R' | R) for every pair of the grid: the pair density normalised over R'.
  std::vector<double> log_pairing;
  if (options.opponents) log_pairing = rating_pair_log_density(info, grid);
  if (!log_pairing.empty())
    for (size_t a = 0; a < n; ++a) {
      const std::span<double> row(log_pairing.data() + a * n, n);
      const double norm = log_sum_exp(row);
      for (double& v : row) v -= norm;
    }

  std::vector<double> own(n, 0.0), evidence(n, 0.0), column(n);
  PlayerRatingEstimate out;
  for (const GameRatingEvidence& g : games) {
    const bool opponent = !g.opponent.empty() && !log_pairing.empty();
    if (g.player.empty() && !opponent) continue;
    ++out.games;
    for (size_t a = 0; a < n; ++a) {
      if (!g.player.empty()) {
        own[a] += g.player[a];
        evidence[a] += scale * g.player[a];
      }
      if (opponent) {
        for (size_t b = 0; b < n; ++b) column[b] = log_pairing[a * n + b] + scale * g.opponent[b];
        evidence[a] += log_sum_exp(column);
      }
    }
  }
  std::vector<double> log_prior = rating_log_prior(info, grid);
  if (log_prior.empty()) log_prior.assign(n, 0.0);  // flat: estimate_rating_posterior's input
  out.estimate = estimate_rating_posterior(grid, evidence, log_prior);
  size_t best = 0;
  for (size_t a = 1; a < n; ++a)
    if (evidence[a] + log_prior[a] > evidence[best] + log_prior[best]) best = a;
  out.estimate.loglik = own[best];
  return out;
}

double mean_of_game_estimates(std::span<const RatingEstimate> estimates, bool weight_by_interval) {
  double sum = 0, weight = 0;
  for (const RatingEstimate& e : estimates) {
    // A zero-width interval (a one-point grid) would take all the weight: floor it at a
    // point's width.
    const double width = std::max(e.high - e.low, 1.0);
    const double w = weight_by_interval ? 1.0 / (width * width) : 1.0;
    sum += w * e.rating;
    weight += w;
  }
  return weight > 0 ? sum / weight : 0.0;
}

}  // namespace kz
