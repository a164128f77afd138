// kumalak human-train: a human policy head (nn/network.h, nn/human_rating.h) trained on
// the moves of rated games of the TRAIN fold (core/rated_games.h), starting from a
// model's own policy (the head alone by default, or the whole network), measured on the validation
// fold after every epoch and saved (atomically) after every epoch. train/human_training.h has the
// loop, tools/human_train_options.h the options; docs/human.md the choices and figures.
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
#include "tools/human_train_options.h"
#include "train/human_fit_lines.h"
#include "train/human_fits.h"
#include "train/human_head_setup.h"
#include "train/progress.h"

namespace kz::cli {

namespace {

// A line on stderr, after the command's name.
void say(const std::string& line) {
  std::cerr << "kumalak human-train: " << line << "\n";
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
  try {
    set_play_knots_saying(model.meta.human, opt.play_mix, opt.play_filter, say);
  } catch (const ParseError& e) {
    print_command_error("kumalak human-train", e);
    return false;
  }
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
      refit_value_term(model, train, validation, spec, say);
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
  for (const std::string& line :
       stale_terms_lines(drop_stale_human_terms(model.meta.human), opt.fit_value_weights))
    say(line);
  HumanTrainProgress progress(opt.epochs, int64_t(train.samples.size()), opt.positions_per_epoch,
                              {.line_interval_s = 10});
  const HumanTrainOptions to{
      .epochs = opt.epochs,
      .batch = opt.batch,
      .learning_rate = opt.learning_rate,
      .seed = opt.seed,
      .positions_per_epoch = opt.positions_per_epoch,
      .head_only = !opt.fine_tune,
      .after_batch = [&](int epoch, int64_t done,
                         double loss) { progress.after_batch(epoch, done, loss); },
      .after_epoch =
          [&](int epoch, Model& m) {
            progress.finish_epoch();
            report("epoch " + std::to_string(epoch), m, validation);
            save_model(opt.out, m);
            say("wrote " + opt.out);
          }};
  try {
    train_human_policy(model, train.samples, to);
    if (opt.fit_value_weights) {
      refit_value_term(model, train, validation, spec, say);
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
  std::vector<std::vector<GameRecord>> files;
  HeldOut held_out;
  try {
    spec = GameSpec::parse(opt.game);
    held_out = parse_held_out(opt.held_out);
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
  const HumanData train = read_human_data(files, spec, FoldSelection::kTrain, opt.titled, held_out);
  const HumanData validation =
      read_human_data(files, spec, FoldSelection::kValidation, opt.titled, held_out);
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
  if (model.meta.note.empty() || opt.epochs > 0)
    model.meta.note =
        "human policy head: kumalak human-train from " + init +
        (held_out == HeldOut{} ? "" : ", fold " + held_out_text(held_out) + " held out");
  say(human_data_line(train, validation, head));
  if (opt.pair_prior) say(pair_prior_line(head.paired_games));
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
  add_human_train_options(cmd, *opt);
  cmd->callback([opt, &exit_code] { exit_code = run_human_train(*opt); });
}

}  // namespace kz::cli
