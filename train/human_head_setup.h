// What `kumalak human-train` (tools/cmd_human_train.cpp) does to a model before and around
// the training, apart from its options and printing: the human head's rating range from
// the train fold, the head put on the model with the rating estimate's priors, the terms
// an --init model's head had fitted that training makes stale, and the progress line of
// the training's epochs (train/progress.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/human_games.h"
#include "nn/model_file.h"
#include "train/progress.h"

namespace kz {

// The head's rating range for `samples`: their ratings (titled players aside) widened to
// whole bins of kRatingBinWidth, and their mean. None when no sample is of a rated player.
std::optional<HumanHeadInfo> human_head_range(const std::vector<HumanSample>& samples);

// What putting the head on a model wrote.
struct HumanHeadSetup {
  HumanHeadInfo info;            // the head's range, mean and priors
  int64_t paired_games = 0;      // train games with both sides rated
  int64_t titled_positions = 0;  // train positions of titled players
};

// Gives `model` its human head for the train fold: `range`'s, or where the model already
// has a head (an --init human model) its own range, for which the head's weights were
// trained; the rating prior of `train`'s sides; with `pair_prior` the two-sided prior
// (none when no game has two rated sides: an all-zero one would be refused on loading);
// and with `rating_temperature` the rating's temperature.
//   model: the model to change
//   train: the train fold
//   range: human_head_range's of the train fold
//   pair_prior: write the two-sided prior
//   rating_temperature: let the rating set the head's temperature too
HumanHeadSetup set_up_human_head(Model& model, const HumanData& train, const HumanHeadInfo& range,
                                 bool pair_prior, bool rating_temperature);

// What training drops from an --init model's head because it was fitted to the head's
// answers before the training.
struct StaleHumanTerms {
  bool search_mix = false;     // the search mixture, with all that was fitted on it
  bool value_weights = false;  // the rating-dependent value term's weights
};

// Drops those terms of `info` and says which it dropped.
StaleHumanTerms drop_stale_human_terms(HumanHeadInfo& info);

// The progress line of the human head's training (HumanTrainOptions::after_batch): a line
// an epoch, "human-train epoch E/N" with its loss so far, and "human-train: the tower's
// output" while that is computed (epoch 0).
class HumanTrainProgress {
 public:
  //   epochs: the training's epochs
  //   positions: the train fold's positions
  //   positions_per_epoch: an epoch's draw (0: all of them)
  //   options: the line's options (its unit is set to "positions")
  HumanTrainProgress(int epochs, int64_t positions, int64_t positions_per_epoch,
                     Progress::Options options);
  // After a batch: `done` positions of `epoch` so far at a mean loss of `loss`.
  void after_batch(int epoch, int64_t done, double loss);
  // The epoch's last line, once it is over.
  void finish_epoch();

 private:
  int epochs_;
  int64_t positions_, positions_per_epoch_;
  Progress::Options options_;
  std::unique_ptr<Progress> progress_;
  int epoch_ = -1;
};

}  // namespace kz
