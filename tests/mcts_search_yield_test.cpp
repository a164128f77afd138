// The search's pause for its host (mcts/search_yield.h): the alpha-beta search, the MCTS
// driver and the Kalah solver call the hook where they poll their stop flag, and a stop
// raised while paused (as the one-thread page engine's worker raises it) ends the search
// at that poll, with a legal move. Without a hook nothing is called.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>

#include "mcts/alphabeta.h"
#include "mcts/kalah_solver.h"
#include "mcts/mcts_player.h"
#include "mcts/rollout_evaluator.h"
#include "mcts/search_yield.h"

namespace kz {
namespace {

// What the hook sees: how often it was called, and the flag it raises on its tenth call.
std::atomic<bool> stop_flag{false};
int pauses = 0;

void stop_on_tenth_pause() {
  if (++pauses == 10) stop_flag.store(true);
}

// Installs the hook for one test and removes it after, whatever happens.
class PausingHost {
 public:
  PausingHost() {
    stop_flag.store(false);
    pauses = 0;
    set_search_yield_hook(&stop_on_tenth_pause);
  }
  ~PausingHost() { set_search_yield_hook(nullptr); }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(SearchYield, NoHookByDefault) {
  EXPECT_FALSE(search_yields());
  yield_search();  // does nothing
  PausingHost host;
  EXPECT_TRUE(search_yields());
  yield_search();
  EXPECT_EQ(pauses, 1);
}

TEST(SearchYield, AlphaBetaPausesAndAStopRaisedMeanwhileEndsIt) {
  const Position start = Position::start(GameSpec::togyz());
  AlphaBetaPlayer player;
  ThinkLimits limits;
  limits.depth = kMaxSearchDepth;  // would take ages
  limits.stop = &stop_flag;
  PausingHost host;
  const auto t0 = std::chrono::steady_clock::now();
  const ThinkResult r = player.think(start, limits);
  EXPECT_LT(seconds_since(t0), 1.0);
  EXPECT_EQ(pauses, 10);  // no poll after the one that saw the stop
  EXPECT_TRUE(start.is_legal(r.best_move));
}

TEST(SearchYield, TheMctsDriverPausesBetweenBatches) {
  const Position start = Position::start(GameSpec::togyz());
  MctsPlayerOptions options;
  options.visits = 1 << 30;
  MctsPlayer player(std::make_shared<RolloutEvaluator>(1), options);
  ThinkLimits limits;
  limits.nodes = options.visits;
  limits.stop = &stop_flag;
  PausingHost host;
  const auto t0 = std::chrono::steady_clock::now();
  const ThinkResult r = player.think(start, limits);
  EXPECT_LT(seconds_since(t0), 1.0);
  EXPECT_EQ(pauses, 10);
  EXPECT_LT(r.nodes, 100000);
  EXPECT_TRUE(start.is_legal(r.best_move));
}

TEST(SearchYield, TheKalahSolverPausesAndStops) {
  KalahSolver solver(8);
  SolveLimits limits;
  limits.stop = &stop_flag;
  PausingHost host;
  const SolveResult r = solver.solve(Position::start(GameSpec::parse("kalah")), limits);
  EXPECT_FALSE(r.solved);
  EXPECT_EQ(pauses, 10);
}

}  // namespace
}  // namespace kz
