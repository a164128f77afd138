// Hostile budgets to the engines: a movetime so large that converting it to
// the clock's nanoseconds overflowed, and NaN, which passes every comparison.
#include <gtest/gtest.h>

#include <cmath>

#include "mcts/alphabeta.h"

namespace kz {
namespace {

TEST(HostileBudget, HugeMovetimeDoesNotStopAlphaBetaAtOnce) {
  // 9.3e12 ms (the probe's `go movetime 9300000000000`) overflowed into a deadline in
  // the past: the search stopped after its first 1,024 nodes.
  AlphaBetaPlayer ab;
  ThinkLimits limits;
  limits.movetime_s = 9.3e9;
  limits.depth = 6;
  const ThinkResult r = ab.think(Position::start(GameSpec::togyz()), limits);
  EXPECT_EQ(r.depth, 6);
  EXPECT_GT(r.nodes, 1024);
  limits.movetime_s = 1e300;
  EXPECT_EQ(ab.think(Position::start(GameSpec::togyz()), limits).depth, 6);
}

TEST(HostileBudget, NanMovetimeIsNoDeadline) {
  AlphaBetaPlayer ab;
  ThinkLimits limits;
  limits.movetime_s = std::nan("");
  limits.depth = 4;
  const ThinkResult r = ab.think(Position::start(GameSpec::kalah(6, 4)), limits);
  EXPECT_EQ(r.depth, 4);
  EXPECT_GE(r.best_move, 0);
}

}  // namespace
}  // namespace kz
