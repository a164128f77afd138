// The rating input of a network's human policy head (nn/network.h) and the model
// metadata that goes with it, apart from LibTorch so that the model header checks and
// the rating estimate need no network.
//
// A player's rating R reaches the head as kHumanRatingInputs numbers, the same in every
// cell of the ring (so the head adds a rating-dependent bias to each of its hidden
// channels before the ReLU):
//   [0]                      t = 2 (R - min) / (max - min) - 1, in -1..1: a straight line
//   [1 .. kHumanRatingKnots]  a piecewise-linear "hat" per knot, the knots evenly spread
//                            over min..max (the two hats around R share 1 between them),
//                            so the head can bend its answer between ratings where a
//                            single straight line could not (an embedding per rating
//                            region, interpolated, instead of a table of bins)
//   [last]                   1 for a titled over-the-board player (tournament records
//                            have no rating: a class of its own, given with R = max)
// A rating outside min..max is clamped to the range.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace kz {

inline constexpr int kHumanRatingKnots = 8;
inline constexpr int kHumanRatingInputs = 1 + kHumanRatingKnots + 1;

// What a model file says about its human head ("human" in its metadata).
struct HumanHeadInfo {
  int rating_min = 0;  // the range of ratings it was trained on (PlayOK points)
  int rating_max = 0;
  int rating_mean = 0;  // the mean rating of its training positions: the "blind" rating
  // The prior over players' ratings: how many rated sides of the train fold fell in each
  // kHumanPriorBinWidth-point bin from rating_min up (empty: none, models from before
  // it; the rating estimate is then the maximum-likelihood one).
  std::vector<int> rating_prior;
  // The rating-dependent value term (empty: none, models from before it): the human
  // policy at rating R is p(m | R) proportional to p_head(m | R) * exp(beta(R) * Q(m)),
  // where Q(m) is the model's own value head's evaluation of the position after move m
  // from the mover's view (win minus loss probability, -1..1) and beta(R) is these
  // kHumanRatingInputs weights dotted with human_rating_inputs(R) (human_value_beta).
  // Fitted by maximum likelihood on the train fold (fit_value_weights,
  // nn/human_training.h; docs/human.md).
  std::vector<float> value_weights;
  // The two-sided prior over the ratings of one game's two players (empty: none, models
  // from before it): how many train-fold games with both sides rated (neither titled)
  // had White in bin i and Black in bin j, the bins rating_prior's, flattened row by
  // row (entry i * bins + j; White/Black ordered as recorded). PlayOK pairs players of
  // similar ratings, so each side's moves also tell about the other's rating:
  // estimate_ratings_jointly uses it.
  std::vector<int> rating_pair_prior;
  // The search mixture (empty: none, models from before it): a player of rating R plays
  // the move of a search of search_mix_visits visits of the game's engine network with
  // probability lambda(R) and otherwise as the human policy (value term included) says:
  // p_mix(m | R) = (1 - lambda(R)) p(m | R) + lambda(R) [m = the search's move], where
  // lambda(R) = these kHumanRatingInputs weights dotted with human_rating_inputs(R),
  // clamped to 0..1 (human_search_mix). Fitted by maximum likelihood on the train fold
  // (fit_search_mix, nn/human_training.h; docs/human.md).
  std::vector<float> search_mix_weights;
  int search_mix_visits = 0;
  // The mixture the rating levels play with (empty: they play search_mix_weights). The
  // fitted lambda(R) is nearly flat from 1,400 to 1,800, so levels playing it are one
  // strength there, while PlayOK players 200 points apart are not (docs/levels.md). These
  // weights (same basis, same search) are calibrated on game results instead: lambda at
  // each knot chosen so that the level scores against the knot 200 below it what PlayOK
  // players 200 points apart score (tools/calibrate_rating_levels.py). Only the levels'
  // moves use them; the rating estimate and "most players at R play" keep the fit.
  std::vector<float> search_mix_play_weights;
  // The search filter the rating levels play with instead of the mixture (empty: none).
  // tau(R) = these weights dotted with human_rating_inputs(R), clamped to 0..1; the level
  // draws from the human policy with every move the search visits less than tau(R) times
  // its most visited move's share scaled by kHumanFilterFloor (human_play_filter_apply,
  // tools/human_level.h). The level's likeliest move stays the players' own unless the
  // search calls it poor, so a level is as strong as with the mixture and far more human
  // (docs/levels.md, "The search filter"). Calibrated on results like the play weights.
  std::vector<float> search_filter_play_weights;
  // Visits of the search the rating levels play with (the play weights' or the filter's),
  // where it differs from search_mix_visits (0: the same search). The levels were
  // calibrated on results with one search; a mixture refitted later with more visits (a
  // sharper rating estimate) keeps them playing the search they were calibrated with.
  int search_play_visits = 0;
  bool operator==(const HumanHeadInfo&) const = default;
};

