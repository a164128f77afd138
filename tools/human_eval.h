// What `kumalak human-eval` measures, apart from its options and its printing: how well
// an engine's network predicts the moves of rated players per 100-point rating bin, and
// with a human model (a network with a human policy head) how well that head predicts
// them at the player's own rating ("human") and at its one mean rating ("blind"), and how
// close the rating it estimates from a side's moves comes to the side's recorded rating.
// tools/cmd_human_eval.cpp describes the measures; docs/human.md has the figures.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "core/human_games.h"
#include "mcts/evaluator.h"
#include "nn/human_head.h"
#include "nn/human_rating.h"

namespace kz {

// Sides with at least this many moves get their rating estimated and compared.
inline constexpr int kMinEstimateMoves = 40;

// One 100-point rating bin's counts (rating_bin_from of the mover's rating): sums over
// its positions, to be divided by `positions` (the searched ones by search_positions).
struct HumanEvalBin {
  int64_t positions = 0, policy_top1 = 0;
  double policy_loglik = 0;  // sum over positions
  int64_t search_positions = 0, search_top1 = 0;
  int64_t human_top1 = 0, blind_top1 = 0;
  double human_loglik = 0, blind_loglik = 0;  // sums over positions
};

// How one kind of rating estimate compares with the recorded ratings over the sides:
// mean absolute error, rank correlation, `coverage` the share of sides whose recorded
// rating lies in the estimate's 95 % interval, `width` the interval's mean width.
struct EstimateErrors {
  std::vector<double> estimated;  // one per side, in the order added
  double mae = 0, spearman = 0, coverage = 0, width = 0;
  void add(const RatingEstimate& e, int rating) {
    estimated.push_back(e.rating);
    mae += std::abs(e.rating - rating);
    coverage += e.low <= rating && rating <= e.high;
    width += e.high - e.low;
  }
  // The sums made means, and the correlation with `recorded` (as many, the same order).
  void finish(const std::vector<double>& recorded) {
    const double n = double(recorded.size());
    mae /= n;
    coverage /= n;
    width /= n;
    spearman = spearman_correlation(recorded, estimated);
  }
};

// How the rating estimates of the sides with enough moves compare with their ratings:
// the model's own (with the two-sided prior where the model has it and both sides are
// rated, else the posterior with the one-sided prior where it has one, else the maximum
// likelihood), and beside it the one-sided ("single": each side's moves alone, with the
// one-sided prior where there is one) and the maximum-likelihood ones.
struct EstimateSummary {
  int64_t sides = 0, joint_sides = 0;
  bool posterior = false, pair_prior = false;
  double baseline_mae = 0;  // predicting the model's mean rating for every side
  EstimateErrors model, single, ml;
};

// What to measure beside the network's raw policy.
struct HumanEvalSettings {
  int64_t search_visits = 0;  // also search positions with this many MCTS visits (0: none)
  int64_t every = 1;          // search only every this-th position (1: all)
  // The human and blind columns as the levels play (the calibrated lambda,
  // search_mix_play_weights, or the search filter, search_filter_play_weights) instead of
  // the fitted lambda: how human the levels' moves are.
  bool as_played = false;
};

struct HumanEvalResult {
  std::map<int, HumanEvalBin> bins;  // by the bin's lowest rating
  EstimateSummary estimates;         // with a human head only
};

// Measures the rated players' moves of `data` (read without titled players).
//   spec: the game of `data`
//   data: the samples (read_human_data); must hold at least one
//   evaluator: the engine's network: its raw policy, and its search with
//              settings.search_visits
//   human: the human head (null: no human columns and no rating estimate)
//   settings: as above
// Reports its passes over the positions on stderr (train/progress.h). Throws ParseError
// when the human head's search mixture has no engine network (human_level_search).
HumanEvalResult measure_human_eval(const GameSpec& spec, const HumanData& data,
                                   std::shared_ptr<Evaluator> evaluator, const HumanHead* human,
                                   const HumanEvalSettings& settings);

}  // namespace kz
