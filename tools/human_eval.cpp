#include "tools/human_eval.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "mcts/levels.h"
#include "mcts/mcts_player.h"
#include "nn/search_mixture.h"
#include "tools/human_level.h"
#include "train/progress.h"

namespace kz {

namespace {

// Positions per network call of the policy pass.
constexpr size_t kPolicyBatch = 256;
// The probability a log-likelihood takes for a move the policy gave (rounded to) zero,
// so that one such move cannot make a bin's mean minus infinity.
constexpr double kMinProbability = 1e-9;
// The spacing of the ratings the estimate's log-likelihood is computed at.
constexpr int kEstimateGridStep = 25;

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

// The network's raw policy on every sample: top-1 agreement and log-likelihood per bin.
void measure_policy(const std::vector<Sample>& samples, Evaluator& evaluator,
                    std::map<int, HumanEvalBin>& bins) {
  Progress progress("human-eval: policy", int64_t(samples.size()), progress_options());
  std::vector<Position> batch;
  std::vector<EvalOutput> out;
  for (size_t first = 0; first < samples.size(); first += kPolicyBatch) {
    const size_t n = std::min(kPolicyBatch, samples.size() - first);
    batch.clear();
    for (size_t i = 0; i < n; ++i) batch.push_back(samples[first + i].position);
    out.assign(n, EvalOutput{});
    evaluator.evaluate(batch, out);
    for (size_t i = 0; i < n; ++i) {
      const Sample& s = samples[first + i];
      HumanEvalBin& b = bins[s.bin_from];
      ++b.positions;
      b.policy_top1 += top_move(out[i], s.position) == s.move;
      b.policy_loglik += std::log(std::max(double(out[i].policy[s.move]), kMinProbability));
    }
    progress.set_done(int64_t(first + n));
  }
}

// The human head on every sample at the mover's rating and at its mean rating, and the
// rating estimate of every side of kMinEstimateMoves moves or more.
EstimateSummary measure_human(const GameSpec& spec, const std::vector<Sample>& samples,
                              std::vector<EvalSide>& sides, const HumanHead& human,
                              const HumanEvalSettings& settings,
                              std::map<int, HumanEvalBin>& bins) {
  EstimateSummary estimates;
  const HumanHeadInfo& info = human.info();
  const std::vector<int> grid = human_rating_grid(info, kEstimateGridStep);
  // The fit's search (the rating estimate, and the columns without --as-played), and
  // with --as-played the levels' own where its visits differ (search_play_visits).
  std::shared_ptr<HumanSearch> search = human_level_search(spec, human, MixUse::kDescribe);
  std::shared_ptr<HumanSearch> play_search;
  if (search && settings.as_played &&
      human_search_visits(info, true) != human_search_visits(info, false))
    play_search = human_level_search(spec, human, MixUse::kPlay);
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
    auto own = human.probabilities(batch, ratings, {});
    auto blind = human.probabilities(batch, info.rating_mean);
    auto over_grid = human.move_logprobs(batch, moves, grid);
    if (search) {
      // The search mixture (HumanHeadInfo::search_mix_weights); with --as-played the
      // columns take the levels' calibrated lambda, the rating estimate keeps the fit.
      auto column_lambda = [&](int r) {
        return settings.as_played ? human_play_mix(info, r) : human_search_mix(info, r);
      };
      // The levels play a filter instead where the model has one (human_moves).
      const bool filter = settings.as_played && !info.search_filter_play_weights.empty();
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
      HumanEvalBin& b = bins[s.bin_from];
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
    const bool joint = estimates.pair_prior && !game[0]->loglik.empty() && !game[1]->loglik.empty();
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
  return estimates;
}

// Every settings.every-th sample searched with the expert's settings: top-1 agreement.
void measure_search(const GameSpec& spec, const std::vector<Sample>& samples,
                    std::shared_ptr<Evaluator> evaluator, const HumanEvalSettings& settings,
                    std::map<int, HumanEvalBin>& bins) {
  // The expert's search settings (mcts/levels.h), a fixed number of visits, and a fresh
  // tree for every position so that each answer depends on its position alone.
  MctsPlayerOptions mo = mcts_level_options(spec, Level::kExpert, 1.0, 1);
  mo.visits = settings.search_visits;
  mo.reuse_tree = false;
  mo.threads = 1;
  mo.label = "human-eval";
  MctsPlayer player(evaluator, mo);
  ThinkLimits limits;
  limits.nodes = settings.search_visits;
  const int64_t total = (int64_t(samples.size()) + settings.every - 1) / settings.every;
  Progress progress("human-eval: search", total, progress_options());
  for (size_t i = 0; i < samples.size(); i += size_t(settings.every)) {
    const Sample& s = samples[i];
    player.new_game();
    const ThinkResult r = player.think(s.position, limits);
    HumanEvalBin& b = bins[s.bin_from];
    ++b.search_positions;
    b.search_top1 += r.best_move == s.move;
    progress.add();
  }
}

}  // namespace

HumanEvalResult measure_human_eval(const GameSpec& spec, const HumanData& data,
                                   std::shared_ptr<Evaluator> evaluator, const HumanHead* human,
                                   const HumanEvalSettings& settings) {
  std::vector<Sample> samples;
  std::vector<EvalSide> sides;
  collect_samples(data, samples, sides);
  HumanEvalResult result;
  measure_policy(samples, *evaluator, result.bins);
  if (human) result.estimates = measure_human(spec, samples, sides, *human, settings, result.bins);
  if (settings.search_visits > 0) measure_search(spec, samples, evaluator, settings, result.bins);
  return result;
}

}  // namespace kz
