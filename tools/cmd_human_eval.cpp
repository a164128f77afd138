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
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/human_games.h"
#include "core/notation.h"
#include "core/rated_games.h"
#include "mcts/levels.h"
#include "mcts/mcts_player.h"
#include "nn/human_head.h"
#include "nn/human_rating.h"
#include "nn/model_evaluator.h"
#include "nn/search_mixture.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/human_level.h"
#include "train/progress.h"

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

// Positions per network call of the policy pass.
constexpr size_t kPolicyBatch = 256;
// The probability a log-likelihood takes for a move the policy gave (rounded to) zero,
// so that one such move cannot make a bin's mean minus infinity.
constexpr double kMinProbability = 1e-9;
// Sides with at least this many moves get their rating estimated and compared.
constexpr int kMinEstimateMoves = 40;
// The spacing of the ratings the estimate's log-likelihood is computed at.
constexpr int kEstimateGridStep = 25;

struct BinStats {
  int64_t positions = 0, policy_top1 = 0;
  double policy_loglik = 0;  // sum over positions
  int64_t search_positions = 0, search_top1 = 0;
  int64_t human_top1 = 0, blind_top1 = 0;
  double human_loglik = 0, blind_loglik = 0;  // sums over positions
};

// One side of one game of the fold (White's at an even index, Black's after it); only a
// rated side's moves are samples, so only a rated side that moved has a log-likelihood.
struct EvalSide {
  int rating = 0;
  int moves = 0;
  std::vector<double> loglik;  // over the estimate's grid: the sum over its moves
};

// One position a rated player moved in.
struct Sample {
  Position position;
  int move = 0;      // 0-based pit the player chose
  int bin_from = 0;  // rating_bin_from(the mover's rating)
  int rating = 0;    // the mover's rating
  int side = 0;      // index of the game side in run_human_eval's sides
};

// The samples of `data` (rated players only) and one EvalSide per side of every game
// that replayed, White's at an even index and Black's after it, rated or not.
void collect_samples(const HumanData& data, std::vector<Sample>& samples,
                     std::vector<EvalSide>& sides) {
  sides.assign(size_t(2 * data.games), EvalSide{});
  auto side_index = [&](const HumanSide& side) { return int(2 * (side.game - 1) + side.color); };
  for (const HumanSide& side : data.sides) {
    EvalSide& eval = sides[size_t(side_index(side))];
    eval.rating = side.rating;
    eval.moves = side.moves;
  }
  samples.clear();
  for (const HumanSample& s : data.samples)
    samples.push_back({s.position, s.move, rating_bin_from(s.rating), s.rating,
                       side_index(data.sides[size_t(s.side)])});
}

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

// Options of the progress lines of a pass over the positions (train/progress.h).
Progress::Options progress_options() {
  Progress::Options po;
  po.unit = "positions";
  po.line_interval_s = 10;
  return po;
}

int top_move(const EvalOutput& e, const Position& pos) {
  int best = -1;
  for (uint32_t m = pos.legal_mask(); m; m &= m - 1) {
    const int k = __builtin_ctz(m);
    if (best < 0 || e.policy[k] > e.policy[best]) best = k;  // ties: the lowest pit
  }
  return best;
}

