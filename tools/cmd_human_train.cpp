// kumalak human-train: a human policy head (nn/network.h, nn/human_rating.h) trained on
// the moves of rated games of the TRAIN fold (core/rated_games.h), starting from a
// model's own policy (the head alone by default, or the whole network), measured on the validation
// fold after every epoch and saved (atomically) after every epoch. train/human_training.h has the
// loop; docs/human.md the choices and figures.
#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "core/notation.h"
#include "core/rated_games.h"
#include "nn/human_policy.h"
#include "nn/human_training.h"
#include "nn/model_evaluator.h"
#include "nn/model_file.h"
#include "nn/search_mixture.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/human_level.h"
#include "tools/human_play_knots.h"
#include "train/human_fit_lines.h"
#include "train/human_fits.h"
#include "train/human_head_setup.h"
#include "train/progress.h"

namespace kz::cli {

namespace {

struct HumanTrainCliOptions {
  std::string game = "togyz";
  std::vector<std::string> files;
  std::string init;  // empty: the game's shipped model
  std::string out;
  int epochs = 3;
  int batch = 256;
  double learning_rate = 1e-3;
  int threads = 1;
  uint64_t seed = 1;
  bool titled = true;
  bool fine_tune = false;
  bool rating_temperature = false;
  int64_t positions_per_epoch = 0;
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

// A line on stderr, after the command's name.
void say(const std::string& line) {
  std::cerr << "kumalak human-train: " << line << "\n";
}

// Fits the value weights of `model` on `train` and reports the validation fit with them.
void fit_value_term(Model& model, const HumanData& train, const HumanData& validation,
                    const GameSpec& spec) {
  // A search mixture was fitted on top of the old term: it goes with it.
  if (!model.meta.human.search_mix_weights.empty()) {
    drop_search_mix(model.meta.human);
    say("the --init model's search mixture is dropped (fitted on top of the value term "
        "fitted again now)");
  }
  // Which value the term can trust: the human model's own head against the shipped
  // model's, on the validation games' results.
  model.meta.human.value_weights.clear();
  say(value_heads_line(compare_value_heads(model, validation, spec)));
  say(value_fit_line(fit_value_term(model, train)));
  // The value term's beta(R) at these ratings, for the log and docs/human.md.
  say(value_beta_line(model.meta.human));
}

// One of the search mixtures fitted (best move or visit shares) and its validation bins.
void print_search_mix(const SearchMixReport& report, bool shares, int64_t visits) {
  const SearchMixLines lines = search_mix_lines(report, shares, visits);
  say(lines.fit);
  say(lines.header);
  for (const std::string& bin : lines.bins) std::cerr << bin << "\n";
}

// Fits the search mixture on every K-th train position and measures the validation
// fold (every position) per 100-point bin with and without it, for both of the search's
// answers (its best move alone, its visit shares).
void fit_search_term(Model& model, const HumanData& train, const HumanData& validation,
                     const GameSpec& spec, const HumanTrainCliOptions& opt) {
  const std::string engine_path =
      opt.engine_model.empty() ? shipped_model_path(spec) : opt.engine_model;
  if (engine_path.empty()) throw std::runtime_error("no engine model to search with");
  const SearchMixFits fits = fit_search_mixtures(model, train, validation, spec, engine_path,
                                                 opt.search_mix_visits, opt.search_every);
  print_search_mix(fits.best_move, false, opt.search_mix_visits);
  print_search_mix(fits.shares, true, opt.search_mix_visits);
}

// --play-mix, --play-filter: sets what the levels play in `model` and writes it to --out;
// false (said on stderr) when an option is malformed or the model has no mixture.
bool write_play_knots(Model& model, const HumanTrainCliOptions& opt) {
  for (const auto& [spec, kind] :
       {std::pair{&opt.play_mix, &kPlayMix}, std::pair{&opt.play_filter, &kPlayFilter}}) {
    if (spec->empty()) continue;
    try {
      set_play_knots(model.meta.human, *spec, *kind);
    } catch (const ParseError& e) {
      print_command_error("kumalak human-train", e);
      return false;
    }
    say(play_knots_line(model.meta.human, *kind));
  }
  if (!model.meta.human.search_filter_play_weights.empty())
    say("the levels play the search filter (its tau), not the mixture");
  save_model(opt.out, model);
  say("wrote " + opt.out + " (no training: --epochs 0)");
  return true;
}

// The validation fold's fit of `model`'s head, on stderr after `when`.
void report(const std::string& when, Model& model, const HumanData& validation) {
  HumanPolicy policy(model);
  say(validation_fit_line(when, human_fit(policy, validation.samples)));
}

// --epochs 0: only the prior of the rating estimate (nn/human_rating.h) written into the
// model, with --fit-value-weights the value term fitted to the head as it is, with
// --fit-search-mix the search mixture, and with --play-mix or --play-filter what the
// levels play. Returns the exit status.
int write_untrained(Model& model, const HumanData& train, const HumanData& validation,
                    const GameSpec& spec, const HumanTrainCliOptions& opt) {
  if (opt.fit_value_weights) {
    try {
      fit_value_term(model, train, validation, spec);
    } catch (const std::exception& e) {
      print_command_error("kumalak human-train", e);
      return 1;
    }
    report("with the value term", model, validation);
  }
  if (opt.search_mix_visits > 0) {
    try {
      fit_search_term(model, train, validation, spec, opt);
    } catch (const std::exception& e) {
      print_command_error("kumalak human-train", e);
      return 1;
    }
  }
  if (!opt.play_mix.empty() || !opt.play_filter.empty())
    return write_play_knots(model, opt) ? 0 : 2;
  save_model(opt.out, model);
  say("wrote " + opt.out + " (no training: --epochs 0)");
  return 0;
}

// Trains the head (--epochs above 0), writing the model after every epoch, then with
// --fit-value-weights fits the value term and writes it again. Returns the exit status.
int train_and_write(Model& model, const HumanData& train, const HumanData& validation,
                    const GameSpec& spec, const HumanTrainCliOptions& opt) {
  // Value weights and a search mixture fitted to the head's old answers would not fit the
  // trained head's.
  const StaleHumanTerms dropped = drop_stale_human_terms(model.meta.human);
  if (dropped.search_mix)
    say("the --init model's search mixture is dropped (fitted to its head before this "
        "training)");
  if (dropped.value_weights)
    say(std::string("the --init model's value weights are dropped (they were fitted to its head "
                    "before this training") +
        (opt.fit_value_weights ? "; fitted again after it" : "") + ")");
  HumanTrainOptions to;
  to.epochs = opt.epochs;
  to.batch = opt.batch;
  to.learning_rate = opt.learning_rate;
  to.seed = opt.seed;
  to.head_only = !opt.fine_tune;
  to.positions_per_epoch = opt.positions_per_epoch;
  HumanTrainProgress progress(opt.epochs, int64_t(train.samples.size()), opt.positions_per_epoch,
                              {.line_interval_s = 10});
  to.after_batch = [&](int epoch, int64_t done, double loss) {
    progress.after_batch(epoch, done, loss);
  };
  to.after_epoch = [&](int epoch, Model& m) {
    progress.finish_epoch();
    report("epoch " + std::to_string(epoch), m, validation);
    save_model(opt.out, m);
    say("wrote " + opt.out);
  };
  try {
    train_human_policy(model, train.samples, to);
    if (opt.fit_value_weights) {
      fit_value_term(model, train, validation, spec);
      report("with the value term", model, validation);
      save_model(opt.out, model);
      say("wrote " + opt.out);
    }
  } catch (const std::exception& e) {
    print_command_error("kumalak human-train", e);
    return 1;
  }
  return 0;
}

int run_human_train(const HumanTrainCliOptions& opt) {
  const bool play_knots = !opt.play_mix.empty() || !opt.play_filter.empty();
  if (play_knots && opt.epochs > 0) {
    print_command_error("kumalak human-train",
                        "--play-mix and --play-filter need --epochs 0 (what the levels play is "
                        "calibrated on the games of a head as it is)");
    return 2;
  }
  GameSpec spec;
  try {
    spec = GameSpec::parse(opt.game);
  } catch (const ParseError& e) {
    print_command_error("kumalak human-train", e);
    return 2;
  }
  std::vector<std::vector<GameRecord>> files;
  try {
    files = read_game_files(opt.files);
  } catch (const ParseError& e) {
    print_command_error("kumalak human-train", e);
    return 2;
  }
  torch::set_num_threads(std::max(1, opt.threads));
  const std::string init = opt.init.empty() ? shipped_model_path(spec) : opt.init;
  Model model;
  try {
    model = load_model(init, &spec);
  } catch (const std::exception& e) {
    print_command_error("kumalak human-train", e);
    return 2;
  }
  if (opt.files.empty()) {
    // Only what the levels play: no game record is read, the rest of the model stays.
    if (!play_knots) {
      print_command_error("kumalak human-train", "no PGN file of rated games given");
      return 2;
    }
    if (!model.meta.network.human_policy_head) {
      print_command_error("kumalak human-train",
                          "--play-mix, --play-filter: '" + init + "' has no human head");
      return 2;
    }
    return write_play_knots(model, opt) ? 0 : 2;
  }
  const HumanData train = read_human_data(files, spec, FoldSelection::kTrain, opt.titled);
  const HumanData validation = read_human_data(files, spec, FoldSelection::kValidation, opt.titled);
  for (const auto& why : train.skipped) say("skipped: " + why);
  if (train.samples.empty()) {
    print_command_error("kumalak human-train",
                        "no move of a rated or titled player in the train fold");
    return 1;
  }
  // The head's range: the train fold's ratings, widened to whole hundreds.
  const std::optional<HumanHeadInfo> range = human_head_range(train.samples);
  if (!range) {
    print_command_error("kumalak human-train", "no rated player in the train fold");
    return 1;
  }
  const HumanHeadSetup head =
      set_up_human_head(model, train, *range, opt.pair_prior, opt.rating_temperature);
  const HumanHeadInfo& info = head.info;
  const int64_t paired_games = head.paired_games;
  if (model.meta.note.empty() || opt.epochs > 0)
    model.meta.note = "human policy head: kumalak human-train from " + init;
  say(std::to_string(train.samples.size()) + " train positions (" + std::to_string(train.games) +
      " games, " + std::to_string(head.titled_positions) + " of titled players), " +
      std::to_string(validation.samples.size()) + " validation positions (" +
      std::to_string(validation.games) + " games); ratings " + std::to_string(info.rating_min) +
      ".." + std::to_string(info.rating_max) + ", mean " + std::to_string(info.rating_mean));
  if (opt.pair_prior)
    say("rating pair prior: " + std::to_string(paired_games) +
        " train games with both sides rated" +
        (paired_games == 0 ? " (none: no pair prior written)" : ""));
  report("before training", model, validation);
  if (opt.epochs == 0) return write_untrained(model, train, validation, spec, opt);
  return train_and_write(model, train, validation, spec, opt);
}

}  // namespace

void register_human_train(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<HumanTrainCliOptions>();
  auto* cmd = app.add_subcommand(
      "human-train",
      "Train a human policy head (moves by rating) on the train fold of rated games");
  cmd->add_option("files", opt->files,
                  "PGN files of rated games (WhiteElo/BlackElo tags); none needed for "
                  "--play-mix or --play-filter alone");
  add_game_option(cmd, opt->game);
  cmd->add_option("--init", opt->init,
                  "model to start from (default: the game's shipped model); its policy head "
                  "is the human head's start");
  cmd->add_option("--out", opt->out, "model file to write after every epoch")->required();
  cmd->add_option("--epochs", opt->epochs,
                  "passes over the train fold (default 3; 0: only write the train fold's "
                  "rating prior into the model)")
      ->check(in_range(0, 1000));
  cmd->add_option("--batch", opt->batch, "positions per optimizer step (default 256)")
      ->check(in_range(2, 65536));
  cmd->add_option("--lr", opt->learning_rate,
                  "Adam's learning rate at the start, decayed to a tenth (default 1e-3)")
      ->check(in_range(1e-6, 1.0));
  cmd->add_option("--threads", opt->threads, "LibTorch threads (default 1)")
      ->check(in_range(1, 256));
  cmd->add_option("--seed", opt->seed, "order of the training positions (default 1)");
  cmd->add_option("--positions-per-epoch", opt->positions_per_epoch,
                  "train on this many positions an epoch, a new random draw each epoch "
                  "(default 0: all of the train fold)")
      ->check(in_range(int64_t(0), int64_t(1) << 40));
  cmd->add_flag("--fine-tune", opt->fine_tune,
                "fine-tune the whole network with the head (default: the head alone, on the "
                "tower's output computed once, which keeps the model's own policy and value)");
  cmd->add_flag("--rating-temperature", opt->rating_temperature,
                "let the rating also set the head's temperature (how sure a player's choice "
                "is; a model without it gets it, started at 1)");
  cmd->add_flag("--fit-value-weights", opt->fit_value_weights,
                "fit the rating-dependent value term (how much a player of each rating "
                "prefers the moves the model's value head rates higher) on the train fold "
                "after training; with --epochs 0, to the --init model's head as it is");
  cmd->add_option("--fit-search-mix", opt->search_mix_visits,
                  "fit how often a player of each rating plays what a search of this many "
                  "visits of the engine's network plays (with --epochs 0)")
      ->check(in_range(int64_t(1), int64_t(100000)));
  cmd->add_option("--search-every", opt->search_every,
                  "fit the search mixture on every K-th train position (default 5)")
      ->check(in_range(1, 1000000));
  cmd->add_option("--engine-model", opt->engine_model,
                  "the network the search mixture searches with (default: the game's shipped "
                  "model)");
  cmd->add_option("--play-mix", opt->play_mix,
                  "the lambda the rating levels play with at knots of the rating range, "
                  "RATING:LAMBDA,... (with --epochs 0; knots not named keep theirs; "
                  "calibrated by tools/calibrate_rating_levels.py)");
  cmd->add_option("--play-filter", opt->play_filter,
                  "the search filter's tau the rating levels play with at knots of the "
                  "rating range, RATING:TAU,... (with --epochs 0; knots not named keep "
                  "theirs, 0 at first; where set, the levels play it instead of the mixture: "
                  "docs/levels.md)");
  cmd->add_flag("!--no-pair-prior", opt->pair_prior,
                "leave out the two-sided prior over a game's two ratings (by default the "
                "train fold's games of two rated players are counted into the model, and "
                "the rating estimate uses both sides' moves for each)");
  cmd->add_flag("!--no-titled", opt->titled,
                "leave out titled over-the-board players (unrated sides of games without a "
                "TimeControl tag); by default they are a class of their own");
  cmd->callback([opt, &exit_code] { exit_code = run_human_train(*opt); });
}

}  // namespace kz::cli