inline constexpr int kHumanPriorBinWidth = 100;
// A value weight beyond this is no fit but a broken file: beta = 100 already turns a
// difference of 0.1 in Q into a factor e^10 between two moves.
inline constexpr float kHumanMaxValueWeight = 100.f;
// The most visits a search mixture may ask for: a rating level's move searches (or a
// hint's "most players at R play") and must stay within tens of milliseconds.
inline constexpr int kHumanMaxSearchMixVisits = 1024;

// The number of kHumanPriorBinWidth-point bins of `info`'s range (the last one may be cut).
int human_prior_bins(const HumanHeadInfo& info);

// "" when the range is usable (100 <= min < max <= 3500 and min <= mean <= max), the
// prior, if any, has one count >= 0 per bin of the range and not all of them 0, the pair
// prior, if any, one count >= 0 per pair of bins (bins x bins) and not all of them 0,
// the value weights, if any, are kHumanRatingInputs finite numbers of magnitude at most
// kHumanMaxValueWeight, and the search mixture, if any, kHumanRatingInputs finite
// weights of magnitude at most 1 and 1..kHumanMaxSearchMixVisits visits (its play
// weights and filter weights, if any, the same and only beside fitted ones, and its play
// visits 0 or 1..kHumanMaxSearchMixVisits beside play weights or a filter); else why not.
std::string human_head_problem(const HumanHeadInfo& info);

// The weight the search filter leaves on a move it filters out: small, so the level
// seldom plays it, and above 0, so a player's rare poor move keeps a likelihood.
inline constexpr float kHumanFilterFloor = 0.02f;

// The ratings at the knots of `info`'s rating inputs (the peaks of human_rating_inputs'
// hats), lowest first: where the fitted and played lambda are set and shown.
std::vector<int> human_rating_knots(const HumanHeadInfo& info);

// The head's inputs for rating R (clamped to the range) or a titled player.
std::array<float, kHumanRatingInputs> human_rating_inputs(const HumanHeadInfo& info, int rating,
                                                          bool titled = false);

// beta(R) of the value term: info.value_weights . human_rating_inputs(R) (0 without
// value weights).
double human_value_beta(const HumanHeadInfo& info, int rating, bool titled = false);

// lambda(R) of the search mixture: info.search_mix_weights . human_rating_inputs(R),
// clamped to 0..1 (0 without search mixture weights).
double human_search_mix(const HumanHeadInfo& info, int rating, bool titled = false);

// lambda(R) a rating level plays with: the calibrated search_mix_play_weights where the
// model has them, else human_search_mix.
double human_play_mix(const HumanHeadInfo& info, int rating);

// tau(R) of the levels' search filter (search_filter_play_weights), clamped to 0..1; 0
// without one.
double human_play_filter(const HumanHeadInfo& info, int rating);

// Visits of the search mixture's search: the rating levels' (`play`: search_play_visits
// where set) or the fit's (search_mix_visits), which hints and estimates use.
int human_search_visits(const HumanHeadInfo& info, bool play);

