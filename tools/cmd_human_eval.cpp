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
#include "tools/human_eval_report.h"
#include "tools/human_level.h"
#include "tools/json_text.h"

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
  const HumanEvalReport report{
      opt.fold,   opt.search_visits, opt.every, opt.as_played, model_path, evaluator->describe(),
      human_path, human.get(),       data,      result};
  if (opt.json)
    std::cout << json_text(human_eval_json(report)) << "\n";
  else
    std::cout << human_eval_table(report);
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
