// Mining puzzles (mcts/puzzle_miner.h) on a tiny input with the network-free rollout
// evaluator: a hand-made position with one winning capture is found, confirmed and
// themed; the start position, where no move stands out, is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "mcts/puzzle_miner.h"
#include "mcts/rollout_evaluator.h"

namespace kz {

namespace {

// White (72) against Black (78), 12 stones left: White's hole 9 sows its second stone
// into Black's hole 1 (9 -> 10, even) and captures 10 -> 82, a decided win; White's
// only other move (hole 8) leaves Black to reach 82 first.
Position clear_togyz() {
  return Position::parse("0,0,0,0,0,0,0,1,2/9,0,0,0,0,0,0,0,0 72 78 w", GameSpec::togyz());
}

PuzzleMinerOptions fast_options() {
  PuzzleMinerOptions o;
  o.confirm_visits = 64;
  o.max_rating_visits = 32;
  return o;
}

}  // namespace

TEST(PuzzleMiner, RatingScaleFollowsTheSearchEffort) {
  EXPECT_EQ(puzzle_rating_for_visits(1), 600);
  EXPECT_EQ(puzzle_rating_for_visits(4), 1000);
  EXPECT_EQ(puzzle_rating_for_visits(64), 1800);
  EXPECT_EQ(puzzle_rating_for_visits(1 << 20), kMaxPuzzleRating);
  EXPECT_EQ(puzzle_rating_for_visits(0), 600);
}

TEST(PuzzleMiner, MoverScoreTakesTheMoversSide) {
  const Position parent = Position::start(GameSpec::togyz());
  Position child = parent;
  child.play(0);  // Black to move in the child
  EvalOutput out;
  out.win = 0.7f;
  out.draw = 0.1f;
  out.loss = 0.2f;
  EXPECT_NEAR(mover_score(parent, child, &out), 0.25, 1e-6);  // White's: Black's loss + draw/2
  // A decided child is scored exactly, whatever the evaluator says.
  const Position p = clear_togyz();
  Position won = p;
  won.play(8);
  ASSERT_TRUE(won.is_decided());
  EXPECT_EQ(mover_score(p, won, &out), 1.0);
}

TEST(PuzzleMiner, FindsTheClearPuzzleAndRefusesTheUnclearPosition) {
  auto evaluator = std::make_shared<RolloutEvaluator>(16);
  PuzzleMiner miner(GameSpec::togyz(), evaluator, fast_options());
  const std::vector<PuzzleCandidate> input = {
      {Position::start(GameSpec::togyz()), "start", 1},
      {clear_togyz(), "hand-made", 2},
  };
  const std::vector<size_t> kept = miner.filter(input);
  EXPECT_NE(std::find(kept.begin(), kept.end(), 1u), kept.end());
  EXPECT_GT(miner.evaluations(), 0);

  const auto z = miner.confirm(input[1]);
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(z->key_move(), 8);  // hole 9
  EXPECT_EQ(z->theme, PuzzleTheme::kWinningLine);
  EXPECT_GE(z->gap, 0.30);
  EXPECT_EQ(z->source, "hand-made");
  EXPECT_GE(z->rating, kMinPuzzleRating);
  EXPECT_LE(z->rating, kMaxPuzzleRating);
  EXPECT_EQ(z->id.substr(0, 2), "t-");
  // It writes and reads back as a puzzle file.
  PuzzleSet set{GameSpec::togyz(), {*z}};
  EXPECT_EQ(parse_puzzle_text(format_puzzle_file(set), "mined").puzzles.at(0).solution,
            z->solution);

  EXPECT_FALSE(miner.confirm(input[0]).has_value());  // nine moves, none clearly best
}

TEST(PuzzleMiner, KalahNeedsTheSolverToAgree) {
  // Kalah(6,4): South's pit 1 (4 seeds) ends in the empty pit 5, opposite North's 12
  // seeds: a capture of 13 that wins 28-20; pit 6 gives North the move and loses by 2.
  const GameSpec spec = GameSpec::kalah(6, 4);
  const Position pos = Position::parse("4,0,0,0,0,2/0,12,0,0,0,0 10 20 s", spec);
  auto evaluator = std::make_shared<RolloutEvaluator>(16);
  PuzzleMinerOptions o = fast_options();
  PuzzleMiner without_solver(spec, evaluator, o);
  EXPECT_FALSE(without_solver.confirm({pos, "k", 1}).has_value());
  KalahSolver solver(16);
  PuzzleMiner miner(spec, evaluator, o, &solver);
  const auto z = miner.confirm({pos, "k", 1});
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(z->key_move(), 0);
  EXPECT_EQ(z->theme, PuzzleTheme::kWinningLine);
}

}  // namespace kz
