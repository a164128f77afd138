// The accuracy formula (mcts/accuracy.h) on cases computed by hand.
#include <gtest/gtest.h>

#include <vector>

#include "mcts/accuracy.h"

namespace kz {

TEST(Accuracy, MoveAccuracyByHand) {
  EXPECT_NEAR(move_accuracy(0.0), 99.9999, 1e-4);   // 103.1668 - 3.1669
  EXPECT_NEAR(move_accuracy(0.10), 63.5826, 1e-3);  // 103.1668 e^-0.4354 - 3.1669
  EXPECT_NEAR(move_accuracy(0.35), 19.3091, 1e-3);  // a blunder's threshold
  EXPECT_EQ(move_accuracy(1.0), 0.0);               // below 0: clamped
  EXPECT_NEAR(move_accuracy(-0.2), 99.9999, 1e-4);  // no gain above the engine's move
}

TEST(Accuracy, GameAccuracyByHand) {
  EXPECT_FALSE(game_accuracy(std::vector<double>{}).has_value());
  // {99.9999, 63.5826}: mean 81.7913, harmonic 77.7376 -> 79.7644.
  EXPECT_NEAR(*game_accuracy(std::vector<double>{0.0, 0.10}), 79.7644, 1e-3);
  // One lost game in three perfect moves: {99.9999, 0 -> 1, 99.9999}: mean 66.6666,
  // harmonic 3 / (1/99.9999 + 1 + 1/99.9999) = 2.9412 -> 34.8039.
  EXPECT_NEAR(*game_accuracy(std::vector<double>{0.0, 1.0, 0.0}), 34.8039, 1e-3);
}

TEST(Accuracy, OnlyTheSidesJudgedMovesCount) {
  GameAnalysis ga;
  auto add = [&](int mover, bool judged, double drop) {
    MoveJudgement j;
    j.mover = mover;
    j.judged = judged;
    j.drop = drop;
    ga.moves.push_back(j);
  };
  add(0, true, 0.0);
  add(1, true, 1.0);
  add(0, true, 0.10);
  add(0, false, 1.0);  // the result was fixed: not judged
  EXPECT_NEAR(*game_accuracy(ga, 0), 79.7644, 1e-3);
  EXPECT_NEAR(*game_accuracy(ga, 1), 0.5, 1e-9);  // mean 0, harmonic over max(0, 1) = 1
  GameAnalysis empty;
  EXPECT_FALSE(game_accuracy(empty, 0).has_value());
}

}  // namespace kz
