// The time manager's budgets at their edges: mcts/time_manager.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/notation.h"
#include "core/position.h"
#include "mcts/alphabeta.h"
#include "mcts/time_manager.h"
#include "tests/test_util.h"

namespace kz {
namespace {

const Position kTogyzStart = Position::start(GameSpec::togyz());

MoveClock clock_of(int64_t left, int64_t inc = 0, int moves_to_go = 0) {
  return MoveClock{left, inc, moves_to_go};
}

TEST(TimeManager, MovesLeftFollowTheStonesOnTheBoard) {
  EXPECT_EQ(estimated_moves_left(kTogyzStart), 70);
  // 10 stones on the board: halfway between the 5 (7 moves) and 15 (15 moves) points.
  const Position end =
      Position::parse("10,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 80 72 w", GameSpec::togyz());
  EXPECT_EQ(estimated_moves_left(end), 11);
  const Position mid =
      Position::parse("5,5,5,5,5,5,5,5,5/5,5,5,5,5,0,0,0,0 60 32 w", GameSpec::togyz());
  EXPECT_EQ(estimated_moves_left(mid), 56);  // 70 stones: between 53 (65) and 58 (75)
  EXPECT_LT(estimated_moves_left(end), estimated_moves_left(mid));
  EXPECT_LT(estimated_moves_left(mid), estimated_moves_left(kTogyzStart));
  EXPECT_EQ(estimated_moves_left(Position::start(GameSpec::kalah(6, 4))), 26);
}

// A Togyz position, White to move, with `board` stones spread over both rows and the
// rest in the kazans (neither at 82).
Position togyz_with_board_stones(int board) {
  Position p = Position::start(GameSpec::togyz());
  p.pits.fill(0);
  for (int i = 0; i < board; ++i) ++p.pits[(i % 18) / 9 * kMaxPits + i % 9];
  const int rest = kTogyzStones - board;
  p.store = {uint8_t(rest / 2), uint8_t(rest - rest / 2)};
  return p;
}

// The table of estimated_moves_left is the recorded games' own: at each ten stones on the
// board, the plies left within which four games in five ended, halved and rounded up
// (from 100 stones on, where the games barely differ, one value inside their range).
TEST(TimeManager, MovesLeftAreTheRecordedGamesOwn) {
  const std::string dir = test::shared_data_dir();
  if (dir.empty())
    GTEST_SKIP() << "no recorded games: " << test::configured_shared_data_dir()
                 << "/togyz/*.pgn is absent (set -DKZ_SHARED_DATA=... to run this test)";
  std::map<int, std::vector<int>> plies_left;  // bucket of ten stones on the board
  int games = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/togyz")) {
    if (e.path().extension() != ".pgn") continue;
    for (const GameRecord& g : read_pgn_file(e.path().string())) {
      const Position start = record_start(g, GameSpec::togyz());
      const ReplayResult r = replay_record(g, start);
      ++games;
      Position p = start;
      for (int k = 0; k < r.plies; ++k) {
        const int board = p.total_stones() - p.store[0] - p.store[1];
        plies_left[board / 10].push_back(r.plies - k);
        p.play(r.moves[k]);
      }
    }
  }
  EXPECT_EQ(games, 3714);
  int lo = 1000, hi = 0;
  for (auto& [bucket, v] : plies_left) {
    std::sort(v.begin(), v.end());
    const int moves = (v[v.size() * 8 / 10] + 1) / 2;
    if (bucket < 10) {
      EXPECT_EQ(estimated_moves_left(togyz_with_board_stones(bucket * 10 + 5)), moves)
          << bucket * 10 << ".." << bucket * 10 + 9 << " stones on the board";
    } else {
      lo = std::min(lo, moves);
      hi = std::max(hi, moves);
    }
  }
  const int many = estimated_moves_left(togyz_with_board_stones(150));
  EXPECT_GE(many, lo);
  EXPECT_LE(many, hi);
}

TEST(TimeManager, TheLevelsBudgetIsKeptWhenTimeIsPlenty) {
  ThinkLimits own;
  own.movetime_s = 1.0;
  const ThinkLimits l = limits_under_clock(kTogyzStart, clock_of(3600000), own);
  EXPECT_DOUBLE_EQ(l.movetime_s, 1.0);
  // A budget of nodes and depth stays, with the clock's cap added.
  ThinkLimits work;
  work.nodes = 60000;
  work.depth = 3;
  const ThinkLimits w = limits_under_clock(kTogyzStart, clock_of(3600000), work);
  EXPECT_EQ(w.nodes, 60000);
  EXPECT_EQ(w.depth, 3);
  EXPECT_GT(w.movetime_s, 10.0);
  // An engine that gives no budget gets the clock's share: (60 s / 70) - 50 ms.
  const ThinkLimits none = limits_under_clock(kTogyzStart, clock_of(60000), ThinkLimits{});
  EXPECT_NEAR(none.movetime_s, 60.0 / 70 - 0.05, 1e-9);
}

TEST(TimeManager, ShortOfTimeItThinksLess) {
  ThinkLimits own;
  own.movetime_s = 1.0;
  // 10 s for 70 moves: 93 ms (10000 / 70 - 50).
  const ThinkLimits l = limits_under_clock(kTogyzStart, clock_of(10000), own);
  EXPECT_NEAR(l.movetime_s, 10.0 / 70 - 0.05, 1e-9);
  // The increments of the coming moves count: 10 s + 0.1 s.
  const ThinkLimits i = limits_under_clock(kTogyzStart, clock_of(10000, 100), own);
  EXPECT_NEAR(i.movetime_s, (10000.0 + 100 * 69) / 70 / 1000 - 0.05, 1e-9);
}

TEST(TimeManager, VeryLowTimeStillAnswersButNeverWithZero) {
  TimeManagerOptions o;
  for (int64_t left : {60, 50, 30, 1, 0, -5, -100000}) {
    const double s = clock_move_seconds(kTogyzStart, clock_of(left), o);
    EXPECT_DOUBLE_EQ(s, o.min_think_s) << left;
    EXPECT_GT(s, 0) << left;  // 0 would mean "no limit" to the engines
  }
}

TEST(TimeManager, MovesToGoOneMaySpendAllButTheOverhead) {
  EXPECT_NEAR(clock_move_seconds(kTogyzStart, clock_of(5000, 0, 1)), 4.95, 1e-9);
  // Two to go: half of the time and one increment, but no more than the share.
  EXPECT_NEAR(clock_move_seconds(kTogyzStart, clock_of(5000, 1000, 2)), 2.25, 1e-9);
  // movestogo replaces the estimate even where the board says more moves are left.
  EXPECT_NEAR(clock_move_seconds(kTogyzStart, clock_of(100000, 0, 10)), 9.95, 1e-9);
}

TEST(TimeManager, AHugeIncrementIsNeverSpentBeforeItArrives) {
  // 1 s on the clock and 60 s to come after the move: still at most 1 s less the overhead.
  EXPECT_NEAR(clock_move_seconds(kTogyzStart, clock_of(1000, 60000)), 0.95, 1e-9);
  EXPECT_NEAR(clock_move_seconds(kTogyzStart, clock_of(1000, 60000, 1)), 0.95, 1e-9);
}

TEST(TimeManager, TheOverheadIsConfigurable) {
  TimeManagerOptions o;
  o.move_overhead_ms = 0;
  EXPECT_NEAR(clock_move_seconds(kTogyzStart, clock_of(5000, 0, 1), o), 5.0, 1e-9);
  o.move_overhead_ms = 1000;
  EXPECT_NEAR(clock_move_seconds(kTogyzStart, clock_of(5000, 0, 1), o), 4.0, 1e-9);
}

// Whatever the clock says, a move given its budget plus less than the overhead (the
// search's overshoot) never spends more than the mover has.
TEST(TimeManager, NeverMoreThanTheClockHolds) {
  std::mt19937_64 rng(5);
  TimeManagerOptions o;
  for (int i = 0; i < 20000; ++i) {
    const int64_t left = int64_t(rng() % 4000000);
    const int64_t inc = int64_t(rng() % 3) == 0 ? 0 : int64_t(rng() % 120000);
    const int mtg = int(rng() % 4 == 0 ? rng() % 40 : 0);
    const double s = clock_move_seconds(kTogyzStart, clock_of(left, inc, mtg), o);
    if (left > o.move_overhead_ms) {
      EXPECT_LE(s * 1000, double(left - o.move_overhead_ms) + 1e-6)
          << left << " " << inc << " " << mtg;
    }
  }
}

// A whole game at 10 s + 0.1 s where every move overshoots its budget by 40 ms (less
// than the 50 ms overhead) and the game lasts far longer than estimated: no flag.
TEST(TimeManager, ALongGameAtTenSecondsPlusATenthDoesNotFlag) {
  int64_t left = 10000;
  for (int move = 0; move < 400; ++move) {
    const double s = clock_move_seconds(kTogyzStart, clock_of(left, 100));
    left -= int64_t(s * 1000) + 40;
    ASSERT_GE(left, 0) << "move " << move;
    left += 100;
  }
  EXPECT_GT(left, 100);
}

TEST(TimeManager, AlphaBetaBudgetIsItsOptions) {
  AlphaBetaOptions o;
  o.depth = 3;
  EXPECT_EQ(AlphaBetaPlayer(o).budget().depth, 3);
  EXPECT_EQ(AlphaBetaPlayer(o).budget().movetime_s, 0);
  // Without any limit of its own, the 1 s think() plays by.
  EXPECT_EQ(AlphaBetaPlayer(AlphaBetaOptions{}).budget().movetime_s, 1.0);
}

// The alpha-beta engine given a clock's tiny budget still answers with a legal move.
TEST(TimeManager, AMillisecondStillGivesALegalMove) {
  AlphaBetaPlayer p;
  const ThinkLimits l = limits_under_clock(kTogyzStart, clock_of(10), p.budget());
  EXPECT_DOUBLE_EQ(l.movetime_s, 0.001);
  const ThinkResult r = p.think(kTogyzStart, l);
  EXPECT_TRUE(kTogyzStart.is_legal(r.best_move));
  EXPECT_LT(r.seconds, 0.05);
}

}  // namespace
}  // namespace kz
