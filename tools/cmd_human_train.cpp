// kumalak human-train: a human policy head (nn/network.h, nn/human_rating.h) trained on
// the moves of rated games of the TRAIN fold (core/rated_games.h), starting from a
// model's own policy (the head alone by default, or the whole network), measured on the validation
// fold after every epoch and saved (atomically) after every epoch. train/human_training.h has the
// loop; docs/human.md the choices and figures.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
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
#include "train/human_fits.h"
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

// The value term's beta(R) at these ratings, for the log and docs/human.md.
void print_betas(const HumanHeadInfo& info) {
  std::string line = "kumalak human-train: value term beta(R):";
  for (int r = 800; r <= 2200; r += 200) {
    char part[48];
    std::snprintf(part, sizeof part, " %d: %.3f", r, human_value_beta(info, r));
    line += part;
  }
  char part[48];
  std::snprintf(part, sizeof part, "; titled: %.3f", human_value_beta(info, 0, true));
  std::cerr << line << part << "\n";
}

// Fits the value weights of `model` on `train` and reports the validation fit with them.
void fit_value_term(Model& model, const HumanData& train, const HumanData& validation,
                    const GameSpec& spec) {
  // A search mixture was fitted on top of the old term: it goes with it.
  if (!model.meta.human.search_mix_weights.empty()) {
    drop_search_mix(model.meta.human);
    std::cerr << "kumalak human-train: the --init model's search mixture is dropped (fitted "
                 "on top of the value term fitted again now)\n";
  }
  // Which value the term can trust: the human model's own head against the shipped
  // model's, on the validation games' results.
  model.meta.human.value_weights.clear();
  const ValueHeadComparison heads = compare_value_heads(model, validation, spec);
  char line[240];
  std::snprintf(line, sizeof line,
                "value head vs the validation games' results: this model's Brier %.4f, "
                "winner's side %.2f %% (%lld positions)",
                heads.own.brier, 100 * heads.own.right, (long long)heads.own.positions);
  std::cerr << "kumalak human-train: " << line;
  if (heads.reference) {
    std::snprintf(line, sizeof line, "; %s's Brier %.4f, winner's side %.2f %%",
                  heads.reference_path.c_str(), heads.reference->brier,
                  100 * heads.reference->right);
    std::cerr << line;
  } else if (!heads.reference_path.empty()) {
    std::cerr << "; " << heads.reference_error;
  }
  std::cerr << "\n";
  const ValueWeightsFit fit = fit_value_term(model, train);
  std::snprintf(line, sizeof line,
                "value weights fitted on %lld train positions in %d Newton steps: train "
                "log-likelihood %.4f -> %.4f",
                (long long)fit.positions, fit.iterations, fit.loglik_before, fit.loglik_after);
  std::cerr << "kumalak human-train: " << line << "\n";
  print_betas(model.meta.human);
}

