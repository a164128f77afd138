// The rating levels' search mixture (nn/search_mixture.h): the formula every user of the
// mixture shares, with the search's best move alone and with its visit shares.
#include <gtest/gtest.h>

#include <numeric>

#include "nn/search_mixture.h"

namespace kz {
namespace {

TEST(SearchMixture, WeighsThePolicyAndTheSearchByLambda) {
  EXPECT_DOUBLE_EQ(mix_with_search(0.3, 0.0, 1.0), 0.3);  // lambda 0: the policy alone
  EXPECT_DOUBLE_EQ(mix_with_search(0.3, 1.0, 0.0), 0.0);  // lambda 1: the search alone
  EXPECT_DOUBLE_EQ(mix_with_search(0.3, 0.25, 1.0), 0.75 * 0.3 + 0.25);
  EXPECT_DOUBLE_EQ(mix_with_search(0.3, 0.25, 0.0), 0.75 * 0.3);
  EXPECT_DOUBLE_EQ(mix_with_search(0.3, 0.5, 0.6), 0.45);  // a visit share
}

// The forms the levels and human-eval wrote before the one function, to the bit.
TEST(SearchMixture, BestMoveEqualsTheIndicatorFormToTheBit) {
  for (double lambda : {0.0, 0.1, 0.2718, 0.5, 0.97, 1.0})
    for (double p : {0.0, 1e-7, 0.0625, 0.3333, 0.9}) {
      EXPECT_EQ(mix_with_search(p, lambda, 1.0), (1 - lambda) * p + lambda) << lambda << " " << p;
      EXPECT_EQ(mix_with_search(p, lambda, 0.0), (1 - lambda) * p + 0.0) << lambda << " " << p;
    }
}

TEST(SearchMixture, BestMoveMixesEveryPitAndKeepsASum) {
  std::array<float, kMaxPits> p{};
  p[0] = 0.5f;
  p[3] = 0.3f;
  p[8] = 0.2f;
  const auto before = p;
  mix_with_best_move(p, 0.4, 3);
  for (size_t k = 0; k < p.size(); ++k)
    EXPECT_EQ(p[k], float(0.6 * before[k] + (k == 3 ? 0.4 : 0.0))) << k;
  EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-6);
  EXPECT_EQ(p[1], 0.0f);  // an illegal move stays impossible
  EXPECT_GT(p[3], p[0]);  // the search's move overtook the policy's favourite
}

TEST(SearchMixture, WithoutABestMoveOnlyThePolicyShrinks) {
  std::array<float, kMaxPits> p{};
  p[2] = 1.0f;
  mix_with_best_move(p, 0.25, -1);
  EXPECT_EQ(p[2], 0.75f);
  mix_with_best_move(p, 0.0, 2);  // lambda 0 changes nothing
  EXPECT_EQ(p[2], 0.75f);
}

}  // namespace
}  // namespace kz
