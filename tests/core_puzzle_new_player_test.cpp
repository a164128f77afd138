// A new player's puzzle rating (core/puzzle_rating.h new_puzzle_player): it starts at the
// median of the game's shipped puzzles, and one attempt at any of them, solved or failed,
// moves it by at most about 150 (Glicko-2's own start, 1500 +- 350, lost 461 points on
// one failed Togyz puzzle).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/puzzle_file.h"
#include "core/puzzle_rating.h"
#include "tests/test_util.h"

namespace kz {
namespace {

// The most one attempt may move a new player: the step the page promises.
constexpr double kLargestFirstStep = 150;

std::vector<int> ratings_of(const PuzzleSet& set) {
  std::vector<int> ratings;
  for (const Puzzle& z : set.puzzles) ratings.push_back(z.rating);
  return ratings;
}

PuzzleSet shipped(const std::string& stem) {
  return read_puzzle_file(test::source_dir() + "/models/puzzles/" + stem + ".txt");
}

TEST(NewPuzzlePlayer, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(median_puzzle_rating(std::vector<int>{900, 700, 800}), 800);
  EXPECT_EQ(median_puzzle_rating(std::vector<int>{1000, 700, 800, 2000}), 900);
  EXPECT_EQ(median_puzzle_rating(std::vector<int>{701, 700}), 701);  // 700.5 rounds up
  EXPECT_EQ(median_puzzle_rating(std::vector<int>{1234}), 1234);
  EXPECT_THROW(median_puzzle_rating(std::vector<int>{}), std::invalid_argument);
  EXPECT_THROW(new_puzzle_player(PuzzleSet{}), std::invalid_argument);
}

// Each shipped set: the start is its median, not 1500, and the worst first attempt over
// its ratings (solving the hardest, failing the easiest) stays within the promised step.
TEST(NewPuzzlePlayer, StartsAtTheShippedMedianAndMovesAtMost150) {
  for (const char* stem : {"togyz", "kalah"}) {
    SCOPED_TRACE(stem);
    const PuzzleSet set = shipped(stem);
    std::vector<int> ratings = ratings_of(set);
    ASSERT_GE(ratings.size(), 100u);
    std::sort(ratings.begin(), ratings.end());
    const Glicko2Rating start = new_puzzle_player(set);
    EXPECT_GE(start.rating, ratings[(ratings.size() - 1) / 2]);
    EXPECT_LE(start.rating, ratings[ratings.size() / 2]);
    EXPECT_DOUBLE_EQ(start.deviation, kNewPuzzlePlayerDeviation);
    EXPECT_DOUBLE_EQ(start.volatility, Glicko2Rating{}.volatility);
    EXPECT_TRUE(is_sensible_puzzle_rating(start));
    const double worst = largest_puzzle_rating_change(start, ratings);
    EXPECT_LE(worst, kLargestFirstStep) << "a first attempt moves a new player by " << worst;
    // The step is not made small by making it nothing: solving the hardest puzzle still
    // moves the player by most of it.
    EXPECT_GT(worst, 100);
    std::printf(
        "%s: %zu puzzles, a new player starts at %.0f +- %.0f, the largest first step %.1f\n", stem,
        ratings.size(), start.rating, 2 * start.deviation, worst);
  }
}

// The step the old start made over the shipped Togyz set, the one a player saw: failing
// an easy puzzle took 1500 to about 1039. The test above must be able to fail.
TEST(NewPuzzlePlayer, GlickoStartWouldMoveAFirstAttemptFarMore) {
  const std::vector<int> ratings = ratings_of(shipped("togyz"));
  EXPECT_GT(largest_puzzle_rating_change(Glicko2Rating{}, ratings), 400);
  const Glicko2Rating after = rate_puzzle_attempt(Glicko2Rating{}, 800, false);
  EXPECT_LT(after.rating, 1100);
}

// The bound holds whatever the puzzle's rating and wherever the player starts, within the
// clamp range of puzzle ratings: the deviation alone limits the step.
TEST(NewPuzzlePlayer, TheDeviationBoundsTheStepForAnyRating) {
  std::vector<int> every;
  for (int r = kMinPuzzleRating; r <= kMaxPuzzleRating; r += 25) every.push_back(r);
  for (int start = kMinPuzzleRating; start <= kMaxPuzzleRating; start += 100) {
    const Glicko2Rating player{double(start), kNewPuzzlePlayerDeviation, 0.06};
    EXPECT_LE(largest_puzzle_rating_change(player, every), kLargestFirstStep) << start;
  }
}

// Ratings kept before this start (Glicko-2's 1500 +- 350, and whatever followed it) are
// still read and rated as they are: nothing a player kept is refused.
TEST(NewPuzzlePlayer, RatingsKeptBeforeStillWork) {
  const Glicko2Rating kept{1039.2, 290.5, 0.06};
  EXPECT_TRUE(is_sensible_puzzle_rating(Glicko2Rating{}));
  EXPECT_TRUE(is_sensible_puzzle_rating(kept));
  const Glicko2Rating after = rate_puzzle_attempt(kept, 800, true);
  EXPECT_GT(after.rating, kept.rating);
  EXPECT_LT(after.deviation, kept.deviation);
}

TEST(NewPuzzlePlayer, LargestChangeOfNoRatingsIsNone) {
  EXPECT_EQ(largest_puzzle_rating_change(Glicko2Rating{}, std::vector<int>{}), 0);
}

}  // namespace
}  // namespace kz