// Fits the search mixture on every K-th train position and measures the validation
// fold (every position) per 100-point bin with and without it, for both of the search's
// answers (its best move alone, its visit shares).
void fit_search_term(Model& model, const HumanData& train, const HumanData& validation,
                     const GameSpec& spec, const HumanTrainCliOptions& opt) {
  const std::string engine_path =
      opt.engine_model.empty() ? shipped_model_path(spec) : opt.engine_model;
  if (engine_path.empty()) throw std::runtime_error("no engine model to search with");
  HumanSearch search(spec, load_model_evaluator(spec, engine_path, 1), opt.search_mix_visits);
  // The levels' calibrated play weights or filter stay, with the search they were
  // calibrated with (HumanHeadInfo::search_play_visits).
  const int play_visits = human_search_visits(model.meta.human, true);
  const bool calibrated = !model.meta.human.search_mix_play_weights.empty() ||
                          !model.meta.human.search_filter_play_weights.empty();
  // The mixture is fitted on top of the policy without one.
  model.meta.human.search_mix_weights.clear();
  model.meta.human.search_mix_visits = 0;
  HumanPolicy policy(model);
  const auto train_rows = search_mix_rows(policy, search, train.samples, opt.search_every, "train");
  const auto val_rows = search_mix_rows(policy, search, validation.samples, 1, "validation");
  for (bool shares : {false, true}) {
    const SearchMixReport report =
        fit_search_mix_rows(model.meta.human, train_rows, val_rows, shares, opt.search_mix_visits);
    const SearchMixFit& fit = report.fit;
    const HumanHeadInfo& info = report.info;
    // The model plays the best move's mixture (human_moves); the visit shares' fit is
    // measured beside it only.
    if (!shares) {
      model.meta.human.search_mix_weights = info.search_mix_weights;
      model.meta.human.search_mix_visits = info.search_mix_visits;
      model.meta.human.search_play_visits =
          calibrated && play_visits != info.search_mix_visits ? play_visits : 0;
    }
    char line[300];
    std::snprintf(line, sizeof line,
                  "search mixture (%s, %lld visits) fitted on %lld train positions in %d "
                  "sweeps: train log-likelihood %.4f -> %.4f; lambda(R):",
                  shares ? "visit shares" : "best move", (long long)opt.search_mix_visits,
                  (long long)fit.positions, fit.sweeps, fit.loglik_before, fit.loglik_after);
    std::cerr << "kumalak human-train: " << line;
    for (int r = 800; r <= 2200; r += 200) {
      std::snprintf(line, sizeof line, " %d: %.4f", r, human_search_mix(info, r));
      std::cerr << line;
    }
    std::snprintf(line, sizeof line, "; titled: %.4f\n", human_search_mix(info, 0, true));
    std::cerr << line;
    std::cerr << "kumalak human-train: validation, " << (shares ? "visit shares" : "best move")
              << ": bin | positions | lambda | top-1 before / after | loglik before / after\n";
    for (const auto& [key, b] : report.bins) {
      const double lambda = key == -1   ? human_search_mix(info, 0, true)
                            : key == -2 ? 0.0
                                        : human_search_mix(info, key + 50);
      std::snprintf(line, sizeof line, "  %s | %lld | %.4f | %.2f / %.2f %% | %.4f / %.4f\n",
                    key == -1   ? "titled"
                    : key == -2 ? "all"
                                : (std::to_string(key) + "-" + std::to_string(key + 99)).c_str(),
                    (long long)b.n, lambda, 100.0 * double(b.top1_before) / double(b.n),
                    100.0 * double(b.top1_after) / double(b.n), b.ll_before / double(b.n),
                    b.ll_after / double(b.n));
      std::cerr << line;
    }
  }
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
    std::string line = "kumalak human-train: the levels play " + std::string(kind->value);
    for (int r : human_rating_knots(model.meta.human)) {
      char buf[40];
      std::snprintf(buf, sizeof buf, " %d: %.4f", r, kind->at(model.meta.human, r));
      line += buf;
    }
    std::cerr << line << "\n";
  }
  if (!model.meta.human.search_filter_play_weights.empty())
    std::cerr << "kumalak human-train: the levels play the search filter (its tau), not the "
                 "mixture\n";
  save_model(opt.out, model);
  std::cerr << "kumalak human-train: wrote " << opt.out << " (no training: --epochs 0)\n";
  return true;
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
  for (const auto& why : train.skipped)
    std::cerr << "kumalak human-train: skipped: " << why << "\n";
  if (train.samples.empty()) {
    print_command_error("kumalak human-train",
                        "no move of a rated or titled player in the train fold");
    return 1;
  }
  // The head's range: the train fold's ratings, widened to whole hundreds.
  HumanHeadInfo info;
  int lo = kMaxPlausibleRating, hi = kMinPlausibleRating;
  for (const auto& s : train.samples)
    if (!s.titled) lo = std::min(lo, s.rating), hi = std::max(hi, s.rating);
  if (lo > hi) {
    print_command_error("kumalak human-train", "no rated player in the train fold");
    return 1;
  }
  info.rating_min = rating_bin_from(lo);
  info.rating_max = rating_bin_from(hi) + kRatingBinWidth;
  info.rating_mean = mean_rating(train.samples);
  // A model that already has a head (--init of a human model) keeps its range: the head's
  // weights were trained for it.
  if (model.meta.network.human_policy_head) info = model.meta.human;
  info.rating_prior = rating_prior_counts(train.sides, info);
  info.rating_pair_prior.clear();
  int64_t paired_games = 0;
  if (opt.pair_prior) {
    info.rating_pair_prior = rating_pair_prior_counts(train.sides, info);
    for (int c : info.rating_pair_prior) paired_games += c;
    // A fold without a game of two rated players has no pair prior to give (and an
    // all-zero one would be refused on loading).
    if (paired_games == 0) info.rating_pair_prior.clear();
  }
  model = with_human_policy_head(model, info);
  model.meta.human.rating_prior = info.rating_prior;
  model.meta.human.rating_pair_prior = info.rating_pair_prior;
  if (opt.rating_temperature) model = with_human_rating_temperature(model);
  if (model.meta.note.empty() || opt.epochs > 0)
    model.meta.note = "human policy head: kumalak human-train from " + init;
  int64_t titled = 0;
  for (const auto& s : train.samples) titled += s.titled;
  std::cerr << "kumalak human-train: " << train.samples.size() << " train positions ("
            << train.games << " games, " << titled << " of titled players), "
            << validation.samples.size() << " validation positions (" << validation.games
            << " games); ratings " << info.rating_min << ".." << info.rating_max << ", mean "
            << info.rating_mean << "\n";
  if (opt.pair_prior)
    std::cerr << "kumalak human-train: rating pair prior: " << paired_games
              << " train games with both sides rated"
              << (paired_games == 0 ? " (none: no pair prior written)" : "") << "\n";
  auto report = [&](const std::string& when, Model& m) {
    HumanPolicy policy(m);
    const HumanFit fit = human_fit(policy, validation.samples);
    char line[200];
    std::snprintf(line, sizeof line,
                  "%s: validation top-1 %.2f %%, log-likelihood %.4f (%lld positions)",
                  when.c_str(), 100 * fit.top1, fit.loglik, (long long)fit.positions);
    std::cerr << "kumalak human-train: " << line << "\n";
  };
  report("before training", model);
  if (opt.epochs == 0) {
    // Only the prior of the rating estimate (nn/human_rating.h) written into the model,
    // and with --fit-value-weights the value term fitted to the head as it is.
    if (opt.fit_value_weights) {
      try {
        fit_value_term(model, train, validation, spec);
      } catch (const std::exception& e) {
        print_command_error("kumalak human-train", e);
        return 1;
      }
      report("with the value term", model);
    }
    if (opt.search_mix_visits > 0) {
      try {
        fit_search_term(model, train, validation, spec, opt);
      } catch (const std::exception& e) {
        print_command_error("kumalak human-train", e);
        return 1;
      }
    }
    if (play_knots) return write_play_knots(model, opt) ? 0 : 2;
    save_model(opt.out, model);
    std::cerr << "kumalak human-train: wrote " << opt.out << " (no training: --epochs 0)\n";
    return 0;
  }
  // Value weights and a search mixture fitted to the head's old answers would not fit the
  // trained head's.
  if (!model.meta.human.search_mix_weights.empty()) {
    drop_search_mix(model.meta.human);
    std::cerr << "kumalak human-train: the --init model's search mixture is dropped (fitted "
                 "to its head before this training)\n";
  }
  if (!model.meta.human.value_weights.empty()) {
    model.meta.human.value_weights.clear();
    std::cerr << "kumalak human-train: the --init model's value weights are dropped (they "
                 "were fitted to its head before this training"
              << (opt.fit_value_weights ? "; fitted again after it" : "") << ")\n";
  }
  HumanTrainOptions to;
  to.epochs = opt.epochs;
  to.batch = opt.batch;
  to.learning_rate = opt.learning_rate;
  to.seed = opt.seed;
  to.head_only = !opt.fine_tune;
  to.positions_per_epoch = opt.positions_per_epoch;
  std::unique_ptr<Progress> progress;
  int progress_epoch = -1;
  to.after_batch = [&](int epoch, int64_t done, double loss) {
    if (epoch != progress_epoch) {
      Progress::Options po;
      po.unit = "positions";
      po.line_interval_s = 10;
      progress = std::make_unique<Progress>(
          epoch == 0
              ? std::string("human-train: the tower's output")
              : "human-train epoch " + std::to_string(epoch) + "/" + std::to_string(opt.epochs),
          epoch == 0 || opt.positions_per_epoch == 0
              ? int64_t(train.samples.size())
              : std::min(int64_t(train.samples.size()), opt.positions_per_epoch),
          po);
      progress_epoch = epoch;
    }
    if (epoch > 0) progress->set_field("loss", loss);
    progress->set_done(done);
  };
  to.after_epoch = [&](int epoch, Model& m) {
    if (progress) progress->finish();
    report("epoch " + std::to_string(epoch), m);
    save_model(opt.out, m);
    std::cerr << "kumalak human-train: wrote " << opt.out << "\n";
  };
  try {
    train_human_policy(model, train.samples, to);
    if (opt.fit_value_weights) {
      fit_value_term(model, train, validation, spec);
      report("with the value term", model);
      save_model(opt.out, model);
      std::cerr << "kumalak human-train: wrote " << opt.out << "\n";
    }
  } catch (const std::exception& e) {
    print_command_error("kumalak human-train", e);
    return 1;
  }
  return 0;
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
