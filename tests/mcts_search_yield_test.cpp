// The search's pause for its host (mcts/search_yield.h): the alpha-beta search, the MCTS
// driver and the Kalah solver call the hook where they poll their stop flag, and a stop
// raised while paused (as the one-thread page engine's worker raises it) ends the search
// at that poll, with a legal move. Without a hook nothing is called. The endgame table
// the perfect level builds first pauses and stops the same way, and goes on later from
// where it stopped.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "mcts/alphabeta.h"
#include "mcts/kalah_solver.h"
#include "mcts/mcts_player.h"
#include "mcts/perfect_player.h"
#include "mcts/rollout_evaluator.h"
#include "mcts/search_yield.h"
#include "tests/test_util.h"

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

TEST(SearchYield, TheEndgameTableBuildPausesStopsAndGoesOnWhereItStopped) {
  const KalahEndgameDb whole = KalahEndgameDb::build(Variant::kKalah, 4, 12);
  KalahEndgameDbBuild build(Variant::kKalah, 4, 12);
  {
    PausingHost host;
    EXPECT_FALSE(build.run(&stop_flag));
    EXPECT_EQ(pauses, 10);  // no poll after the one that saw the stop
  }
  EXPECT_FALSE(build.done());
  EXPECT_THROW(build.take(), std::logic_error);
  int levels = 0;
  EXPECT_TRUE(build.run(nullptr, [&](int, double) { ++levels; }));
  EXPECT_GE(levels, 1);
  EXPECT_LT(levels, 13);  // the levels completed before the stop are not solved again
  const KalahEndgameDb resumed = build.take();
  EXPECT_EQ(resumed.size(), whole.size());
  EXPECT_EQ(resumed.checksum(), whole.checksum());
}

TEST(SearchYield, APerfectLevelStoppedWhileBuildingItsTableMovesAndBuildsOnNextTime) {
  const std::string dir = test::temp_dir("stopped-build");
  const GameSpec spec = GameSpec::parse("kalah:4,3");
  PerfectPlayerOptions o;
  o.egtb_dir = dir;
  o.egtb_seeds = 12;
  o.tt_mib = 8;
  PerfectPlayer player(spec, nullptr, o);
  const Position start = Position::start(spec);
  const std::string table = dir + "/" + egtb_file_name(spec.variant, spec.pits, 12);
  {
    ThinkLimits limits;
    limits.stop = &stop_flag;
    PausingHost host;
    const ThinkResult r = player.think(start, limits);
    EXPECT_EQ(pauses, 10);
    EXPECT_TRUE(start.is_legal(r.best_move));
    EXPECT_FALSE(r.proven);
  }
  EXPECT_FALSE(std::filesystem::exists(table));
  // The table goes on from where it stopped, is saved, and the start is solved with it.
  const ThinkResult r = player.think(start, {});
  EXPECT_TRUE(r.proven);
  EXPECT_TRUE(std::filesystem::exists(table));
  EXPECT_EQ(KalahEndgameDb::load(table).checksum(),
            KalahEndgameDb::build(spec.variant, spec.pits, 12).checksum());
  std::filesystem::remove_all(dir);
}

TEST(SearchYield, ACallMadeWhileItsTableIsBuildingIsToldSo) {
  // Without threads a call made while the build pauses reaches load_or_build_egtb with
  // the table half built: it is told so (EgtbBuildStopped), it never builds it twice.
  static const std::string dir = test::temp_dir("reentrant-build");
  static const GameSpec spec = GameSpec::parse("kalah:4,2");
  static std::string inner;
  stop_flag.store(false);
  pauses = 0;
  set_search_yield_hook([] {
    if (++pauses != 1) return;
    try {
      load_or_build_egtb(spec, 12, dir);
      inner = "built";
    } catch (const EgtbBuildStopped& e) {
      inner = e.what();
    }
  });
  const auto db = load_or_build_egtb(spec, 12, dir);
  set_search_yield_hook(nullptr);
  EXPECT_NE(inner.find("is being built"), std::string::npos) << inner;
  EXPECT_EQ(db->checksum(), KalahEndgameDb::build(spec.variant, spec.pits, 12).checksum());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz
