// Puzzle ratings from the shipped human model: the key move's chance at each rating of
// the head's range is the policy's own probability, and the rating follows from those
// chances (core/puzzle_rating.h), lower for a move players make more often.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "core/puzzle_rating.h"
#include "nn/puzzle_human_rating.h"
#include "test_util.h"

namespace kz {
namespace {

HumanHead shipped_human_policy() {
  const GameSpec spec = GameSpec::togyz();
  return HumanHead(load_plain_model(test::source_dir() + "/models/togyz-human.pt", &spec));
}

Puzzle puzzle_at(const Position& pos, int key_move, const std::string& id) {
  Puzzle z;
  z.id = id;
  z.position = pos;
  z.solution = {key_move};
  return z;
}

TEST(PuzzleHumanRating, TheGridCoversTheRangeInStepsOf100) {
  HumanHeadInfo info;
  info.rating_min = 800;
  info.rating_max = 2200;
  const std::vector<int> full = human_puzzle_rating_grid(info);
  ASSERT_EQ(full.size(), 15u);
  EXPECT_EQ(full.front(), 800);
  EXPECT_EQ(full.back(), 2200);
  info.rating_max = 2150;
  EXPECT_EQ(human_puzzle_rating_grid(info).back(), 2150);
  EXPECT_EQ(human_puzzle_rating_grid(info).size(), 15u);
}

// One puzzle per legal move of the start position: the chances of all nine key moves
// are the policy's whole distribution at every rating, so they sum to one; the move
// players make most often rates lowest, the rarest highest.
TEST(PuzzleHumanRating, ChancesAreThePolicysAndCommonMovesRateLower) {
  HumanHead policy = shipped_human_policy();
  const Position start = Position::start(GameSpec::togyz());
  std::vector<Puzzle> puzzles;
  for (int m = 0; m < 9; ++m) puzzles.push_back(puzzle_at(start, m, "t-" + std::to_string(m)));
  const std::vector<int> grid = human_puzzle_rating_grid(policy.info());
  const auto chances = key_move_chances(policy, puzzles, grid);
  ASSERT_EQ(chances.size(), 9u);
  for (size_t g = 0; g < grid.size(); ++g) {
    double sum = 0;
    for (const auto& c : chances) sum += c[g];
    EXPECT_NEAR(sum, 1.0, 1e-4) << grid[g];
  }
  const std::vector<int> ratings = human_puzzle_ratings(policy, puzzles);
  const std::vector<std::array<float, kMaxPits>> at_1500 =
      policy.probabilities(std::vector<Position>{start}, 1500);
  int common = 0, rare = 0;
  for (int m = 1; m < 9; ++m) {
    if (at_1500[0][m] > at_1500[0][common]) common = m;
    if (at_1500[0][m] < at_1500[0][rare]) rare = m;
  }
  EXPECT_LT(ratings[common], ratings[rare]);
  const std::vector<int> raw = human_puzzle_ratings(policy, puzzles, PuzzleRatingScale{});
  EXPECT_EQ(raw[rare], puzzle_rating_from_chances(grid, chances[rare]));
  for (int m = 0; m < 9; ++m) {
    EXPECT_EQ(ratings[m],
              kHumanPuzzleRatingScale.apply(puzzle_rating_from_chances(grid, chances[m])))
        << m;
    EXPECT_GE(ratings[m], kMinPuzzleRating);
    EXPECT_LE(ratings[m], kMaxPuzzleRating);
  }
}

TEST(PuzzleHumanRating, RefusesAnotherGamesPuzzleAndAnIllegalKeyMove) {
  HumanHead policy = shipped_human_policy();
  const std::vector<int> grid = human_puzzle_rating_grid(policy.info());
  const Puzzle kalah = puzzle_at(Position::start(GameSpec::kalah(6, 4)), 0, "k-1");
  EXPECT_THROW(key_move_chances(policy, std::vector<Puzzle>{kalah}, grid), std::invalid_argument);
  Puzzle illegal = puzzle_at(Position::start(GameSpec::togyz()), 9, "t-9");  // no tenth hole
  EXPECT_THROW(key_move_chances(policy, std::vector<Puzzle>{illegal}, grid), std::invalid_argument);
}

}  // namespace
}  // namespace kz
