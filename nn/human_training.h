// Training a model's human policy head (nn/network.h, nn/human_rating.h) on the moves of
// rated games: the data (one sample per move of a rated or titled player, in one fold
// of the held-out split, core/rated_games.h), the training loop (policy cross-entropy
// over the legal moves, the head alone on the tower's output or the whole network) and the fit
// measured at each player's own rating. `kumalak human-train` (tools/cmd_human_train.cpp) runs it
// with a progress line; docs/human.md has the choices and the figures.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/human_games.h"
#include "core/notation.h"
#include "core/rated_games.h"
#include "nn/human_policy.h"
#include "nn/model_file.h"

namespace kz {

// The prior of the rating estimate (HumanHeadInfo::rating_prior): the rated (not titled)
// sides per kHumanPriorBinWidth-point bin of `info`'s range, a side outside it counted
// in the nearest bin. Each side counts once, however many moves it made.
std::vector<int> rating_prior_counts(const std::vector<HumanSide>& sides,
                                     const HumanHeadInfo& info);

// The two-sided prior (HumanHeadInfo::rating_pair_prior): the games whose two sides are
// both rated (neither titled, neither missing) per pair of kHumanPriorBinWidth-point
// bins, White's bin x Black's, flattened row by row; a rating outside the range counted
// in the nearest bin, as rating_prior_counts.
std::vector<int> rating_pair_prior_counts(const std::vector<HumanSide>& sides,
                                          const HumanHeadInfo& info);

struct HumanTrainOptions {
  int epochs = 3;               // passes over the training samples
  int batch = 256;              // samples per optimizer step
  double learning_rate = 1e-3;  // Adam's, decayed along a cosine to a tenth at the end
  double weight_decay = 1e-4;   // L2 on every weight
  uint64_t seed = 1;            // the order of the samples
  // Samples per epoch: the first this many of the epoch's shuffled order (0 = all), so
  // that a slow pass (the whole network on a shared machine) fits a time box while
  // still seeing other samples every epoch.
  int64_t positions_per_epoch = 0;
  // Train the human head alone on the tower's output, computed once (every other weight
  // stays as it is: the model's own policy and value are untouched); false: fine-tune
  // the whole network.
  bool head_only = true;
  // Called after every optimizer step with the epoch (1-based), the samples done in it
  // and their mean loss so far (for a progress line); with head_only, first with epoch 0
  // while the tower's output is computed (loss 0).
  std::function<void(int, int64_t, double)> after_batch;
  // Called after every epoch with the epoch (1-based) and the model in eval mode.
  std::function<void(int, Model&)> after_epoch;
};

// Fine-tunes `model` (which must have a human head) on `samples`.
void train_human_policy(Model& model, const std::vector<HumanSample>& samples,
                        const HumanTrainOptions& options);

// How well the human head predicts `samples` at each player's own rating: the share of
// samples where the move is its most probable (ties: the lowest pit) and the mean log
// probability of the move.
struct HumanFit {
  int64_t positions = 0;
  double top1 = 0, loglik = 0;
};
HumanFit human_fit(HumanPolicy& policy, const std::vector<HumanSample>& samples);

// The value term's weights (HumanHeadInfo::value_weights) fitted to `samples` by
// maximum likelihood: with the head's log-probabilities at each player's own rating and
// Q (HumanPolicy::move_values) computed once, the mean log-likelihood of the played moves
// under p(m) proportional to p_head(m) * exp(beta(R) * Q(m)), beta(R) = w . rating inputs,
// is maximised over w by Newton's method (it is concave in w), with an L2 penalty of
// `l2` x (number of samples) on w: the rating inputs are linearly dependent (the straight
// line is a sum of hats), and the penalty picks the smallest of the equally good w.
// `policy`'s own value weights, if any, are ignored (the head alone is the base).
struct ValueWeightsFit {
  std::vector<float> weights;
  double loglik_before = 0;  // mean over the samples, the head alone
  double loglik_after = 0;   // with the fitted term
  int iterations = 0;
  int64_t positions = 0;
};
ValueWeightsFit fit_value_weights(HumanPolicy& policy, const std::vector<HumanSample>& samples,
                                  double l2 = 1e-6);

// The search mixture (HumanHeadInfo::search_mix_weights): a player of rating R plays
// the search's answer with probability lambda(R) and otherwise as the human policy
// says, p_mix(m | R) = (1 - lambda(R)) p(m | R) + lambda(R) s(m), s the search's
// distribution over the moves. One sample: the probability the human policy (value term
// included) and the search each gave the move played, and who played it.
struct SearchMixSample {
  double policy = 0;  // p(move | R)
  double search = 0;  // s(move)
  int rating = 0;
  bool titled = false;
};
// lambda(R) fitted by maximum likelihood: lambda(R) = sum over the knots of hat_k(R)
// theta_k (titled players: theta_titled), each theta in [0, kMaxSearchMix], so lambda
// is piecewise linear between the head's knots and always a probability; the mean
// log-likelihood of the played moves is concave in theta and is maximised one theta at
// a time (bisection on its derivative) until no theta moves by 1e-6. `weights` are the
// thetas in the basis of the rating inputs (human_search_mix dots them with
// human_rating_inputs): 0 for the straight line, theta_k for hat k, and theta_titled -
// theta_last for the titled flag (a titled player's inputs are the last hat and the flag).
inline constexpr double kMaxSearchMix = 0.999;
struct SearchMixFit {
  std::vector<float> weights;
  std::vector<double> knot_samples;  // the hat weights summed per knot, then titled
  double loglik_before = 0;          // mean over the samples, lambda = 0
  double loglik_after = 0;
  int sweeps = 0;
  int64_t positions = 0;
};
SearchMixFit fit_search_mix(const HumanHeadInfo& info, const std::vector<SearchMixSample>& samples);

// How well a model's own value head predicts the results of the games of `samples`
// (each side's score, HumanSide::score; sides without a result are left out): the mean
// squared error of the expected score (win + draw / 2, the mover's view) of the
// position before each move (Brier score: 0.25 for always saying 50 %), and the share
// of the decisive games' positions whose expected score is on the winner's side of 0.5.
// Which network's value the value term can trust (docs/human.md).
struct ValueAccuracy {
  int64_t positions = 0, decisive = 0;
  double brier = 0, right = 0;
};
ValueAccuracy value_accuracy(Model& model, const std::vector<HumanSample>& samples,
                             const std::vector<HumanSide>& sides);

}  // namespace kz
