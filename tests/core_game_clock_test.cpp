// The two-sided clock at its exact edges and the flag rule: core/game_clock.h. The clock
// reads a counter the test sets, so every millisecond is the test's.
#include <gtest/gtest.h>

#include <memory>

#include "core/game_clock.h"
#include "core/position.h"

namespace kz {
namespace {

struct FakeTime {
  std::shared_ptr<int64_t> ms = std::make_shared<int64_t>(1000);
  GameClock::Now now() const {
    return [ms = ms] { return *ms; };
  }
  void pass(int64_t d) const { *ms += d; }
};

TEST(GameClock, OnlyTheRunningSideLosesTime) {
  FakeTime t;
  GameClock c({60000, 0}, t.now());
  EXPECT_EQ(c.running(), -1);
  t.pass(5000);  // nothing runs before start()
  EXPECT_EQ(c.remaining_ms(0), 60000);
  c.start(0);
  t.pass(1500);
  EXPECT_EQ(c.remaining_ms(0), 58500);
  EXPECT_EQ(c.remaining_ms(1), 60000);
  c.start(0);  // already running: no restart, nothing lost or gained
  t.pass(500);
  EXPECT_EQ(c.remaining_ms(0), 58000);
  c.pause();
  t.pass(10000);
  EXPECT_EQ(c.remaining_ms(0), 58000);
  EXPECT_EQ(c.running(), -1);
}

TEST(GameClock, IncrementAfterEachMoveInTime) {
  FakeTime t;
  GameClock c({10000, 100}, t.now());
  c.start(0);
  t.pass(2000);
  GameClock::MoveTiming m = c.move_done(1);
  EXPECT_EQ(m.used_ms, 2000);
  EXPECT_TRUE(m.in_time);
  EXPECT_EQ(m.remaining_ms, 8100);
  EXPECT_EQ(c.remaining_ms(0), 8100);
  EXPECT_EQ(c.running(), 1);
  t.pass(0);  // an instant reply still earns the increment
  m = c.move_done(0);
  EXPECT_EQ(m.used_ms, 0);
  EXPECT_EQ(c.remaining_ms(1), 10100);
}

TEST(GameClock, TheMoveThatTakesTheLastMillisecondIsInTime) {
  FakeTime t;
  GameClock c({1000, 50}, t.now());
  c.start(0);
  t.pass(1000);
  EXPECT_EQ(c.remaining_ms(0), 0);
  EXPECT_FALSE(c.flagged(0));  // exactly 0 left: not yet out
  const GameClock::MoveTiming m = c.move_done(1);
  EXPECT_TRUE(m.in_time);
  EXPECT_EQ(m.remaining_ms, 50);  // 0 + the increment
  EXPECT_FALSE(c.flagged(0));
}

TEST(GameClock, OneMillisecondMoreAndTheFlagFalls) {
  FakeTime t;
  GameClock c({1000, 50}, t.now());
  c.start(0);
  t.pass(1001);
  EXPECT_TRUE(c.flagged(0));
  EXPECT_EQ(c.remaining_ms(0), -1);
  const GameClock::MoveTiming m = c.move_done(1);
  EXPECT_FALSE(m.in_time);
  EXPECT_EQ(m.remaining_ms, -1);  // no increment for a move after the flag
  EXPECT_TRUE(c.flagged(0));
  EXPECT_FALSE(c.flagged(1));
}

TEST(GameClock, AKalahExtraTurnKeepsTheSameSideRunning) {
  FakeTime t;
  GameClock c({5000, 1000}, t.now());
  c.start(0);
  t.pass(300);
  c.move_done(0);  // the same side again
  EXPECT_EQ(c.running(), 0);
  EXPECT_EQ(c.remaining_ms(0), 5700);
  t.pass(700);
  EXPECT_EQ(c.remaining_ms(0), 5000);
}

TEST(GameClock, MoveDoneWithoutARunningClockChangesNothing) {
  FakeTime t;
  GameClock c({5000, 1000}, t.now());
  t.pass(300);
  const GameClock::MoveTiming m = c.move_done(-1);
  EXPECT_EQ(m.used_ms, 0);
  EXPECT_EQ(c.remaining_ms(0), 5000);
  EXPECT_EQ(c.running(), -1);
}

TEST(GameClock, SetRemainingRestartsTheRunningCount) {
  FakeTime t;
  GameClock c({5000, 0}, t.now());
  c.start(1);
  t.pass(4000);
  c.set_remaining_ms(1, 2500);
  EXPECT_EQ(c.remaining_ms(1), 2500);
  t.pass(500);
  EXPECT_EQ(c.remaining_ms(1), 2000);
}

Position togyz(const std::string& text) {
  return Position::parse(text, GameSpec::togyz());
}

TEST(FlagRule, TheFlaggedSideLosesWhileTheOpponentCanStillWin) {
  const Position start = Position::start(GameSpec::togyz());
  EXPECT_EQ(flag_outcome(start, 0), Outcome::kBlackWins);
  EXPECT_EQ(flag_outcome(start, 1), Outcome::kWhiteWins);
  // White has 80: Black can still reach 82 of the other 82 (in principle).
  const Position p = togyz("1,0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0,0 80 80 w");
  EXPECT_TRUE(opponent_can_still_win(p, 0));
  EXPECT_EQ(flag_outcome(p, 0), Outcome::kBlackWins);
}

TEST(FlagRule, ADrawWhenTheOpponentCannotWinAnyMore) {
  // White's kazan holds 81: Black can end with 81 at most, a draw at best.
  const Position p = togyz("0,0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0,50 81 30 w");
  ASSERT_FALSE(p.is_decided());
  EXPECT_FALSE(opponent_can_still_win(p, 0));
  EXPECT_EQ(flag_outcome(p, 0), Outcome::kDraw);
  // Black's flag in the same position: White can still win.
  EXPECT_TRUE(opponent_can_still_win(p, 1));
  EXPECT_EQ(flag_outcome(p, 1), Outcome::kWhiteWins);
}

TEST(FlagRule, ADecidedGameKeepsItsResult) {
  const Position p = togyz("0,0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0,49 82 30 w");
  ASSERT_TRUE(p.is_decided());
  EXPECT_EQ(flag_outcome(p, 0), Outcome::kWhiteWins);
  EXPECT_EQ(flag_outcome(p, 1), Outcome::kWhiteWins);
}

TEST(FlagRule, KalahHalfTheSeedsInTheStore) {
  const GameSpec kalah = GameSpec::kalah(6, 4);
  // South's store holds 24 of 48: North can reach 24 at most.
  const Position p = Position::parse("1,0,0,0,0,0/0,0,0,0,0,23 24 0 s", kalah);
  EXPECT_EQ(flag_outcome(p, 0), Outcome::kDraw);
  EXPECT_EQ(flag_outcome(p, 1), Outcome::kWhiteWins);
  const Position q = Position::parse("2,0,0,0,0,0/0,0,0,0,0,23 23 0 s", kalah);
  EXPECT_EQ(flag_outcome(q, 0), Outcome::kBlackWins);
}

}  // namespace
}  // namespace kz
