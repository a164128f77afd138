// The options of `kumalak human-train` (tools/cmd_human_train.cpp), each declared here
// once with its help text and its check, so that the command's file keeps what it does
// with them. The struct is plain text and numbers; train/human_head_setup.h,
// train/human_fits.h and nn/human_training.h are what they configure.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace kz::cli {

// What `kumalak human-train` was asked for, as its options give it.
struct HumanTrainCliOptions {
  std::string game = "togyz";      // --game
  std::vector<std::string> files;  // PGN files of rated games
  std::string init;                // --init: the model to start from (empty: the shipped one)
  std::string out;                 // --out: the model written after every epoch
  int epochs = 3;                  // --epochs: passes over the train fold (0: no training)
  int batch = 256;                 // --batch: positions per optimizer step
  double learning_rate = 1e-3;     // --lr: Adam's learning rate at the start
  int threads = 1;                 // --threads: LibTorch threads
  uint64_t seed = 1;               // --seed: the order of the training positions
  bool titled = true;              // titled players' moves are read (--no-titled: not)
  // --held-out J/K: the games held out (the validation fold) are the J-th of K slices;
  // the default is the shipped split (core/rated_games.h, HeldOut).
  std::string held_out = "0/10";
  bool fine_tune = false;           // --fine-tune: the whole network, not the head alone
  bool rating_temperature = false;  // --rating-temperature: the rating sets the temperature
  int64_t positions_per_epoch = 0;  // --positions-per-epoch (0: all of the train fold)
  // Fit the rating-dependent value term's weights (HumanHeadInfo::value_weights) on the
  // train fold after training (or, with --epochs 0, on the --init model as it is).
  bool fit_value_weights = false;
  // Write the two-sided prior over a game's two ratings (HumanHeadInfo::rating_pair_prior).
  bool pair_prior = true;
  // Fit the search mixture (HumanHeadInfo::search_mix_weights) with a search of this many
  // visits of the engine's network (0: no).
  int64_t search_mix_visits = 0;
  int search_every = 5;      // the fit reads every K-th train position
  std::string engine_model;  // the searched network (empty: the game's shipped model)
  // The rating levels' calibrated lambda at knots, "1400:0.2,1600:0.35"
  // (HumanHeadInfo::search_mix_play_weights); knots not named keep their value.
  std::string play_mix;
  // The levels' search filter's tau at knots, "1400:0.1,1600:0.3"
  // (HumanHeadInfo::search_filter_play_weights); where set, the levels play it instead of
  // the mixture.
  std::string play_filter;
};

// Declares every option of `kumalak human-train` on `cmd`, each filling its field of `opt`
// (which must outlive the parsing).
//   cmd: the human-train subcommand
//   opt: the options it fills
void add_human_train_options(CLI::App* cmd, HumanTrainCliOptions& opt);

}  // namespace kz::cli
