// The human policy head: its rating input changes the policy it learns, its model file
// round-trips (and older models still load), and the rating estimate recovers the rating
// moves were drawn at.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "nn/features.h"
#include "nn/human_policy.h"
#include "nn/human_rating.h"
#include "nn/human_training.h"
#include "nn/model_summary.h"
#include "nn/nn_evaluator.h"
#include "nn_test_util.h"
#include "synthetic_ratings.h"
#include "test_util.h"

namespace kz {
namespace {

const HumanHeadInfo kInfo = test::human_range(800, 2200, 1400);

Model tiny_human_model(uint64_t seed = 3) {
  Model m = make_random_model(GameSpec::togyz(), test::tiny_net_config(), seed);
  m.net->eval();
  return with_human_policy_head(m, kInfo);
}

std::string temp_path(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kz_nn_human_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(HumanHead, ParameterCountIsTheNetworksCount) {
  NetConfig c = test::tiny_net_config();
  c.human_policy_head = true;
  Network net(c);
  EXPECT_EQ(expected_parameter_count(c), net->parameter_count());
}

TEST(HumanHead, StartsAsTheModelsOwnPolicyAtEveryRating) {
  Model base = make_random_model(GameSpec::togyz(), test::tiny_net_config(), 5);
  base.net->eval();
  const auto positions = test::random_positions(GameSpec::togyz(), 16, 7);
  const auto policy = test::evaluate(base, positions);
  HumanPolicy human(with_human_policy_head(base, kInfo));
  for (int rating : {800, 1500, 2200}) {
    const auto probs = human.probabilities(positions, rating);
    for (size_t i = 0; i < positions.size(); ++i)
      for (int k = 0; k < 9; ++k)
        EXPECT_NEAR(probs[i][size_t(k)], policy[i].policy[size_t(k)], 1e-4);
  }
}

TEST(HumanHead, ModelFileRoundTripsTheHeadAndItsRange) {
  Model m = tiny_human_model();
  const std::string path = temp_path("human.pt");
  save_model(path, m);
  Model back = load_model(path);
  EXPECT_TRUE(back.meta.network.human_policy_head);
  EXPECT_EQ(back.meta.human, kInfo);
  EXPECT_EQ(weights_checksum(back.net), weights_checksum(m.net));
  const auto positions = test::random_positions(GameSpec::togyz(), 4, 9);
  HumanPolicy a(m), b(back);
  EXPECT_EQ(a.probabilities(positions, 1234), b.probabilities(positions, 1234));

  // A head without its range, or with a range that is none, is refused by name.
  const std::string bytes = test::read_bytes(path);
  std::ofstream(temp_path("no-range.pt"), std::ios::binary)
      << test::with_metadata(bytes, "\"human\":", "\"humane\":");
  EXPECT_NE(test::load_error(temp_path("no-range.pt")).find("malformed metadata"),
            std::string::npos);
  std::ofstream(temp_path("bad-range.pt"), std::ios::binary)
      << test::with_metadata(bytes, "\"rating_max\":2200", "\"rating_max\":700");
  EXPECT_NE(test::load_error(temp_path("bad-range.pt")).find("human rating range 800..700"),
            std::string::npos);
}

TEST(HumanHead, ModelsWithoutTheHeadStillLoad) {
  Model plain = make_random_model(GameSpec::togyz(), test::tiny_net_config(), 4);
  save_model(temp_path("plain.pt"), plain);
  EXPECT_FALSE(load_model(temp_path("plain.pt")).meta.network.human_policy_head);
  EXPECT_EQ(test::read_bytes(temp_path("plain.pt")).find("human"), std::string::npos);
  // The shipped model, from before the head.
  const std::string shipped = test::source_dir() + "/models/togyz.pt";
  Model m = load_model(shipped);
  EXPECT_FALSE(m.meta.network.human_policy_head);
  EXPECT_THROW(HumanPolicy{m}, ModelError);
}

// Positions where both hole 1 (pit 0) and hole 9 (pit 8) are legal.
std::vector<Position> both_ends_legal(int n, uint64_t seed) {
  std::vector<Position> out;
  for (const Position& p : test::random_positions(GameSpec::togyz(), 4 * n, seed))
    if ((p.legal_mask() & 1) && (p.legal_mask() >> 8 & 1) && int(out.size()) < n) out.push_back(p);
  return out;
}

TEST(HumanHead, TheRatingInputChangesThePolicy) {
  // Synthetic players: below 1500 always play hole 1, from 1500 on always hole 9.
  std::mt19937_64 rng(11);
  std::vector<HumanSample> samples;
  // Every position twice, once by a low-rated and once by a high-rated player, so that
  // no position alone tells the move.
  for (const Position& p : both_ends_legal(256, 13)) {
    samples.push_back({p, 0, 800 + int(rng() % 700), false, 0});
    samples.push_back({p, 8, 1500 + int(rng() % 701), false, 0});
  }
  Model m = tiny_human_model();
  HumanTrainOptions opt;
  opt.epochs = 40;
  opt.batch = 64;
  opt.learning_rate = 3e-3;
  opt.head_only = false;
  train_human_policy(m, samples, opt);
  HumanPolicy human(m);
  const auto held_out = both_ends_legal(32, 17);
  const auto low = human.probabilities(held_out, 900), high = human.probabilities(held_out, 2100);
  int low_right = 0, high_right = 0;
  for (size_t i = 0; i < held_out.size(); ++i) {
    low_right += top_human_move(low[i], held_out[i]) == 0;
    high_right += top_human_move(high[i], held_out[i]) == 8;
  }
  EXPECT_GE(low_right, 30) << "of " << held_out.size();
  EXPECT_GE(high_right, 30) << "of " << held_out.size();
  EXPECT_GT(human_fit(human, samples).top1, 0.95);
}

TEST(RatingEstimate, RecoversTheRatingSyntheticMovesWereDrawnAt) {
  // A synthetic player of rating R finds the best of three moves with probability
  // sigmoid((R - 1500) / 300); the other two share the rest. 400 moves at R* each.
  const std::vector<int> grid = human_rating_grid(kInfo, 25);
  auto p_best = [](double r) { return 1 / (1 + std::exp(-(r - 1500) / 300)); };
  std::mt19937_64 rng(21);
  for (int truth : {1000, 1400, 1900}) {
    std::vector<double> ll(grid.size(), 0.0);
    for (int move = 0; move < 400; ++move) {
      const bool best = std::uniform_real_distribution<double>(0, 1)(rng) < p_best(truth);
      for (size_t g = 0; g < grid.size(); ++g) {
        const double p = p_best(grid[g]);
        ll[g] += std::log(best ? p : (1 - p) / 2);
      }
    }
    const RatingEstimate e = estimate_rating(grid, ll);
    EXPECT_NEAR(e.rating, truth, 150) << truth;
    EXPECT_LE(e.low, truth);
    EXPECT_GE(e.high, truth);
    EXPECT_LT(e.low, e.rating);
    EXPECT_GT(e.high, e.rating);
    EXPECT_LT(e.high - e.low, 600);
  }
}

TEST(RatingEstimate, IntervalIsCutAtTheGridsEnds) {
  const std::vector<int> grid{800, 900, 1000};
  const RatingEstimate e = estimate_rating(grid, {-1.0, -2.0, -10.0});
  EXPECT_EQ(e.rating, 800);
  EXPECT_EQ(e.low, 800);
  EXPECT_NEAR(e.high, 900 + 100 * (-2.0 - -2.92) / (-2.0 - -10.0), 1e-9);
}

// The rating temperature: it starts at 1 (the same answers at every rating), a weight
// on it changes how sure the head is by rating, and the model file keeps it.
TEST(HumanHead, RatingTemperatureStartsNeutralAndRoundTrips) {
  NetConfig c = test::tiny_net_config();
  c.human_policy_head = true;
  c.human_rating_temperature = true;
  EXPECT_EQ(expected_parameter_count(c), Network(c)->parameter_count());
  Model plain = tiny_human_model();
  Model warm = with_human_rating_temperature(plain);
  EXPECT_TRUE(warm.meta.network.human_rating_temperature);
  const auto positions = test::random_positions(GameSpec::togyz(), 8, 13);
  HumanPolicy a(plain), b(warm);
  for (int rating : {800, 2200}) {
    const auto pa = a.probabilities(positions, rating), pb = b.probabilities(positions, rating);
    for (size_t i = 0; i < positions.size(); ++i)
      for (int k = 0; k < 9; ++k) EXPECT_NEAR(pa[i][size_t(k)], pb[i][size_t(k)], 1e-5);
  }
  {
    torch::NoGradGuard no_grad;
    // Colder at the top of the range (inputs[0] = t = +1), warmer at the bottom.
    warm.net->human_temperature_fc->weight.zero_();
    warm.net->human_temperature_fc->weight[0][0] = 1.0f;
  }
  HumanPolicy t(warm);
  const auto low = t.probabilities(positions, 800), high = t.probabilities(positions, 2200);
  const auto grid = t.move_logprobs(positions, std::vector<int>(positions.size(), 0), {800, 2200});
  for (size_t i = 0; i < positions.size(); ++i) {
    const int best = top_human_move(high[i], positions[i]);
    EXPECT_EQ(top_human_move(low[i], positions[i]), best);  // the order is the same
    EXPECT_GE(high[i][size_t(best)], low[i][size_t(best)] - 1e-6);
    if (positions[i].legal_mask() & 1) {
      EXPECT_NEAR(grid[0][i], std::log(low[i][0]), 1e-4);
      EXPECT_NEAR(grid[1][i], std::log(high[i][0]), 1e-4);
    }
  }
  const std::string path = temp_path("human-temperature.pt");
  save_model(path, warm);
  Model back = load_model(path);
  EXPECT_TRUE(back.meta.network.human_rating_temperature);
  EXPECT_EQ(weights_checksum(back.net), weights_checksum(warm.net));
  EXPECT_THROW(with_human_rating_temperature(
                   make_random_model(GameSpec::togyz(), test::tiny_net_config(), 1)),
               ModelError);
}

// The prior over ratings (HumanHeadInfo::rating_prior) travels in the model file;
// a prior that does not fit the range is refused by name.
TEST(HumanHead, ModelFileRoundTripsTheRatingPrior) {
  Model m = tiny_human_model();
  m.meta.human.rating_prior = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  const std::string path = temp_path("human-prior.pt");
  save_model(path, m);
  EXPECT_EQ(load_model(path).meta.human.rating_prior, m.meta.human.rating_prior);
  const std::string bytes = test::read_bytes(path);
  std::ofstream(temp_path("short-prior.pt"), std::ios::binary)
      << test::with_metadata(bytes, "[1,2,3,", "[");
  EXPECT_NE(test::load_error(temp_path("short-prior.pt"))
                .find("human rating prior has 11 bins, the range 800..2200 has 14"),
            std::string::npos)
      << test::load_error(temp_path("short-prior.pt"));
  HumanHeadInfo zero = kInfo;
  zero.rating_prior.assign(14, 0);
  EXPECT_NE(human_head_problem(zero), "");
  zero.rating_prior[3] = -1;
  EXPECT_NE(human_head_problem(zero), "");
}

TEST(RatingPrior, CountsEachRatedSideOnceInItsBin) {
  const std::vector<HumanSide> sides{{805, false, 40},  {899, false, 3}, {900, false, 60},
                                     {2500, false, 50}, {0, true, 70},   {650, false, 10}};
  const std::vector<int> counts = rating_prior_counts(sides, kInfo);
  ASSERT_EQ(counts.size(), 14u);
  EXPECT_EQ(counts[0], 3);   // 805, 899 and 650 (below the range: the first bin)
  EXPECT_EQ(counts[1], 1);   // 900
  EXPECT_EQ(counts[13], 1);  // 2500 (above: the last bin); the titled side not at all
}

// With a prior, the estimate is the posterior median: a likelihood that says nothing
// leaves the prior's median; a sharp one wins over the prior; the 95 % interval is the
// posterior's 2.5 % and 97.5 % quantiles.
TEST(RatingEstimate, PosteriorMedianWithThePrior) {
  HumanHeadInfo info = kInfo;
  // Every side in 1,200-1,299: the prior is peaked there (counts + 1/2 elsewhere).
  info.rating_prior.assign(14, 0);
  info.rating_prior[4] = 1000;
  const std::vector<int> grid = human_rating_grid(info, 25);
  const std::vector<double> log_prior = rating_log_prior(info, grid);
  ASSERT_EQ(log_prior.size(), grid.size());
  const std::vector<double> flat(grid.size(), -50.0);
  const RatingEstimate e = estimate_rating_posterior(grid, flat, log_prior);
  EXPECT_NEAR(e.rating, 1250, 30);
  EXPECT_LT(e.low, e.rating);
  EXPECT_GT(e.high, e.rating);
  EXPECT_GT(e.low, 1100);
  EXPECT_LT(e.high, 1400);
  // Without a prior: the maximum-likelihood answer, unchanged.
  std::vector<double> sharp(grid.size());
  for (size_t g = 0; g < grid.size(); ++g) sharp[g] = -std::pow((grid[g] - 1900) / 40.0, 2);
  const RatingEstimate ml = estimate_rating(grid, sharp);
  const RatingEstimate same = estimate_rating_posterior(grid, sharp, {});
  EXPECT_EQ(same.rating, ml.rating);
  EXPECT_EQ(same.low, ml.low);
  // A likelihood far sharper than the prior: the posterior stays near its peak.
  const RatingEstimate post = estimate_rating_posterior(grid, sharp, log_prior);
  EXPECT_NEAR(post.rating, 1900, 60);
  EXPECT_LE(post.low, 1900);
  // A flat prior and a symmetric likelihood: median at the peak, a symmetric interval.
  HumanHeadInfo uniform = kInfo;
  uniform.rating_prior.assign(14, 7);
  const RatingEstimate u = estimate_rating_posterior(grid, sharp, rating_log_prior(uniform, grid));
  EXPECT_NEAR(u.rating, 1900, 1e-6);
  EXPECT_NEAR(u.high - u.rating, u.rating - u.low, 1e-6);
  EXPECT_NEAR(u.high - u.low, 2 * 1.96 * 40 / std::sqrt(2.0), 15);
}

TEST(RatingEstimate, SpearmanCorrelation) {
  EXPECT_NEAR(spearman_correlation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0, 1e-12);
  EXPECT_NEAR(spearman_correlation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0, 1e-12);
  EXPECT_NEAR(spearman_correlation({1, 2, 3}, {5, 5, 5}), 0.0, 1e-12);
}

TEST(HumanRatingInputs, HatsShareOneAndRatingsAreClamped) {
  for (int r : {800, 1033, 1500, 2199, 2200}) {
    const auto in = human_rating_inputs(kInfo, r);
    double hats = 0;
    for (int k = 1; k <= kHumanRatingKnots; ++k) hats += in[size_t(k)];
    EXPECT_NEAR(hats, 1.0, 1e-6) << r;
    EXPECT_EQ(in[kHumanRatingInputs - 1], 0.f);
  }
  EXPECT_EQ(human_rating_inputs(kInfo, 100), human_rating_inputs(kInfo, 800));
  EXPECT_EQ(human_rating_inputs(kInfo, 3000), human_rating_inputs(kInfo, 2200));
  EXPECT_EQ(human_rating_inputs(kInfo, 0, true)[kHumanRatingInputs - 1], 1.f);
  EXPECT_EQ(human_head_problem(test::human_range(800, 2200, 1400)), "");
  EXPECT_NE(human_head_problem(test::human_range(800, 800, 800)), "");
  EXPECT_NE(human_head_problem(test::human_range(800, 2200, 2300)), "");
}

}  // namespace
}  // namespace kz

namespace kz {
namespace {

// Positions with at least two legal moves, so that a move choice says something.
std::vector<Position> choice_positions(int n, uint64_t seed) {
  std::vector<Position> out;
  for (const Position& p : test::random_positions(GameSpec::togyz(), 3 * n, seed))
    if (p.legal_count() >= 2 && int(out.size()) < n) out.push_back(p);
  return out;
}

// The head's answer as HumanPolicy computed it before the value term: the masked softmax
// of the head's logits, nothing else.
std::vector<std::array<float, kMaxPits>> head_alone(Model& m, const std::vector<Position>& ps,
                                                    int rating) {
  c10::InferenceMode guard;
  const int64_t L = ring_length(ps[0]);
  auto f = torch::empty({int64_t(ps.size()), kNumPlanes, L}, torch::kFloat32);
  const size_t per = size_t(kNumPlanes * L);
  auto legal = torch::zeros({int64_t(ps.size()), 9}, torch::kBool);
  for (size_t i = 0; i < ps.size(); ++i) {
    encode_features(ps[i], std::span<float>(f.data_ptr<float>() + per * i, per));
    for (int k = 0; k < 9; ++k) legal[int64_t(i)][k] = bool(ps[i].legal_mask() >> k & 1);
  }
  const std::vector<int> ratings(ps.size(), rating);
  auto logits = m.net->human_policy(m.net->trunk(f), human_rating_tensor(m.meta.human, ratings), 9);
  const auto probs = torch::softmax(logits.masked_fill(legal.logical_not(), -1e30), 1).contiguous();
  std::vector<std::array<float, kMaxPits>> out(ps.size());
  for (size_t i = 0; i < ps.size(); ++i)
    for (int k = 0; k < 9; ++k)
      out[i][size_t(k)] =
          ps[i].legal_mask() >> k & 1 ? probs.data_ptr<float>()[i * 9 + size_t(k)] : 0.f;
  return out;
}

// Synthetic players whose preference for the moves the value head rates higher grows
// with their rating (beta from -B at 800 to +B at 2200, drawn through the head's own
// probabilities): the fit recovers an increasing beta, close to the truth, and the
// model with it predicts their moves better than the head alone.
TEST(HumanValueTerm, FitRecoversABetaThatRisesWithTheRating) {
  Model m = tiny_human_model(21);
  const auto positions = choice_positions(3000, 23);
  // A random network's value barely differs between children: sharpen its value head
  // until Q spreads over a fair part of -1..1, so that a plausible beta shows.
  auto mean_spread = [&](HumanPolicy& p) {
    const auto q = p.move_values(positions);
    double spread = 0;
    for (size_t i = 0; i < positions.size(); ++i) {
      float lo = 2, hi = -2;
      for (uint32_t mm = positions[i].legal_mask(); mm; mm &= mm - 1) {
        const int k = __builtin_ctz(mm);
        lo = std::min(lo, q[i][size_t(k)]);
        hi = std::max(hi, q[i][size_t(k)]);
      }
      spread += hi - lo;
    }
    return spread / double(positions.size());
  };
  double spread = 0;
  for (int i = 0; i < 12; ++i) {
    HumanPolicy p(m);
    if ((spread = mean_spread(p)) > 0.2) break;
    torch::NoGradGuard no_grad;
    m.net->wdl_out->weight.mul_(3);
  }
  HumanPolicy policy(m);
  const auto q = policy.move_values(positions);
  ASSERT_GT(spread, 0.2);
  const double B = 3 / spread;
  auto true_beta = [&](int r) { return B * (2.0 * (r - 800) / 1400 - 1); };
  std::mt19937_64 rng(29);
  std::vector<HumanSample> samples;
  for (size_t i = 0; i < positions.size(); ++i) {
    const int r = 800 + int(rng() % 1401);
    const std::vector<int> rs{r};
    const auto lp = policy.head_logprobs(std::span<const Position>(&positions[i], 1), rs, {});
    std::array<double, kMaxPits> w{};
    double sum = 0;
    for (uint32_t mm = positions[i].legal_mask(); mm; mm &= mm - 1) {
      const int k = __builtin_ctz(mm);
      sum += w[size_t(k)] = std::exp(lp[0][k].item<double>() + true_beta(r) * q[i][size_t(k)]);
    }
    double u = std::uniform_real_distribution<double>(0, sum)(rng);
    int move = -1;
    for (uint32_t mm = positions[i].legal_mask(); mm; mm &= mm - 1) {
      move = __builtin_ctz(mm);
      if ((u -= w[size_t(move)]) <= 0) break;
    }
    samples.push_back({positions[i], move, r, false, 0});
  }
  const ValueWeightsFit fit = fit_value_weights(policy, samples);
  ASSERT_EQ(fit.weights.size(), size_t(kHumanRatingInputs));
  EXPECT_GT(fit.loglik_after, fit.loglik_before + 0.01);
  HumanHeadInfo info = kInfo;
  info.value_weights = fit.weights;
  double previous = -1e9;
  for (int r : {800, 1200, 1500, 1800, 2200}) {
    const double beta = human_value_beta(info, r);
    EXPECT_GT(beta, previous) << "at " << r;
    EXPECT_NEAR(beta, true_beta(r), 0.35 * B) << "at " << r;
    previous = beta;
  }
  EXPECT_LT(human_value_beta(info, 800), 0);
  EXPECT_GT(human_value_beta(info, 2200), 0);

  // The model with the fitted term predicts these players better than the head alone.
  Model with = m;
  with.meta.human.value_weights = fit.weights;
  HumanPolicy fitted(with);
  EXPECT_GT(human_fit(fitted, samples).loglik, human_fit(policy, samples).loglik + 0.01);
}

// Without value weights a human model answers exactly (bitwise) as the head alone did.
TEST(HumanValueTerm, ModelsWithoutValueWeightsAnswerAsBefore) {
  Model m = tiny_human_model(31);
  ASSERT_TRUE(m.meta.human.value_weights.empty());
  HumanPolicy policy(m);
  const auto positions = choice_positions(40, 33);
  for (int r : {800, 1437, 2200}) {
    const auto before = head_alone(m, positions, r);
    const auto now = policy.probabilities(positions, r);
    for (size_t i = 0; i < positions.size(); ++i)
      for (int k = 0; k < 9; ++k)
        EXPECT_EQ(std::bit_cast<uint32_t>(now[i][size_t(k)]),
                  std::bit_cast<uint32_t>(before[i][size_t(k)]));
  }
}

// With value weights: probabilities over the legal moves sum to 1 (illegal ones are 0),
// move_logprobs agrees with them, the term changes the answer, and the weights
// round-trip through the model file.
TEST(HumanValueTerm, ProbabilitiesWithTheTermSumToOneAndRoundTrip) {
  Model m = tiny_human_model(41);
  m.meta.human.value_weights = {0.5f, -2.f, -1.f, 0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 1.5f};
  HumanPolicy with(m);
  Model plain_model = m;
  plain_model.meta.human.value_weights.clear();
  HumanPolicy plain(plain_model);
  const auto positions = choice_positions(30, 43);
  std::vector<int> moves;
  for (const Position& p : positions) moves.push_back(__builtin_ctz(p.legal_mask()));
  const std::vector<int> grid{800, 1500, 2200};
  const auto logp = with.move_logprobs(positions, moves, grid);
  double changed = 0;
  for (size_t g = 0; g < grid.size(); ++g) {
    const auto probs = with.probabilities(positions, grid[g]);
    const auto head = plain.probabilities(positions, grid[g]);
    for (size_t i = 0; i < positions.size(); ++i) {
      double sum = 0;
      for (int k = 0; k < 9; ++k) {
        if (positions[i].legal_mask() >> k & 1)
          sum += probs[i][size_t(k)];
        else
          EXPECT_EQ(probs[i][size_t(k)], 0.f);
        changed += std::abs(probs[i][size_t(k)] - head[i][size_t(k)]);
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
      EXPECT_NEAR(logp[g][i], std::log(probs[i][size_t(moves[i])]), 1e-4);
    }
  }
  EXPECT_GT(changed, 0.01);

  const std::string path = temp_path("human-value.pt");
  save_model(path, m);
  EXPECT_EQ(load_model(path).meta.human.value_weights, m.meta.human.value_weights);
  HumanPolicy back(load_model(path));
  EXPECT_EQ(back.probabilities(positions, 1234), with.probabilities(positions, 1234));
}

// A malformed value-weights entry is refused with a message that names it.
TEST(HumanValueTerm, MalformedValueWeightsAreRefusedByName) {
  Model m = tiny_human_model(51);
  m.meta.human.value_weights = {0.5f, -2.f, -1.f, 0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 1.5f};
  const std::string path = temp_path("human-value-ok.pt");
  save_model(path, m);
  const std::string bytes = test::read_bytes(path);
  ASSERT_NE(bytes.find("\"value_weights\":[0.5,-2.0,"), std::string::npos);
  const std::vector<std::pair<std::string, std::string>> cases{
      {"\"value_weights\":[0.5,-2.0,", "\"value_weights\":[-2.0,"},        // 9 numbers
      {"\"value_weights\":[0.5,-2.0,", "\"value_weights\":[\"x\",-2.0,"},  // not a number
      {"\"value_weights\":[0.5,-2.0,", "\"value_weights\":[5e2,-2.0,"},    // implausible
      {"\"value_weights\":[0.5,-2.0,", "\"value_weights\":[1e300,-2.0,"},  // beyond float
      {"\"value_weights\":[0.5,-2.0,", "\"value_weights\":{\"a\":[-2.0,"},
  };
  int i = 0;
  for (const auto& [from, to] : cases) {
    std::string changed = test::with_metadata(bytes, from, to);
    // An object instead of the array: close it where the array closed.
    if (to.find('{') != std::string::npos) changed = test::with_metadata(changed, "1.5]", "1.5]}");
    const std::string file = temp_path("bad-value-" + std::to_string(i++) + ".pt");
    std::ofstream(file, std::ios::binary) << changed;
    const std::string why = test::load_error(file);
    EXPECT_NE(why.find("human.value_weights"), std::string::npos)
        << from << " -> " << to << ": " << why;
  }
  HumanHeadInfo bad = kInfo;
  bad.value_weights.assign(kHumanRatingInputs, std::nanf(""));
  EXPECT_NE(human_head_problem(bad).find("human.value_weights"), std::string::npos);
}

// The two-sided prior (HumanHeadInfo::rating_pair_prior): PlayOK pairs players of similar
// ratings, 1,000..2,000 here; the synthetic games' two ratings differ by at most 150.
HumanHeadInfo correlated_info() {
  return test::with_paired_rating_priors(kInfo);
}

using test::synthetic_loglik;

TEST(JointRatingEstimate, RecoversBothSidesSyntheticRatings) {
  const HumanHeadInfo info = correlated_info();
  ASSERT_EQ(human_head_problem(info), "");
  const std::vector<int> grid = human_rating_grid(info, 25);
  std::mt19937_64 rng(8);
  for (const auto& [white, black] :
       std::vector<std::pair<int, int>>{{1200, 1300}, {1500, 1450}, {1800, 1700}}) {
    const auto ll_white = synthetic_loglik(grid, white, 400, rng);
    const auto ll_black = synthetic_loglik(grid, black, 400, rng);
    const auto e = estimate_ratings_jointly(grid, ll_white, ll_black, info);
    EXPECT_NEAR(e[0].rating, white, 150) << white << " - " << black;
    EXPECT_NEAR(e[1].rating, black, 150) << white << " - " << black;
    for (int c = 0; c < 2; ++c) {
      const int truth = c == 0 ? white : black;
      EXPECT_LE(e[size_t(c)].low, truth);
      EXPECT_GE(e[size_t(c)].high, truth);
      EXPECT_LT(e[size_t(c)].low, e[size_t(c)].rating);
      EXPECT_GT(e[size_t(c)].high, e[size_t(c)].rating);
    }
  }
}

// Two sides whose moves alone put them 600 points apart: a prior that says the two are
// close pulls each towards the other; a prior that says nothing about the pair (every
// pair of bins alike) leaves the one-sided answers.
TEST(JointRatingEstimate, CorrelatedPriorPullsTheTwoSidesTogether) {
  const HumanHeadInfo info = correlated_info();
  const std::vector<int> grid = human_rating_grid(info, 25);
  std::vector<double> ll_white(grid.size()), ll_black(grid.size());
  for (size_t g = 0; g < grid.size(); ++g) {
    ll_white[g] = -0.5 * std::pow((grid[g] - 1200) / 200.0, 2);
    ll_black[g] = -0.5 * std::pow((grid[g] - 1800) / 200.0, 2);
  }
  const std::vector<double> log_prior = rating_log_prior(info, grid);
  const RatingEstimate white_alone = estimate_rating_posterior(grid, ll_white, log_prior);
  const RatingEstimate black_alone = estimate_rating_posterior(grid, ll_black, log_prior);
  const auto joint = estimate_ratings_jointly(grid, ll_white, ll_black, info);
  EXPECT_GT(joint[0].rating, white_alone.rating + 50);
  EXPECT_LT(joint[1].rating, black_alone.rating - 50);
  EXPECT_LT(joint[1].rating - joint[0].rating, black_alone.rating - white_alone.rating - 150);
  EXPECT_LT(joint[0].low, joint[0].rating);
  EXPECT_GT(joint[1].high, joint[1].rating);

  // Every pair alike, the one-sided prior flat: the joint posterior factorises.
  HumanHeadInfo flat = info;
  flat.rating_prior.assign(flat.rating_prior.size(), 10);
  flat.rating_pair_prior.assign(flat.rating_pair_prior.size(), 10);
  const std::vector<double> flat_prior = rating_log_prior(flat, grid);
  const auto apart = estimate_ratings_jointly(grid, ll_white, ll_black, flat);
  const RatingEstimate w = estimate_rating_posterior(grid, ll_white, flat_prior);
  const RatingEstimate b = estimate_rating_posterior(grid, ll_black, flat_prior);
  EXPECT_NEAR(apart[0].rating, w.rating, 1e-6);
  EXPECT_NEAR(apart[0].low, w.low, 1e-6);
  EXPECT_NEAR(apart[1].rating, b.rating, 1e-6);
  EXPECT_NEAR(apart[1].high, b.high, 1e-6);

  // No pair prior: each side's one-sided posterior, exactly.
  HumanHeadInfo one_sided = info;
  one_sided.rating_pair_prior.clear();
  const auto fallback = estimate_ratings_jointly(grid, ll_white, ll_black, one_sided);
  EXPECT_EQ(fallback[0].rating, white_alone.rating);
  EXPECT_EQ(fallback[1].high, black_alone.high);
}

TEST(RatingPairPrior, CountsGamesOfTwoRatedSidesOnceInTheirCell) {
  // game 1: 805 (White) - 1450; game 2: titled White - 1200 (not counted); game 3: only
  // Black rated (not counted); game 4: 2500 (White, above the range) - 650 (below).
  // {rating, titled, moves, score, game, color}
  std::vector<HumanSide> sides{{805, false, 40, 1, 1, 0},  {1450, false, 40, 0, 1, 1},
                               {0, true, 30, 0, 3, 0},     {1200, false, 30, 1, 3, 1},
                               {1300, false, 20, 0, 4, 1}, {2500, false, 50, 1, 5, 0},
                               {650, false, 50, 0, 5, 1}};
  const std::vector<int> counts = rating_pair_prior_counts(sides, kInfo);
  ASSERT_EQ(counts.size(), 14u * 14u);
  EXPECT_EQ(counts[0 * 14 + 6], 1);
  EXPECT_EQ(counts[13 * 14 + 0], 1);
  int total = 0;
  for (int c : counts) total += c;
  EXPECT_EQ(total, 2);
}

// The pair prior travels in the model file; a model without one loads without one; a
// malformed one is refused with a message that names it.
TEST(HumanHead, ModelFileRoundTripsThePairPriorAndRefusesABrokenOne) {
  Model m = tiny_human_model(61);
  const std::string plain = temp_path("human-no-pair.pt");
  save_model(plain, m);
  EXPECT_EQ(test::read_bytes(plain).find("rating_pair_prior"), std::string::npos);
  EXPECT_TRUE(load_model(plain).meta.human.rating_pair_prior.empty());

  const size_t cells = 14 * 14;
  m.meta.human.rating_pair_prior.assign(cells, 0);
  for (size_t i = 0; i < cells; ++i) m.meta.human.rating_pair_prior[i] = int(i % 5) + 1;
  m.meta.human.rating_pair_prior.back() = 77;
  const std::string path = temp_path("human-pair.pt");
  save_model(path, m);
  EXPECT_EQ(load_model(path).meta.human, m.meta.human);
  const std::string bytes = test::read_bytes(path);
  const std::string head = "\"rating_pair_prior\":[1,";
  ASSERT_NE(bytes.find(head), std::string::npos);
  const std::vector<std::pair<std::string, std::string>> cases{
      {head, "\"rating_pair_prior\":["},             // 195 counts
      {head, "\"rating_pair_prior\":[-1,"},          // negative
      {head, "\"rating_pair_prior\":[1.5,"},         // not whole
      {head, "\"rating_pair_prior\":[\"x\","},       // not a number
      {head, "\"rating_pair_prior\":[3000000000,"},  // beyond int
      {head, "\"rating_pair_prior\":{\"a\":[1,"},    // not an array
  };
  int i = 0;
  for (const auto& [from, to] : cases) {
    std::string changed = test::with_metadata(bytes, from, to);
    if (to.find('{') != std::string::npos) changed = test::with_metadata(changed, "77]", "77]}");
    const std::string file = temp_path("bad-pair-" + std::to_string(i++) + ".pt");
    std::ofstream(file, std::ios::binary) << changed;
    const std::string why = test::load_error(file);
    EXPECT_NE(why.find("human.rating_pair_prior"), std::string::npos)
        << from << " -> " << to << ": " << why;
  }
  HumanHeadInfo zero = kInfo;
  zero.rating_pair_prior.assign(cells, 0);
  EXPECT_NE(human_head_problem(zero).find("counts no game"), std::string::npos);
  zero.rating_pair_prior.assign(cells - 1, 1);
  EXPECT_NE(human_head_problem(zero).find("196 pairs of bins"), std::string::npos);
}

}  // namespace
}  // namespace kz

namespace kz {
namespace {

// lambda(R) of the search mixture: the weights dotted with the rating inputs, clamped to
// 0..1; none without weights. A titled player's lambda is its own (the last hat plus the
// flag's weight).
TEST(HumanSearchMix, LambdaFollowsTheKnotsAndIsAProbability) {
  HumanHeadInfo info = kInfo;
  EXPECT_EQ(human_search_mix(info, 1500), 0.0);
  info.search_mix_weights.assign(kHumanRatingInputs, 0.f);
  info.search_mix_visits = 64;
  for (int k = 0; k < kHumanRatingKnots; ++k) info.search_mix_weights[size_t(1 + k)] = 0.1f * k;
  info.search_mix_weights[kHumanRatingInputs - 1] = -0.5f;  // titled: 0.7 - 0.5
  const int spacing = (info.rating_max - info.rating_min) / (kHumanRatingKnots - 1);
  EXPECT_NEAR(human_search_mix(info, info.rating_min), 0.0, 1e-6);
  EXPECT_NEAR(human_search_mix(info, info.rating_min + 2 * spacing), 0.2, 1e-6);
  EXPECT_NEAR(human_search_mix(info, info.rating_min + 2 * spacing + spacing / 2), 0.25, 1e-6);
  EXPECT_NEAR(human_search_mix(info, info.rating_max), 0.7, 1e-6);
  EXPECT_NEAR(human_search_mix(info, 0, true), 0.2, 1e-6);
  // The knots are where each hat peaks: lambda there is the knot's own weight.
  const std::vector<int> knots = human_rating_knots(info);
  ASSERT_EQ(knots.size(), size_t(kHumanRatingKnots));
  EXPECT_EQ(knots.front(), info.rating_min);
  EXPECT_EQ(knots.back(), info.rating_max);
  for (int k = 0; k < kHumanRatingKnots; ++k)
    EXPECT_NEAR(human_search_mix(info, knots[size_t(k)]), 0.1 * k, 1e-6) << knots[size_t(k)];
  info.search_mix_weights[1] = -0.3f;  // below 0: clamped
  EXPECT_EQ(human_search_mix(info, info.rating_min), 0.0);
  EXPECT_EQ(human_head_problem(info), "");
}

// Synthetic players who play the search's move with a probability that rises with the
// rating (0 at the bottom, 0.3 at the top) and otherwise as a policy that gives the
// played move some probability: the fit recovers that lambda at every knot.
TEST(HumanSearchMix, FitRecoversALambdaThatRisesWithTheRating) {
  const HumanHeadInfo info = kInfo;
  auto true_lambda = [&](int r) {
    return 0.3 * double(r - info.rating_min) / double(info.rating_max - info.rating_min);
  };
  std::mt19937_64 rng(61);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<SearchMixSample> samples;
  for (int i = 0; i < 60000; ++i) {
    const int r = info.rating_min + int(rng() % uint64_t(info.rating_max - info.rating_min + 1));
    // Five moves; the search picks move 0; the policy gives move 0 probability q.
    const double q = 0.05 + 0.5 * unit(rng);
    const bool plays_search = unit(rng) < true_lambda(r);
    int move;
    if (plays_search) {
      move = 0;
    } else {
      move = unit(rng) < q ? 0 : 1 + int(rng() % 4);
    }
    const double policy = move == 0 ? q : (1 - q) / 4;
    samples.push_back({policy, move == 0 ? 1.0 : 0.0, r, false});
  }
  const SearchMixFit fit = fit_search_mix(info, samples);
  EXPECT_GT(fit.loglik_after, fit.loglik_before);
  HumanHeadInfo fitted = info;
  fitted.search_mix_weights = fit.weights;
  fitted.search_mix_visits = 64;
  EXPECT_EQ(human_head_problem(fitted), "");
  for (int r = info.rating_min; r <= info.rating_max; r += 200)
    EXPECT_NEAR(human_search_mix(fitted, r), true_lambda(r), 0.04) << r;
  // No titled sample: the titled lambda stays 0.
  EXPECT_NEAR(human_search_mix(fitted, 0, true), 0.0, 1e-6);
}

// Where players pick the search's move less often than the policy says (0.2 against
// 0.25), the best lambda is 0: the fit does not invent a mixture.
TEST(HumanSearchMix, FitGivesZeroWhereTheSearchDoesNotHelp) {
  std::vector<SearchMixSample> samples;
  std::mt19937_64 rng(71);
  for (int i = 0; i < 5000; ++i) {
    const bool search_move = rng() % 5 == 0;
    samples.push_back({0.25, search_move ? 1.0 : 0.0, 800 + int(rng() % 1400), false});
  }
  const SearchMixFit fit = fit_search_mix(kInfo, samples);
  for (float w : fit.weights) EXPECT_LE(std::abs(w), 0.02f);
  EXPECT_NEAR(fit.loglik_after, fit.loglik_before, 1e-4);
}

// The mixture round-trips through the model file; a model without one has none (and
// writes no "search_mix"); a malformed entry is refused with a message naming it.
TEST(HumanSearchMix, StoredInTheModelAndMalformedEntriesAreRefusedByName) {
  Model plain = tiny_human_model(81);
  const std::string plain_path = temp_path("human-nomix.pt");
  save_model(plain_path, plain);
  EXPECT_EQ(test::read_bytes(plain_path).find("search_mix"), std::string::npos);
  EXPECT_TRUE(load_model(plain_path).meta.human.search_mix_weights.empty());

  Model m = plain;
  m.meta.human.search_mix_weights = {0.f, 0.f, 0.25f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.75f, -0.5f};
  m.meta.human.search_mix_visits = 256;
  const std::string path = temp_path("human-mix.pt");
  save_model(path, m);
  const Model back = load_model(path);
  EXPECT_EQ(back.meta.human.search_mix_weights, m.meta.human.search_mix_weights);
  EXPECT_EQ(back.meta.human.search_mix_visits, 256);
  const std::string bytes = test::read_bytes(path);
  const std::string ok = "\"search_mix\":{\"visits\":256,\"weights\":[0.0,0.0,0.25,";
  ASSERT_NE(bytes.find(ok), std::string::npos);
  const std::vector<std::string> bad{
      "\"search_mix\":{\"visits\":0,\"weights\":[0.0,0.0,0.25,",      // no visits
      "\"search_mix\":{\"visits\":99999,\"weights\":[0.0,0.0,0.25,",  // too many
      "\"search_mix\":{\"visits\":2.5,\"weights\":[0.0,0.0,0.25,",    // not whole
      "\"search_mix\":{\"visits\":256,\"weights\":[0.0,0.25,",        // 9 numbers
      "\"search_mix\":{\"visits\":256,\"weights\":[\"x\",0.0,0.25,",  // not a number
      "\"search_mix\":{\"visits\":256,\"weights\":[7.0,0.0,0.25,",    // beyond 1
      "\"search_mix\":{\"visits\":256,\"weights\":[1e300,0.0,0.25,",  // beyond float
      "\"search_mix\":{\"visits\":256,\"wei\":[0.0,0.0,0.25,",        // no weights
  };
  int i = 0;
  for (const std::string& to : bad) {
    const std::string file = temp_path("bad-mix-" + std::to_string(i++) + ".pt");
    std::ofstream(file, std::ios::binary) << test::with_metadata(bytes, ok, to);
    const std::string why = test::load_error(file);
    EXPECT_NE(why.find("human.search_mix"), std::string::npos) << to << ": " << why;
  }
}

// Each of `bad` put in place of `ok` in a model file's metadata (`bytes`) makes loading
// it fail with an error naming `name`.
void expect_each_refused(const std::string& bytes, const std::string& ok,
                         const std::vector<std::string>& bad, const std::string& stem,
                         const std::string& name) {
  int i = 0;
  for (const std::string& to : bad) {
    const std::string file = temp_path(stem + "-" + std::to_string(i++) + ".pt");
    std::ofstream(file, std::ios::binary) << test::with_metadata(bytes, ok, to);
    const std::string why = test::load_error(file);
    EXPECT_NE(why.find(name), std::string::npos) << to << ": " << why;
  }
}

// The levels' calibrated lambda round-trips beside the fit (a model without it writes no
// "play_weights" and plays the fit); a malformed one is refused, naming it.
TEST(HumanSearchMix, PlayWeightsRoundTripFallBackToTheFitAndAreCheckedByName) {
  Model m = tiny_human_model(83);
  m.meta.human.search_mix_weights = {0.f, 0.f, 0.25f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.75f, -0.5f};
  m.meta.human.search_mix_visits = 256;
  const std::string fit_only = temp_path("human-fit-only.pt");
  save_model(fit_only, m);
  EXPECT_EQ(test::read_bytes(fit_only).find("play_weights"), std::string::npos);
  const Model fitted = load_model(fit_only);
  EXPECT_TRUE(fitted.meta.human.search_mix_play_weights.empty());
  const int top = fitted.meta.human.rating_max;
  EXPECT_EQ(human_play_mix(fitted.meta.human, top), human_search_mix(fitted.meta.human, top));

  m.meta.human.search_mix_play_weights = {0.f,  0.f,    0.f,   0.125f, 0.25f,
                                          0.5f, 0.625f, 0.75f, 1.f,    0.f};
  const std::string path = temp_path("human-play-mix.pt");
  save_model(path, m);
  const Model back = load_model(path);
  EXPECT_EQ(back.meta.human.search_mix_play_weights, m.meta.human.search_mix_play_weights);
  EXPECT_EQ(back.meta.human.search_mix_weights, m.meta.human.search_mix_weights);
  EXPECT_NEAR(human_play_mix(back.meta.human, top), 1.0, 1e-6);
  EXPECT_NEAR(human_search_mix(back.meta.human, top), 0.75, 1e-6);
  const std::string bytes = test::read_bytes(path);
  const std::string ok = "\"play_weights\":[0.0,0.0,0.0,0.125,";
  ASSERT_NE(bytes.find(ok), std::string::npos);
  const std::vector<std::string> bad{
      "\"play_weights\":[0.0,0.0,0.125,",              // 9 numbers
      "\"play_weights\":[\"x\",0.0,0.0,0.125,",        // not a number
      "\"play_weights\":[0.0,0.0,3.0,0.125,",          // beyond 1
      "\"play_weights\":7,\"x\":[0.0,0.0,0.0,0.125,",  // not an array
  };
  expect_each_refused(bytes, ok, bad, "bad-play-mix", "human.search_mix.play_weights");
  HumanHeadInfo alone = back.meta.human;
  alone.search_mix_weights.clear();
  alone.search_mix_visits = 0;
  EXPECT_NE(human_head_problem(alone).find("play_weights"), std::string::npos);
}

// The levels' search filter round-trips beside the mixture (tau 0 where a model has
// none), is shown per knot, and a malformed one is refused, naming it.
TEST(HumanSearchMix, PlayFilterRoundTripsAndIsCheckedByName) {
  Model m = tiny_human_model(84);
  m.meta.human.search_mix_weights = {0.f, 0.f, 0.25f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.75f, -0.5f};
  m.meta.human.search_mix_visits = 256;
  const int top = m.meta.human.rating_max;
  EXPECT_EQ(human_play_filter(m.meta.human, top), 0.0);
  m.meta.human.search_filter_play_weights = {0.f,   0.f,  0.f,   0.f,  0.f,
                                             0.25f, 0.5f, 0.75f, 1.5f, 0.f};
  EXPECT_NE(human_head_problem(m.meta.human).find("human.search_mix.play_filter holds"),
            std::string::npos);
  m.meta.human.search_filter_play_weights.back() = 0.f;
  m.meta.human.search_filter_play_weights[8] = 1.f;
  EXPECT_EQ(human_head_problem(m.meta.human), "");
  const std::string path = temp_path("human-play-filter.pt");
  save_model(path, m);
  const Model back = load_model(path);
  EXPECT_EQ(back.meta.human.search_filter_play_weights, m.meta.human.search_filter_play_weights);
  EXPECT_TRUE(back.meta.human.search_mix_play_weights.empty());
  const std::vector<int> knots = human_rating_knots(back.meta.human);
  EXPECT_NEAR(human_play_filter(back.meta.human, knots[5]), 0.5, 1e-6);
  EXPECT_NEAR(human_play_filter(back.meta.human, top), 1.0, 1e-6);
  const nlohmann::ordered_json summary = model_summary_json(back.meta, 0)["human"]["search_mix"];
  ASSERT_TRUE(summary.contains("play_filter")) << summary.dump();
  EXPECT_EQ(summary["play_filter"][5].get<double>(), 0.5);
  const std::string bytes = test::read_bytes(path);
  const std::string ok = "\"play_filter\":[0.0,0.0,0.0,0.0,";
  ASSERT_NE(bytes.find(ok), std::string::npos);
  const std::vector<std::string> bad{
      "\"play_filter\":[0.0,0.0,0.0,",               // 9 numbers
      "\"play_filter\":[null,0.0,0.0,0.0,",          // not a number
      "\"play_filter\":[0.0,0.0,-2.0,0.0,",          // beyond 1
      "\"play_filter\":{},\"x\":[0.0,0.0,0.0,0.0,",  // not an array
  };
  expect_each_refused(bytes, ok, bad, "bad-play-filter", "human.search_mix.play_filter");
  HumanHeadInfo alone = back.meta.human;
  alone.search_mix_weights.clear();
  alone.search_mix_visits = 0;
  EXPECT_NE(human_head_problem(alone).find("play_filter"), std::string::npos);
}

// The levels' own search (a mixture refitted with more visits keeps the levels on the
// search they were calibrated with): play_visits round-trips, the levels take it and the
// fit keeps its own; it needs play weights or a filter beside it and a whole number
// 1..1024, and a malformed one is refused, naming it.
TEST(HumanSearchMix, PlayVisitsRoundTripAndOnlyTheLevelsTakeThem) {
  Model m = tiny_human_model(85);
  m.meta.human.search_mix_weights = {0.f, 0.f, 0.25f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.75f, -0.5f};
  m.meta.human.search_mix_visits = 1024;
  EXPECT_EQ(human_search_visits(m.meta.human, true), 1024);  // none set: the fit's
  m.meta.human.search_play_visits = 256;
  EXPECT_NE(human_head_problem(m.meta.human).find("play_visits without play weights"),
            std::string::npos);
  m.meta.human.search_filter_play_weights = {0.f, 0.f, 0.f, 0.f, 0.f, 0.25f, 0.5f, 0.75f, 1.f, 0.f};
  EXPECT_EQ(human_head_problem(m.meta.human), "");
  m.meta.human.search_play_visits = 1025;
  EXPECT_NE(human_head_problem(m.meta.human).find("human.search_mix.play_visits is 1025"),
            std::string::npos);
  m.meta.human.search_play_visits = 256;
  const std::string path = temp_path("human-play-visits.pt");
  save_model(path, m);
  const Model back = load_model(path);
  EXPECT_EQ(back.meta.human.search_play_visits, 256);
  EXPECT_EQ(human_search_visits(back.meta.human, true), 256);
  EXPECT_EQ(human_search_visits(back.meta.human, false), 1024);
  EXPECT_EQ(model_summary_json(back.meta, 0)["human"]["search_mix"]["play_visits"], 256);
  const std::string bytes = test::read_bytes(path);
  const std::string ok = "\"play_visits\":256";
  ASSERT_NE(bytes.find(ok), std::string::npos);
  expect_each_refused(bytes, ok,
                      {"\"play_visits\":0.5", "\"play_visits\":0", "\"play_visits\":2000",
                       "\"play_visits\":\"256\""},
                      "bad-play-visits", "human.search_mix.play_visits");
  // A model without the key (every one before it) plays the fit's search.
  const std::string old_file = temp_path("human-no-play-visits.pt");
  m.meta.human.search_play_visits = 0;
  save_model(old_file, m);
  EXPECT_EQ(test::read_bytes(old_file).find("play_visits"), std::string::npos);
  EXPECT_EQ(human_search_visits(load_model(old_file).meta.human, true), 1024);
}

}  // namespace
}  // namespace kz
