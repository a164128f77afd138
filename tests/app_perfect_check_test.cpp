// What `kumalak perfect-check` computes, without the binary (tools/perfect_check.h): the
// tally of moves against perfect play, a level's positions judged, and whole games
// against perfect play (a perfect player keeps the perfect margin).
#include <gtest/gtest.h>

#include "mcts/levels.h"
#include "mcts/perfect_player.h"
#include "tools/perfect_check.h"

namespace kz::cli {
namespace {

TEST(PerfectCheck, TheTallyCountsWhatWasKept) {
  MarginTally t;
  EXPECT_EQ(t.text("all"), "all: no positions\n");
  t.add(4, 4);   // margin kept
  t.add(4, 1);   // result kept, 3 lost
  t.add(2, -2);  // result lost, 4 lost
  EXPECT_EQ(t.n, 3);
  EXPECT_EQ(t.keep_margin, 1);
  EXPECT_EQ(t.keep_result, 2);
  EXPECT_EQ(t.worst, 4);
  EXPECT_EQ(t.lost, 7);
  EXPECT_EQ(t.text("all"),
            "all: 3 positions, result kept 66.7 %, margin kept 33.3 %, mean loss 2.33, worst 4\n");
}

TEST(PerfectCheck, ALevelsPositionsAndWholeGames) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  KalahSolver referee(16);
  std::unique_ptr<Player> beginner = make_level_player(spec, Level::kBeginner, "");
  int calls = 0;
  const PositionsCheck check =
      check_positions(spec, *beginner, referee, {}, 12, 3, [&](const PositionsCheck& c) {
        ++calls;
        EXPECT_EQ(c.games, calls);
      });
  EXPECT_EQ(check.all.n, 12);
  EXPECT_EQ(check.unsolved, 0) << "Kalah(4,3) solves without a limit";
  EXPECT_EQ(calls, check.games);
  EXPECT_EQ(check.think_n, 12);
  const std::optional<int> start = perfect_start_margin(spec, referee, {});
  ASSERT_TRUE(start);
  PerfectPlayer perfect(spec, nullptr);
  EXPECT_EQ(play_against_perfect(spec, perfect, referee, 0), *start);
  EXPECT_EQ(play_against_perfect(spec, perfect, referee, 1), -*start);
}

}  // namespace
}  // namespace kz::cli
