// What `kumalak-gate ladder` does around its matches (train/ladder_run.h): the anchor,
// the earlier ladders' matches and which pairs they spare, and the shipped marks.
#include <gtest/gtest.h>

#include <stdexcept>

#include "test_util.h"
#include "train/gate.h"
#include "train/ladder_run.h"

namespace kz {
namespace {

TEST(LadderRun, TheAnchorIsGivenOrTheFirstModel) {
  EXPECT_EQ(ladder_anchor("gen0003", {"run/gen0001.pt"}), "gen0003");
  EXPECT_EQ(ladder_anchor("", {"run/gen0001.pt", "run/gen0002.pt"}), "gen0001");
  EXPECT_EQ(ladder_anchor("", {}), "gen0000");
}

TEST(LadderRun, EarlierMatchesJoinAndSpareThePairsOfTheSameSettings) {
  const std::string dir = test::temp_dir("ladder_run");
  const PairResult same{"gen0002", "gen0001", 3, 1, 2, "abc"};
  const PairResult other{"gen0003", "gen0002", 4, 0, 2, "def"};
  const PairResult old{"gen0003", "gen0001", 1, 1, 1, ""};
  test::write_bytes(dir + "/a.jsonl", ladder_match_line(same, 50) + "\n");
  test::write_bytes(dir + "/b.jsonl",
                    ladder_match_line(other, 100) + "\n" + ladder_match_line(old, 0) + "\n");
  const EarlierLadders earlier = read_earlier_ladders({dir + "/a.jsonl", dir + "/b.jsonl"}, "abc");
  ASSERT_EQ(earlier.results.size(), 3u);
  EXPECT_EQ(earlier.results[0].a, "gen0002");
  EXPECT_EQ(earlier.results[1].wins, 4);
  EXPECT_EQ(earlier.results[2].b, "gen0001");
  // Only the pair of the same settings is spared, its names in minmax order.
  ASSERT_EQ(earlier.played.size(), 1u);
  EXPECT_EQ(*earlier.played.begin(),
            std::make_pair(std::string("gen0001"), std::string("gen0002")));
  EXPECT_EQ(earlier.log_text,
            test::read_bytes(dir + "/a.jsonl") + test::read_bytes(dir + "/b.jsonl"));
  EXPECT_THROW(read_earlier_ladders({dir + "/missing.jsonl"}, "abc"), std::exception);
}

TEST(LadderRun, ShippedPlayersAreMarkedByDisplayName) {
  LadderFit fit;
  fit.ratings.resize(2);
  fit.ratings[0].name = "gen0000";
  fit.ratings[1].name = "gen0004";
  mark_shipped(fit, {"models/gen0004.pt"});
  EXPECT_FALSE(fit.ratings[0].shipped);
  EXPECT_TRUE(fit.ratings[1].shipped);
  EXPECT_THROW(mark_shipped(fit, {"gen0009"}), std::invalid_argument);
}

}  // namespace
}  // namespace kz
