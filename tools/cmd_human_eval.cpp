// kumalak human-eval: how well an engine predicts the moves of rated human players, per
// 100-point rating bin. Every game of the chosen fold (core/rated_games.h: the held-out
// split by game) is replayed, and every position a rated player moved in is one sample:
// the network's raw policy (no search) is asked in batches, scoring top-1 agreement
// with the player's move and the mean natural log of the probability it gave that move;
// with --search-visits N, every K-th sample (--every K) is also searched with the
// expert's MCTS settings for N visits, scoring the top-1 agreement of the searched move.
// Games that do not replay are skipped and counted; unrated sides (a missing or broken
// rating tag) are counted by reason. With a human model (a model with a human policy
// head, --human-model; by default models/<game>-human.pt where it exists), every sample
// is also scored by the human policy at the player's own rating ("human") and at the
// model's one mean rating ("blind"), and every side of 40 moves or more gets its rating
// estimated from its moves (nn/human_rating.h), compared with its recorded rating: both
// sides of a game jointly where the model has the two-sided prior and both are rated.
// docs/human.md has the data, the split and the figures.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/human_games.h"
#include "core/notation.h"
#include "core/rated_games.h"
#include "nn/human_head.h"
#include "nn/human_rating.h"
#include "nn/model_evaluator.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/human_eval.h"
#include "tools/human_level.h"

