// core/puzzle_calibration.h: the scores of a puzzle file's attempts (found share,
// log-loss against the one-rating baseline, calibration by margin, ordering), the
// comparison of two files on shared attempts, and why a puzzle gives no attempt.
#include <gtest/gtest.h>

#include <numeric>

#include "core/puzzle_calibration.h"

namespace kz {
namespace {

std::vector<Attempt> sample_attempts() {
  // Players far above their puzzles find them; far below, they miss them.
  return {{"a", 1800, 1200, true},  {"b", 1700, 1300, true},  {"c", 1500, 1450, true},
          {"d", 1400, 1500, false}, {"e", 1200, 1700, false}, {"f", 1300, 1250, false}};
}

TEST(PuzzleCalibration, TheChanceOfAnAttemptStaysAProbability) {
  EXPECT_NEAR(attempt_chance(1500, 1500), 0.5, 1e-9);
  EXPECT_GT(attempt_chance(1900, 1500), 0.5);
  EXPECT_GE(attempt_chance(100, 3500), 1e-6);
  EXPECT_LE(attempt_chance(3500, 100), 1 - 1e-6);
}

TEST(PuzzleCalibration, OrderingAucCountsFoundAboveMissedPairs) {
  const auto attempts = sample_attempts();
  // Margins found: 600, 400, 50; missed: -100, -500, 50 (one tie): 8.5 of 9 pairs.
  EXPECT_NEAR(ordering_auc(attempts), 8.5 / 9, 1e-12);
  EXPECT_EQ(ordering_auc({}), 0);
}

TEST(PuzzleCalibration, TheSummaryOfAFilesAttempts) {
  auto attempts = sample_attempts();
  attempts[2] = {"c", 1900, 1300, true};   // margins 600, 400, 600 found,
  attempts[5] = {"f", 1100, 1600, false};  // -100, -500, -500 missed
  const AttemptSummary s = summarize_attempts(attempts, true);
  EXPECT_NEAR(s.found, 0.5, 1e-12);
  EXPECT_GT(s.log_loss, 0);
  // The ratings order these attempts well: better than one rating for all of them.
  EXPECT_LT(s.log_loss, s.constant_log_loss);
  ASSERT_EQ(s.by_margin.size(), 6u);
  int binned = 0;
  for (const MarginBin& b : s.by_margin) binned += b.attempts;
  EXPECT_EQ(binned, 6);
  EXPECT_EQ(s.by_margin.back().from, 400);
  EXPECT_EQ(s.by_margin.back().attempts, 3);  // 600, 400 and 600
  EXPECT_EQ(s.by_margin.back().found, 1.0);
  ASSERT_TRUE(s.fitted_scale.has_value());
  EXPECT_LE(s.fitted_log_loss, s.log_loss + 1e-9);  // fitted to these very attempts
  EXPECT_FALSE(summarize_attempts(attempts, false).fitted_scale.has_value());
}

TEST(PuzzleCalibration, TwoFilesOnTheAttemptsTheyShare) {
  const auto first = sample_attempts();
  const PairedLogLoss same = compare_log_loss(first, first);
  EXPECT_EQ(same.shared_attempts, 6u);
  ASSERT_TRUE(same.difference.has_value());
  EXPECT_EQ(*same.difference, 0);
  EXPECT_EQ(same.low, 0);
  auto worse = first;
  for (Attempt& a : worse) a.puzzle_rating = 1500;  // every puzzle rated alike
  const PairedLogLoss c = compare_log_loss(first, worse);
  EXPECT_GT(*c.difference, 0);
  EXPECT_LT(c.low, *c.difference);
  EXPECT_GT(c.high, *c.difference);
  const PairedLogLoss one = compare_log_loss(first, {first[0]});
  EXPECT_EQ(one.shared_attempts, 1u);
  EXPECT_FALSE(one.difference.has_value());  // no interval from one attempt
}

TEST(PuzzleCalibration, PuzzlesWithoutARecordedGameGiveNoAttempt) {
  PuzzleSet set;
  set.spec = GameSpec::togyz();
  Puzzle from_selfplay;
  from_selfplay.source = "self-play game 3";
  Puzzle lost_game;
  lost_game.source = "missing.pgn game 2 (a vs b) ply 10";
  set.puzzles = {from_selfplay, lost_game};
  const FileAttempts fa = real_attempts(set, {}, FoldSelection::kAll);
  EXPECT_TRUE(fa.attempts.empty());
  EXPECT_EQ(fa.skipped.at("not_from_a_recorded_game"), 1);
  EXPECT_EQ(fa.skipped.at("game_not_found"), 1);
}

}  // namespace
}  // namespace kz
