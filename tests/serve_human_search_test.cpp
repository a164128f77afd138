// The search mixture where the rating levels, hints and the engine's levels ask for the
// human policy (human_moves, tools/human_level.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "mcts/constant_evaluator.h"
#include "nn/human_head.h"
#include "nn/human_rating.h"
#include "nn/model_file.h"
#include "nn_test_util.h"
#include "tools/human_level.h"

namespace kz {
namespace {

// Without weights, or without a search, human_moves answers the policy's probabilities
// bit for bit; with both, (1 - lambda(R)) p(m | R) + lambda(R) [m = the search's move].
TEST(HumanSearchMixture, HumanMovesMixTheSearchsMoveAsDocumented) {
  const GameSpec spec = GameSpec::togyz();
  Model m = make_random_model(spec, test::tiny_net_config(), 7);
  m.net->eval();
  m = with_human_policy_head(m, test::human_range(800, 2200, 1400));
  HumanHead plain(plain_model_of(m));
  Model with_mix = m;
  with_mix.meta.human.search_mix_weights = {0.f, .1f, .2f, .3f, .4f, .5f, .6f, .7f, .8f, 0.f};
  with_mix.meta.human.search_mix_visits = 16;
  HumanHead mixed(plain_model_of(with_mix));
  EXPECT_EQ(human_level_search(spec, plain, MixUse::kPlay), nullptr);
  EXPECT_EQ(human_level_search(spec, plain, MixUse::kDescribe), nullptr);
  {
    // The levels search with their own visits where the model sets them; hints and
    // estimates with the fit's.
    Model calibrated = with_mix;
    calibrated.meta.human.search_filter_play_weights = std::vector<float>(10, 0.f);
    calibrated.meta.human.search_play_visits = 8;
    HumanHead levels(plain_model_of(calibrated));
    const auto engine = std::make_shared<ConstantEvaluator>();
    EXPECT_EQ(human_level_search(spec, levels, MixUse::kPlay, engine)->visits(), 8);
    EXPECT_EQ(human_level_search(spec, levels, MixUse::kDescribe, engine)->visits(), 16);
    EXPECT_EQ(human_level_search(spec, mixed, MixUse::kPlay, engine)->visits(), 16);
  }
  HumanSearch search(spec, std::make_shared<ConstantEvaluator>(), 16);
  int checked = 0;
  for (const Position& pos : test::random_positions(spec, 12, 5)) {
    if (pos.is_over()) continue;
    const int best = search.search(pos).best_move;
    ASSERT_TRUE(pos.is_legal(best));
    for (int r : {800, 1500, 2200}) {
      const auto p = plain.probabilities(std::span<const Position>(&pos, 1), r)[0];
      for (const auto& answer :
           {human_moves(plain, pos, r, &search), human_moves(mixed, pos, r, nullptr)})
        for (const HumanMove& h : answer)
          EXPECT_EQ(std::bit_cast<uint32_t>(h.probability),
                    std::bit_cast<uint32_t>(p[size_t(h.move)]));
      const double lambda = human_search_mix(mixed.info(), r);
      EXPECT_NEAR(lambda, 0.1 + 0.7 * (r - 800) / 1400.0, 1e-6);
      const auto answer = human_moves(mixed, pos, r, &search);
      double sum = 0;
      for (const HumanMove& h : answer) {
        EXPECT_NEAR(h.probability, (1 - lambda) * p[size_t(h.move)] + (h.move == best ? lambda : 0),
                    1e-6);
        sum += h.probability;
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
      if (r == 2200) {
        EXPECT_EQ(answer.front().move, best);  // 0.8 of the mass
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// A tiny random model with a human head over 800..2200 and a search mixture of `visits`
// whose fitted lambda is 0 everywhere: what the levels play is then the test's to set.
Model zero_mixture_model(const GameSpec& spec, uint64_t seed, int visits) {
  Model m = make_random_model(spec, test::tiny_net_config(), seed);
  m.net->eval();
  m = with_human_policy_head(m, test::human_range(800, 2200, 1400));
  m.meta.human.search_mix_weights.assign(kHumanRatingInputs, 0.f);
  m.meta.human.search_mix_visits = visits;
  return m;
}

// The levels play the calibrated lambda (search_mix_play_weights) where the model has
// it, while what players of R do (hints, estimates) keeps the fitted one: with play
// weights of 1 everywhere and fitted ones of 0, the level always plays the search's move
// and the described moves are the policy's own.
TEST(HumanSearchMixture, LevelsPlayTheCalibratedLambdaAndHintsKeepTheFit) {
  const GameSpec spec = GameSpec::togyz();
  Model m = zero_mixture_model(spec, 11, 16);
  m.meta.human.search_mix_play_weights.assign(kHumanRatingInputs, 0.f);
  for (int k = 0; k < kHumanRatingKnots; ++k)
    m.meta.human.search_mix_play_weights[size_t(1 + k)] = 1.f;
  auto policy = std::make_shared<HumanHead>(plain_model_of(m));
  EXPECT_EQ(human_search_mix(policy->info(), 1500), 0.0);
  EXPECT_EQ(human_play_mix(policy->info(), 1500), 1.0);
  auto search = std::make_shared<HumanSearch>(spec, std::make_shared<ConstantEvaluator>(), 16);
  HumanLevelPlayer player(policy, 1500, 3, search);
  int checked = 0;
  for (const Position& pos : test::random_positions(spec, 12, 9)) {
    if (pos.is_over()) continue;
    const int best = search->search(pos).best_move;
    const auto p = policy->probabilities(std::span<const Position>(&pos, 1), 1500)[0];
    for (const HumanMove& h : human_moves(*policy, pos, 1500, search.get(), MixUse::kDescribe))
      EXPECT_EQ(std::bit_cast<uint32_t>(h.probability), std::bit_cast<uint32_t>(p[size_t(h.move)]));
    const auto played = human_moves(*policy, pos, 1500, search.get(), MixUse::kPlay);
    EXPECT_EQ(played.front().move, best);
    EXPECT_NEAR(played.front().probability, 1.0, 1e-6);
    EXPECT_EQ(player.think(pos, ThinkLimits{}).best_move, best);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Where the model has a search filter the levels play it instead of the mixture: at tau
// every move the search visits less than tau times its most visited one keeps
// kHumanFilterFloor of the policy's probability (here tau 1: all but the most visited);
// tau 0 (here 800, the bottom knot) leaves the policy as it is; what players of R do
// keeps the fit.
TEST(HumanSearchMixture, LevelsPlayTheSearchFilterWhereTheModelHasOne) {
  const GameSpec spec = GameSpec::togyz();
  Model m = zero_mixture_model(spec, 12, 32);
  m.meta.human.search_mix_play_weights.assign(kHumanRatingInputs, 0.f);
  m.meta.human.search_mix_play_weights[size_t(kHumanRatingKnots)] = 1.f;  // ignored
  m.meta.human.search_filter_play_weights.assign(kHumanRatingInputs, 0.f);
  for (int k = 1; k < kHumanRatingKnots; ++k)
    m.meta.human.search_filter_play_weights[size_t(1 + k)] = 1.f;
  auto policy = std::make_shared<HumanHead>(plain_model_of(m));
  const int top = policy->info().rating_max;
  EXPECT_EQ(human_play_filter(policy->info(), 800), 0.0);
  EXPECT_NEAR(human_play_filter(policy->info(), top), 1.0, 1e-6);
  auto search = std::make_shared<HumanSearch>(spec, std::make_shared<ConstantEvaluator>(), 32);
  int checked = 0, filtered = 0;
  for (const Position& pos : test::random_positions(spec, 12, 10)) {
    if (pos.is_over()) continue;
    const SearchAnswer answer = search->search(pos);
    const float most = *std::max_element(answer.share.begin(), answer.share.end());
    const auto p = policy->probabilities(std::span<const Position>(&pos, 1), top)[0];
    double sum = 0;
    std::array<double, kMaxPits> expected{};
    for (int k = 0; k < pos.npits; ++k) {
      const bool kept = answer.share[size_t(k)] >= most;
      expected[size_t(k)] = p[size_t(k)] * (kept ? 1.0 : double(kHumanFilterFloor));
      sum += expected[size_t(k)];
      filtered += !kept && (pos.legal_mask() >> k & 1);
    }
    for (const HumanMove& h : human_moves(*policy, pos, top, search.get(), MixUse::kPlay))
      EXPECT_NEAR(h.probability, expected[size_t(h.move)] / sum, 1e-5) << h.move;
    for (const HumanMove& h : human_moves(*policy, pos, top, search.get(), MixUse::kDescribe))
      EXPECT_EQ(std::bit_cast<uint32_t>(h.probability), std::bit_cast<uint32_t>(p[size_t(h.move)]));
    const auto low = policy->probabilities(std::span<const Position>(&pos, 1), 800)[0];
    for (const HumanMove& h : human_moves(*policy, pos, 800, search.get(), MixUse::kPlay))
      EXPECT_EQ(std::bit_cast<uint32_t>(h.probability),
                std::bit_cast<uint32_t>(low[size_t(h.move)]));
    ++checked;
  }
  EXPECT_GT(checked, 0);
  EXPECT_GT(filtered, 0);  // the filter had moves to leave aside
}

}  // namespace
}  // namespace kz