// The maximum-likelihood rating of a sequence of moves, from the log-likelihood of all
// of them at each rating of a grid (ascending): `rating` the grid's best point (refined
// by a parabola through it and its neighbours, kept inside the grid), and the 95 %
// profile interval: the ratings where the log-likelihood is within 1.92 (half the 95 %
// quantile of chi-square with one degree of freedom) of its maximum, linearly
// interpolated between grid points and cut at the grid's ends.
struct RatingEstimate {
  double rating = 0;
  double low = 0, high = 0;
  double loglik = 0;  // at the best grid point
};
RatingEstimate estimate_rating(const std::vector<int>& grid, const std::vector<double>& loglik);

// The prior's log-density at each rating of `grid` (up to a constant): the bin counts plus
// one half each (no rating is impossible), read as a density that is linear between the
// bins' centres and flat beyond the outer ones. Empty when `info` has no prior.
std::vector<double> rating_log_prior(const HumanHeadInfo& info, const std::vector<int>& grid);

// The Bayesian estimate from the same log-likelihoods and a log-prior over the grid
// (rating_log_prior): the posterior is prior x likelihood at the grid's points, each
// point's mass spread evenly over the half-way marks to its neighbours. `rating` is the
// posterior median (the estimate with the least expected absolute error), `low`/`high`
// its 2.5 % and 97.5 % quantiles (a 95 % credible interval), `loglik` the log-likelihood
// at the grid point of highest posterior. An empty `log_prior` gives estimate_rating's
// maximum-likelihood answer.
RatingEstimate estimate_rating_posterior(const std::vector<int>& grid,
                                         const std::vector<double>& loglik,
                                         const std::vector<double>& log_prior);

// Both sides' estimates of one game, White's first, from each side's log-likelihoods over
// `grid` (as estimate_rating_posterior), with the model's two-sided prior
// (HumanHeadInfo::rating_pair_prior): the posterior over the pairs (R_white, R_black) is
// prior(R_white, R_black) x likelihood_white(R_white) x likelihood_black(R_black) at
// the grid's points, and each side's estimate is its marginal's median and 2.5 % /
// 97.5 % quantiles (each point's mass spread as estimate_rating_posterior spreads it),
// `loglik` its own log-likelihood at the point of its marginal's highest mass. The
// prior's density at a pair of ratings:
//   - the counts are made symmetric ((C + C^T) / 2: who has White does not depend on the
//     ratings, and a game then counts in both of its cells' halves),
//   - smoothed by a Gaussian of kPairPriorSmoothingBins bins in each dimension (cut at 3
//     standard deviations and renormalised at the range's edges, so a border cell keeps
//     its scale),
//   - plus one half in every cell (no pair is impossible),
//   - read as a density bilinear between the bins' centres and flat beyond the outer
//     ones (rating_log_prior's reading, in two dimensions).
// Without a pair prior in `info`: each side's estimate_rating_posterior with the
// one-sided prior (rating_log_prior), as when the two are estimated apart.
inline constexpr double kPairPriorSmoothingBins = 1.0;
std::array<RatingEstimate, 2> estimate_ratings_jointly(const std::vector<int>& grid,
                                                       const std::vector<double>& loglik_white,
                                                       const std::vector<double>& loglik_black,
                                                       const HumanHeadInfo& info);

// The two-sided prior's log-density (up to a constant) at every pair of ratings of
// `grid`, as estimate_ratings_jointly reads it (symmetric, smoothed, + 1/2, bilinear):
// entry a * grid.size() + b for (R_a, R_b). Empty when `info` has no pair prior.
std::vector<double> rating_pair_log_density(const HumanHeadInfo& info,
                                            const std::vector<int>& grid);

// The ratings min, min + step, ..., max of a head's range (max always included).
std::vector<int> human_rating_grid(const HumanHeadInfo& info, int step);

}  // namespace kz

namespace kz {

// Spearman's rank correlation of two equally long series (ties get their mean rank);
// 0 when either has fewer than two distinct values.
double spearman_correlation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace kz
