// Policy surprise weighting (train/selfplay.h, [selfplay] surprise_weight): the surprise
// of a search, how many copies of each row a game writes, and self-play with it on.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "tests/test_util.h"
#include "train/config.h"
#include "train/selfplay.h"
#include "train/shard.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

TEST(PolicySurprise, IsTheKlDivergenceOfTheSearchFromThePrior) {
  std::array<float, kMaxMoves> prior{}, target{};
  for (int m = 0; m < 4; ++m) prior[m] = target[m] = 0.25f;
  EXPECT_NEAR(policy_surprise(target, prior), 0, 1e-6);
  target = {};
  target[2] = 1;
  EXPECT_NEAR(policy_surprise(target, prior), std::log(4.0), 1e-5);
  // A move the prior gave nothing: counted as 1e-6, not infinite.
  target = {};
  target[5] = 1;
  EXPECT_NEAR(policy_surprise(target, prior), std::log(1e6), 1e-3);
}

TEST(PolicySurprise, CopiesFollowTheWeights) {
  std::mt19937_64 rng(1);
  const std::vector<float> surprise = {-1, 0, 1, 2, -1};  // fast, three full, fast
  EXPECT_EQ(surprise_copies(surprise, 0, rng), std::vector<int>(5, 1));
  // s = 1: weights surprise / mean (mean 1): 0, 1, 2 exactly.
  EXPECT_EQ(surprise_copies(surprise, 1, rng), (std::vector<int>{1, 0, 1, 2, 1}));
  // s = 0.5: weights 0.5, 1, 1.5; on average over many games.
  std::vector<double> mean(5, 0);
  const int games = 20000;
  for (int i = 0; i < games; ++i) {
    const std::vector<int> c = surprise_copies(surprise, 0.5f, rng);
    for (size_t k = 0; k < c.size(); ++k) mean[k] += double(c[k]) / games;
  }
  EXPECT_NEAR(mean[0], 1, 1e-9);
  EXPECT_NEAR(mean[1], 0.5, 0.02);
  EXPECT_NEAR(mean[2], 1, 1e-9);
  EXPECT_NEAR(mean[3], 1.5, 0.02);
  EXPECT_NEAR(mean[4], 1, 1e-9);
  // Nothing surprising at all: every row once.
  EXPECT_EQ(surprise_copies(std::vector<float>{0, 0, -1}, 1, rng), std::vector<int>(3, 1));
}

// The same seeded games with and without the weighting (the copies are drawn after a
// game ends): fast-search rows are written once either way, full-search rows as often
// as their surprise says, copies next to each other, and about as many in total.
TEST(PolicySurprise, SelfplayWritesSurprisingRowsMoreOften) {
  const std::string dir = test::temp_dir("kz-surprise");
  RunConfig config = load_config(test::source_dir() + "/configs/tiny.toml");
  config.search_threads = 1;
  auto play = [&](float weight, const std::string& out) {
    SelfplayOptions o;
    o.config = config;
    o.config.selfplay.surprise_weight = weight;
    o.out_dir = dir + "/" + out;
    o.show_progress = false;
    std::vector<ShardRow> rows;
    for (const std::string& shard : play_selfplay_games(o, "w", 0, 24).shards)
      for (const ShardRow& r : ShardReader::read(shard)) rows.push_back(r);
    return rows;
  };
  const std::vector<ShardRow> plain = play(0, "plain"), weighted = play(1, "weighted");
  auto key = [](const ShardRow& r) {
    return r.pos.to_string() + " " + std::to_string(r.ply) + " " + std::to_string(r.game_id);
  };
  std::map<std::string, int> plain_count, weighted_count;
  int plain_fast = 0, weighted_fast = 0, plain_full = 0, weighted_full = 0;
  for (const ShardRow& r : plain) {
    plain_count[key(r)]++;
    (r.full_search() ? plain_full : plain_fast)++;
  }
  for (const ShardRow& r : weighted) {
    weighted_count[key(r)]++;
    (r.full_search() ? weighted_full : weighted_fast)++;
  }
  EXPECT_EQ(weighted_fast, plain_fast);
  ASSERT_GT(plain_full, 20);
  EXPECT_GT(weighted_full, plain_full * 6 / 10);
  EXPECT_LT(weighted_full, plain_full * 14 / 10);
  int repeated = 0;
  for (const auto& [k, n] : weighted_count) {
    EXPECT_TRUE(plain_count.count(k)) << k << " was not played without the weighting";
    repeated += n > 1;
  }
  EXPECT_GT(repeated, 0);
  EXPECT_LT(weighted_count.size(), plain_count.size());  // some rows written 0 times
  // Copies of a row are contiguous (a game's rows stay in order).
  for (size_t i = 1; i < weighted.size(); ++i) {
    if (weighted[i].ply < weighted[i - 1].ply) {
      EXPECT_NE(weighted[i].game_id, weighted[i - 1].game_id) << "row " << i;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
