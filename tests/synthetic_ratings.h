// Synthetic rated players for the tests of the rating estimates (nn/human_rating.h's
// joint estimate, nn/player_rating.h's over many games): rating priors drawn from made-up
// games and move choices that depend on a known rating. LibTorch-free, so that both the
// infer_ and the nn_ tests use them.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "nn/human_rating.h"

namespace kz::test {

// `info` with its one- and two-sided rating priors counted from 4,000 made-up games: PlayOK
// pairs players of similar ratings, 1,000..1,999 here, the two ratings of a game at most
// 150 apart.
inline HumanHeadInfo with_paired_rating_priors(HumanHeadInfo info) {
  const size_t bins = size_t(human_prior_bins(info));
  info.rating_prior.assign(bins, 0);
  info.rating_pair_prior.assign(bins * bins, 0);
  std::mt19937_64 rng(5);
  for (int game = 0; game < 4000; ++game) {
    const int white = std::uniform_int_distribution<int>(1000, 1999)(rng);
    const int black =
        std::clamp(white + std::uniform_int_distribution<int>(-150, 150)(rng), 1000, 1999);
    const size_t w = size_t((white - info.rating_min) / kHumanPriorBinWidth);
    const size_t b = size_t((black - info.rating_min) / kHumanPriorBinWidth);
    ++info.rating_prior[w];
    ++info.rating_prior[b];
    ++info.rating_pair_prior[w * bins + b];
  }
  return info;
}

// The summed log-likelihood over `grid` of `moves` moves of a player rated `truth` who
// plays "the best move" with a probability rising with the rating, else one of two others.
inline std::vector<double> synthetic_loglik(const std::vector<int>& grid, int truth, int moves,
                                            std::mt19937_64& rng) {
  auto p_best = [](double r) { return 1 / (1 + std::exp(-(r - 1500) / 300)); };
  std::vector<double> ll(grid.size(), 0.0);
  for (int move = 0; move < moves; ++move) {
    const bool best = std::uniform_real_distribution<double>(0, 1)(rng) < p_best(truth);
    for (size_t g = 0; g < grid.size(); ++g) {
      const double p = p_best(grid[g]);
      ll[g] += std::log(best ? p : (1 - p) / 2);
    }
  }
  return ll;
}

}  // namespace kz::test