std::string percent(int64_t part, int64_t whole) {
  if (whole == 0) return "-";
  char s[32];
  std::snprintf(s, sizeof s, "%.1f %%", 100.0 * double(part) / double(whole));
  return s;
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
  std::vector<Sample> samples;
  std::vector<EvalSide> sides;
  collect_samples(data, samples, sides);
  const int64_t games = data.games, skipped = data.skipped_games;
  const UnratedSides& unrated = data.unrated;
  if (samples.empty()) {
    print_command_error("kumalak human-eval", "no position of a rated player in the " + opt.fold +
                                                  " fold (" + std::to_string(games) + " games, " +
                                                  std::to_string(skipped) + " skipped)");
    return 1;
  }

  std::map<int, BinStats> bins;
  {
    Progress progress("human-eval: policy", int64_t(samples.size()), progress_options());
    std::vector<Position> batch;
    std::vector<EvalOutput> out;
    for (size_t first = 0; first < samples.size(); first += kPolicyBatch) {
      const size_t n = std::min(kPolicyBatch, samples.size() - first);
      batch.clear();
      for (size_t i = 0; i < n; ++i) batch.push_back(samples[first + i].position);
      out.assign(n, EvalOutput{});
      evaluator->evaluate(batch, out);
      for (size_t i = 0; i < n; ++i) {
        const Sample& s = samples[first + i];
        BinStats& b = bins[s.bin_from];
        ++b.positions;
        b.policy_top1 += top_move(out[i], s.position) == s.move;
        b.policy_loglik += std::log(std::max(double(out[i].policy[s.move]), kMinProbability));
      }
      progress.set_done(int64_t(first + n));
    }
  }
  EstimateSummary estimates;
  if (human) {
    const HumanHeadInfo& info = human->info();
    const std::vector<int> grid = human_rating_grid(info, kEstimateGridStep);
    // The fit's search (the rating estimate, and the columns without --as-played), and
    // with --as-played the levels' own where its visits differ (search_play_visits).
    std::shared_ptr<HumanSearch> search, play_search;
    try {
      search = human_level_search(spec, *human, MixUse::kDescribe);
      if (search && opt.as_played &&
          human_search_visits(info, true) != human_search_visits(info, false))
        play_search = human_level_search(spec, *human, MixUse::kPlay);
    } catch (const std::exception& e) {
      print_command_error("kumalak human-eval", e);
      return 2;
    }
    Progress progress("human-eval: human policy", int64_t(samples.size()), progress_options());
    std::vector<Position> batch;
    std::vector<int> moves, ratings;
    for (size_t first = 0; first < samples.size(); first += kPolicyBatch) {
      const size_t n = std::min(kPolicyBatch, samples.size() - first);
      batch.clear();
      moves.clear();
      ratings.clear();
      for (size_t i = first; i < first + n; ++i) {
        batch.push_back(samples[i].position);
        moves.push_back(samples[i].move);
        ratings.push_back(samples[i].rating);
      }
      auto own = human->probabilities(batch, ratings, {});
      auto blind = human->probabilities(batch, info.rating_mean);
      auto over_grid = human->move_logprobs(batch, moves, grid);
      if (search) {
        // The search mixture (HumanHeadInfo::search_mix_weights); with --as-played the
        // columns take the levels' calibrated lambda, the rating estimate keeps the fit.
        auto column_lambda = [&](int r) {
          return opt.as_played ? human_play_mix(info, r) : human_search_mix(info, r);
        };
        // The levels play a filter instead where the model has one (human_moves).
        const bool filter = opt.as_played && !info.search_filter_play_weights.empty();
        for (size_t i = 0; i < n; ++i) {
          const SearchAnswer answer = search->search(batch[i]);
          const int best = answer.best_move;
          // The columns' search: the levels' with --as-played.
          const SearchAnswer columns = play_search ? play_search->search(batch[i]) : answer;
          if (filter) {
            human_play_filter_apply(own[i], columns, human_play_filter(info, ratings[i]));
            human_play_filter_apply(blind[i], columns, human_play_filter(info, info.rating_mean));
          } else {
            mix_with_best_move(own[i], column_lambda(ratings[i]), columns.best_move);
            mix_with_best_move(blind[i], column_lambda(info.rating_mean), columns.best_move);
          }
          for (size_t g = 0; g < grid.size(); ++g) {
            const double lambda = human_search_mix(info, grid[g]);
            over_grid[g][i] = std::log(std::max(
                mix_with_search(std::exp(over_grid[g][i]), lambda, moves[i] == best ? 1.0 : 0.0),
                kMinProbability));
          }
        }
      }
      for (size_t i = 0; i < n; ++i) {
        const Sample& s = samples[first + i];
        BinStats& b = bins[s.bin_from];
        b.human_top1 += top_human_move(own[i], s.position) == s.move;
        b.blind_top1 += top_human_move(blind[i], s.position) == s.move;
        b.human_loglik += std::log(std::max(double(own[i][size_t(s.move)]), kMinProbability));
        b.blind_loglik += std::log(std::max(double(blind[i][size_t(s.move)]), kMinProbability));
        // Every rated side's moves count (a short side's still tell about its opponent
        // through the pair prior); only sides of kMinEstimateMoves or more are scored.
        EvalSide& side = sides[size_t(s.side)];
        if (side.loglik.empty()) side.loglik.assign(grid.size(), 0.0);
        for (size_t g = 0; g < grid.size(); ++g) side.loglik[g] += over_grid[g][i];
      }
      progress.set_done(int64_t(first + n));
    }
    const std::vector<double> log_prior = rating_log_prior(info, grid);
    estimates.posterior = !log_prior.empty();
    estimates.pair_prior = !info.rating_pair_prior.empty();
    std::vector<double> recorded;
    for (size_t white = 0; white + 1 < sides.size(); white += 2) {
      const EvalSide* game[2] = {&sides[white], &sides[white + 1]};
      // Jointly where the model has the pair prior and both sides are rated with moves;
      // else each side from its own moves.
      const bool joint =
          estimates.pair_prior && !game[0]->loglik.empty() && !game[1]->loglik.empty();
      std::array<RatingEstimate, 2> together{};
      if (joint) together = estimate_ratings_jointly(grid, game[0]->loglik, game[1]->loglik, info);
      for (int c = 0; c < 2; ++c) {
        const EvalSide& side = *game[c];
        if (side.loglik.empty() || side.moves < kMinEstimateMoves) continue;
        const RatingEstimate single = estimate_rating_posterior(grid, side.loglik, log_prior);
        const RatingEstimate e = joint ? together[size_t(c)] : single;
        const RatingEstimate ml = estimate_rating(grid, side.loglik);
        estimates.joint_sides += joint;
        recorded.push_back(side.rating);
        estimates.model.add(e, side.rating);
        estimates.single.add(single, side.rating);
        estimates.ml.add(ml, side.rating);
        estimates.baseline_mae += std::abs(double(info.rating_mean) - side.rating);
      }
    }
    estimates.sides = int64_t(recorded.size());
    if (estimates.sides > 0) {
      estimates.baseline_mae /= double(estimates.sides);
      for (EstimateErrors* errors : {&estimates.model, &estimates.single, &estimates.ml})
        errors->finish(recorded);
    }
  }
  if (opt.search_visits > 0) {
    // The expert's search settings (mcts/levels.h), a fixed number of visits, and a fresh
    // tree for every position so that each answer depends on its position alone.
    MctsPlayerOptions mo = mcts_level_options(spec, Level::kExpert, 1.0, 1);
    mo.visits = opt.search_visits;
    mo.reuse_tree = false;
    mo.threads = 1;
    mo.label = "human-eval";
    MctsPlayer player(evaluator, mo);
    ThinkLimits limits;
    limits.nodes = opt.search_visits;
    const int64_t total = (int64_t(samples.size()) + opt.every - 1) / opt.every;
    Progress progress("human-eval: search", total, progress_options());
    for (size_t i = 0; i < samples.size(); i += size_t(opt.every)) {
      const Sample& s = samples[i];
      player.new_game();
      const ThinkResult r = player.think(s.position, limits);
      BinStats& b = bins[s.bin_from];
      ++b.search_positions;
      b.search_top1 += r.best_move == s.move;
      progress.add();
    }
  }

  if (opt.json) {
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
    return 0;
  }
  std::cout << "Model " << model_path << " (" << evaluator->describe() << "), fold " << opt.fold
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
