// The search mixture's fit and measure (train/human_fits.h) on rows made by hand: players
// who play the search's move far more often than the policy says get a lambda above 0,
// and the validation bins show the mixture helping; the search's probability of a move
// is its best move's indicator or its visit share.
#include <gtest/gtest.h>

#include "nn_test_util.h"
#include "train/human_fits.h"

namespace kz {
namespace {

TEST(HumanFits, TheSearchsProbabilityOfAMove) {
  SearchAnswer a;
  a.best_move = 3;
  a.share[3] = 0.75f;
  a.share[1] = 0.25f;
  EXPECT_EQ(search_probability(a, 3, false), 1.0);
  EXPECT_EQ(search_probability(a, 1, false), 0.0);
  EXPECT_EQ(search_probability(a, 1, true), 0.25);
  EXPECT_EQ(search_probability(a, 3, true), 0.75);
}

TEST(HumanFits, PlayersWhoFollowTheSearchGetAMixture) {
  const GameSpec spec = GameSpec::togyz();
  const Position start = Position::start(spec);
  // The policy gives pit 0 a half and pit 4 a tenth; the search's move is pit 4, and the
  // players play it four times in five.
  std::vector<HumanSample> samples;
  for (int i = 0; i < 200; ++i)
    samples.push_back({start, i % 5 == 0 ? 0 : 4, 1000 + 5 * i, false, 0});
  std::vector<MixRow> rows;
  for (const HumanSample& s : samples) {
    MixRow row;
    row.sample = &s;
    row.policy.fill(0.05f);
    row.policy[0] = 0.5f;
    row.policy[4] = 0.1f;
    row.search.best_move = 4;
    row.search.share[4] = 1.f;
    rows.push_back(row);
  }
  const HumanHeadInfo info = test::human_range(800, 2200, 1400);
  const SearchMixReport r = fit_search_mix_rows(info, rows, rows, false, 32);
  EXPECT_EQ(r.info.search_mix_visits, 32);
  EXPECT_EQ(r.info.search_mix_weights, r.fit.weights);
  EXPECT_GT(human_search_mix(r.info, 1500), 0.3);
  EXPECT_GT(r.fit.loglik_after, r.fit.loglik_before);
  const SearchMixBin& all = r.bins.at(-2);
  EXPECT_EQ(all.n, 200);
  EXPECT_EQ(all.top1_before, 40);  // the policy's pit 0
  EXPECT_EQ(all.top1_after, 160);  // the search's pit 4
  EXPECT_GT(all.ll_after, all.ll_before);
  int64_t binned = 0;
  for (const auto& [key, b] : r.bins)
    if (key >= 0) binned += b.n;
  EXPECT_EQ(binned, 200);
  EXPECT_FALSE(r.bins.contains(-1));  // no titled player
}

}  // namespace
}  // namespace kz