namespace kz::cli {

namespace {

struct HumanEvalOptions {
  std::string game = "togyz";
  std::vector<std::string> files;
  std::string model;  // empty: the shipped model of the game
  // A model with a human policy head; empty: models/<game>-human.pt where it exists;
  // "none": no human columns.
  std::string human_model;
  bool json = false;
  std::string fold = "validation";
  int64_t search_visits = 0;  // 0: no search
  int64_t every = 1;
  // The human and blind columns as the levels play (the calibrated lambda,
  // search_mix_play_weights, or the search filter, search_filter_play_weights) instead of
  // the fitted lambda: how human the levels' moves are.
  bool as_played = false;
};

std::string percent(int64_t part, int64_t whole) {
  if (whole == 0) return "-";
  char s[32];
  std::snprintf(s, sizeof s, "%.1f %%", 100.0 * double(part) / double(whole));
  return s;
}

// What was measured and with what, for the printing.
struct Measured {
  const HumanEvalOptions& opt;
  const std::string& model_path;  // the engine's network
  std::string model_description;  // its evaluator's describe()
  const std::string& human_path;  // the human model ("" without)
  const HumanHead* human;         // null without
  const HumanData& data;
  const HumanEvalResult& result;
};

// The measures as one JSON object.
void print_json(const Measured& m) {
  const HumanEvalOptions& opt = m.opt;
  const auto& bins = m.result.bins;
  const EstimateSummary& estimates = m.result.estimates;
  const HumanHead* human = m.human;
  const std::string& human_path = m.human_path;
  const std::string& model_path = m.model_path;
  const UnratedSides& unrated = m.data.unrated;
  const int64_t games = m.data.games, skipped = m.data.skipped_games;
  const std::vector<HumanSample>& samples = m.data.samples;
  nlohmann::ordered_json j;
  j["model"] = model_path;
  j["fold"] = opt.fold;
  j["search_visits"] = opt.search_visits;
  j["every"] = opt.every;
  j["bins"] = nlohmann::ordered_json::array();
  for (const auto& [from, b] : bins) {
    nlohmann::ordered_json bin;
    bin["from"] = from;
    bin["to"] = from + kRatingBinWidth - 1;
    bin["positions"] = b.positions;
    bin["policy_top1"] = double(b.policy_top1) / double(b.positions);
    bin["policy_loglik"] = b.policy_loglik / double(b.positions);
    if (b.search_positions > 0)
      bin["search_top1"] = double(b.search_top1) / double(b.search_positions);
    else
      bin["search_top1"] = nullptr;
    bin["search_positions"] = b.search_positions;
    if (human) {
      bin["human_top1"] = double(b.human_top1) / double(b.positions);
      bin["blind_top1"] = double(b.blind_top1) / double(b.positions);
      bin["human_loglik"] = b.human_loglik / double(b.positions);
      bin["blind_loglik"] = b.blind_loglik / double(b.positions);
    }
    j["bins"].push_back(bin);
  }
  if (human) {
    j["human_model"] = human_path;
    j["blind_rating"] = human->info().rating_mean;
    // Whether the human columns include the rating-dependent value term
    // (HumanHeadInfo::value_weights, docs/human.md).
    j["human_value_term"] = !human->info().value_weights.empty();
    if (human->info().search_mix_visits > 0) {
      j["human_search_mix_visits"] = human->info().search_mix_visits;
      // The search of the columns with --as-played (the levels' own).
      if (opt.as_played) j["human_columns_visits"] = human_search_visits(human->info(), true);
    }
    j["human_columns_lambda"] = !opt.as_played                                     ? "fitted"
                                : human->info().search_filter_play_weights.empty() ? "played"
                                                                                   : "filter";
    j["rating_estimate"] = estimates.pair_prior  ? "joint_posterior"
                           : estimates.posterior ? "posterior"
                                                 : "maximum_likelihood";
    j["joint_sides"] = estimates.joint_sides;
    j["rating_mae"] = estimates.model.mae;
    j["baseline_mae"] = estimates.baseline_mae;
    j["rating_spearman"] = estimates.model.spearman;
    j["rating_coverage"] = estimates.model.coverage;
    j["rating_interval_width"] = estimates.model.width;
    // The other estimates, for comparison: each side alone, and without any prior.
    for (const auto& [prefix, errors] :
         {std::pair{"single_", &estimates.single}, std::pair{"ml_", &estimates.ml}}) {
      const std::string p = prefix;
      j[p + "rating_mae"] = errors->mae;
      j[p + "rating_spearman"] = errors->spearman;
      j[p + "rating_coverage"] = errors->coverage;
      j[p + "rating_interval_width"] = errors->width;
    }
    j["sides"] = estimates.sides;
  }
  j["positions"] = int64_t(samples.size());
  j["games"] = games;
  j["skipped_games"] = skipped;
  j["unrated_sides"] = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : unrated.by_reason) j["unrated_sides"][reason] = count;
  std::cout << j.dump() << "\n";
}

// The measures as a table per bin and the rating estimate's summary.
void print_table(const Measured& m) {
  const HumanEvalOptions& opt = m.opt;
  const auto& bins = m.result.bins;
  const EstimateSummary& estimates = m.result.estimates;
  const HumanHead* human = m.human;
  const std::string& human_path = m.human_path;
  const std::string& model_path = m.model_path;
  const UnratedSides& unrated = m.data.unrated;
  const int64_t games = m.data.games, skipped = m.data.skipped_games;
  const std::vector<HumanSample>& samples = m.data.samples;
  std::cout << "Model " << model_path << " (" << m.model_description << "), fold " << opt.fold
            << ": " << games << " games (" << skipped << " skipped), " << samples.size()
            << " positions of rated players; unrated sides: " << unrated.total();
  const char* separator = " (";
  for (const auto& [reason, count] : unrated.by_reason) {
    std::cout << separator << reason << " " << count;
    separator = ", ";
  }
  std::cout << (unrated.by_reason.empty() ? "" : ")") << "\n";
  std::string search_head = "search top-1";
  if (opt.search_visits > 0)
    search_head += " (" + std::to_string(opt.search_visits) + " visits, every " +
                   std::to_string(opt.every) + ")";
  char line[512];
  std::snprintf(line, sizeof line, "%-11s %9s %13s %15s", "rating", "positions", "policy top-1",
                "policy loglik");
  std::cout << line;
  if (human) {
    std::snprintf(line, sizeof line, " %12s %12s %13s %13s", "human top-1", "blind top-1",
                  "human loglik", "blind loglik");
    std::cout << line;
  }
  std::cout << "  " << search_head << "\n";
  for (const auto& [from, b] : bins) {
    const std::string range =
        std::to_string(from) + "-" + std::to_string(from + kRatingBinWidth - 1);
    std::string search = "-";
    if (b.search_positions > 0)
      search =
          percent(b.search_top1, b.search_positions) + " of " + std::to_string(b.search_positions);
    std::snprintf(line, sizeof line, "%-11s %9lld %13s %15.3f", range.c_str(),
                  (long long)b.positions, percent(b.policy_top1, b.positions).c_str(),
                  b.policy_loglik / double(b.positions));
    std::cout << line;
    if (human) {
      std::snprintf(line, sizeof line, " %12s %12s %13.3f %13.3f",
                    percent(b.human_top1, b.positions).c_str(),
                    percent(b.blind_top1, b.positions).c_str(),
                    b.human_loglik / double(b.positions), b.blind_loglik / double(b.positions));
      std::cout << line;
    }
    std::cout << "  " << search << "\n";
  }
  if (human) {
    std::snprintf(line, sizeof line,
                  "Human model %s (blind at %d): rating estimate (%s) over %lld sides of %d+ "
                  "moves: MAE %.0f (predicting the mean: %.0f), Spearman %.3f, 95 %% interval "
                  "holds the rating for %.0f %%\n",
                  human_path.c_str(), human->info().rating_mean,
                  estimates.pair_prior  ? "both sides jointly, with the model's pair prior"
                  : estimates.posterior ? "posterior with the model's prior"
                                        : "maximum likelihood",
                  (long long)estimates.sides, kMinEstimateMoves, estimates.model.mae,
                  estimates.baseline_mae, estimates.model.spearman, 100 * estimates.model.coverage);
    std::cout << line;
    if (estimates.pair_prior) {
      std::snprintf(line, sizeof line,
                    "  %lld sides jointly; each side alone (one-sided prior): MAE %.0f, "
                    "Spearman %.3f, interval holds %.0f %%\n",
                    (long long)estimates.joint_sides, estimates.single.mae,
                    estimates.single.spearman, 100 * estimates.single.coverage);
      std::cout << line;
    }
    if (estimates.posterior) {
      std::snprintf(line, sizeof line,
                    "  maximum likelihood alone: MAE %.0f, Spearman %.3f, interval holds %.0f %%\n",
                    estimates.ml.mae, estimates.ml.spearman, 100 * estimates.ml.coverage);
      std::cout << line;
    }
  }
}

int run_human_eval(const HumanEvalOptions& opt) {
  GameSpec spec;
  FoldSelection fold;
  try {
    spec = GameSpec::parse(opt.game);
    fold = parse_fold_selection(opt.fold);
  } catch (const ParseError& e) {
    print_command_error("kumalak human-eval", e);
    return 2;
  }
  // Every file is read before anything is measured (read_game_files says why).
  std::vector<std::vector<GameRecord>> files;
  try {
    files = read_game_files(opt.files);
  } catch (const ParseError& e) {
    print_command_error("kumalak human-eval", e);
    return 2;
  }
  const std::string model_path = opt.model.empty() ? shipped_model_path(spec) : opt.model;
  if (model_path.empty()) {
    print_command_error("kumalak human-eval", "no model for " + spec.name() +
                                                  ": give --model or run where models/" +
                                                  model_file_stem(spec) + ".pt is");
    return 2;
  }
  std::shared_ptr<Evaluator> evaluator;
  try {
    evaluator = load_model_evaluator(spec, model_path, 0);
  } catch (const std::exception& e) {
    print_command_error("kumalak human-eval", e);
    return 2;
  }

  std::unique_ptr<HumanHead> human;
  std::string human_path = opt.human_model;
  if (human_path.empty()) {
    const std::string shipped = "models/" + model_file_stem(spec) + "-human.pt";
    if (std::ifstream(shipped).good()) human_path = shipped;
  }
  if (human_path == "none") human_path.clear();
  if (!human_path.empty()) {
    try {
      human = std::make_unique<HumanHead>(load_plain_model(human_path, &spec));
    } catch (const std::exception& e) {
      print_command_error("kumalak human-eval", e);
      return 2;
    }
  }

  // The samples, in file and game order (--every counts in this order).
  const HumanData data = read_human_data(files, spec, fold, false);
  for (const std::string& why : data.skipped)
    print_command_error("kumalak human-eval", "skipped: " + why);
  if (data.samples.empty()) {
    print_command_error("kumalak human-eval", "no position of a rated player in the " + opt.fold +
                                                  " fold (" + std::to_string(data.games) +
                                                  " games, " + std::to_string(data.skipped_games) +
                                                  " skipped)");
    return 1;
  }
  HumanEvalResult result;
  try {
    result = measure_human_eval(spec, data, evaluator, human.get(),
                                {opt.search_visits, opt.every, opt.as_played});
  } catch (const std::exception& e) {  // the human model's search mixture: no engine
    print_command_error("kumalak human-eval", e);
    return 2;
  }
  const Measured measured{opt,  model_path, evaluator->describe(), human_path, human.get(),
                          data, result};
  if (opt.json)
    print_json(measured);
  else
    print_table(measured);
  return 0;
}

}  // namespace

void register_human_eval(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<HumanEvalOptions>();
  auto* cmd = app.add_subcommand(
      "human-eval", "Measure how well the network predicts rated players' moves, per rating bin");
  cmd->add_option("files", opt->files, "PGN files of rated games (WhiteElo/BlackElo tags)")
      ->required();
  add_game_option(cmd, opt->game);
  add_model_option(cmd, opt->model);
  cmd->add_option("--human-model", opt->human_model,
                  "model with a human policy head for the human columns and the rating "
                  "estimate (default: models/<game>-human.pt where it exists; none: leave "
                  "them out)");
  cmd->add_flag("--json", opt->json, "print one JSON object instead of the table");
  cmd->add_option("--fold", opt->fold,
                  "games of the held-out split to measure on: validation (default), train or all");
  cmd->add_option("--search-visits", opt->search_visits,
                  "also search positions with this many MCTS visits each (0, the default: no "
                  "search)")
      ->check(in_range(int64_t(0), int64_t(1) << 30));
  cmd->add_option("--every", opt->every,
                  "search only every K-th position of rated players (the 1st, K+1-th, ...; "
                  "default 1: all)")
      ->check(in_range(int64_t(1), int64_t(1) << 40));
  cmd->add_flag("--as-played", opt->as_played,
                "score the human and blind columns as the rating levels play (the model's "
                "calibrated search mixture or search filter) instead of the fitted mixture");
  cmd->callback([opt, &exit_code] { exit_code = run_human_eval(*opt); });
}

}  // namespace kz::cli
