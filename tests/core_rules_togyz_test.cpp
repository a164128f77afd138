// Every Togyz Kumalak rule of ../shared/rules/togyz-kumalak.md on hand-made positions.
// Each test states the position before and the exact position after, so a change to
// any rule (or to the position string) shows up as a readable string difference.
#include <gtest/gtest.h>

#include <string>

#include "core/position.h"

namespace kz {
namespace {

Position T(const std::string& s) {
  return Position::parse(s, GameSpec::togyz());
}

// Plays 1-based hole `hole` for the side to move and returns what it did.
Position::MoveInfo play1(Position& p, int hole) {
  EXPECT_TRUE(p.is_legal(hole - 1)) << p.to_string() << " hole " << hole;
  return p.play(hole - 1);
}

void expect_info(const Position::MoveInfo& info, int landing_player, int landing_hole, int captured,
                 bool made_tuzdyk = false, bool ended = false) {
  EXPECT_EQ(info.landing_player, landing_player);
  EXPECT_EQ(info.landing_index, landing_hole - 1);
  EXPECT_EQ(info.captured, captured);
  EXPECT_EQ(info.made_tuzdyk, made_tuzdyk);
  EXPECT_FALSE(info.extra_turn);  // Togyz has no extra turns
  EXPECT_EQ(info.ended_game, ended);
}

TEST(TogyzRules, StartPosition) {
  const Position p = Position::start(GameSpec::togyz());
  EXPECT_EQ(p.to_string(), "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w");
  EXPECT_EQ(p.total_stones(), 162);
  EXPECT_EQ(p.legal_mask(), 0x1FFu);
  EXPECT_EQ(p.legal_count(), 9);
  EXPECT_FALSE(p.is_over());
  EXPECT_FALSE(p.is_decided());
  EXPECT_EQ(p.outcome(), Outcome::kOngoing);
  EXPECT_EQ(T(p.to_string()), p);
}

TEST(TogyzRules, SingleStoneGoesToTheNextHole) {
  Position p = T("1,2,0,0,0,0,0,0,0/5,5,5,5,5,5,5,5,5 60 54 w");
  const auto info = play1(p, 1);
  EXPECT_EQ(p.to_string(), "0,3,0,0,0,0,0,0,0/5,5,5,5,5,5,5,5,5 60 54 b");
  expect_info(info, 0, 2, 0);
}

TEST(TogyzRules, TwoOrMoreStonesStartInTheEmptiedHole) {
  Position p = T("1,2,0,0,0,0,0,0,0/5,5,5,5,5,5,5,5,5 60 54 w");
  auto info = play1(p, 2);
  EXPECT_EQ(p.to_string(), "1,1,1,0,0,0,0,0,0/5,5,5,5,5,5,5,5,5 60 54 b");
  expect_info(info, 0, 3, 0);

  // Nine stones from hole 1 fill holes 1..9, the last one in the mover's hole 9.
  Position q = T("9,0,0,0,0,0,0,0,0/5,5,5,5,5,5,5,5,5 60 48 w");
  info = play1(q, 1);
  EXPECT_EQ(q.to_string(), "1,1,1,1,1,1,1,1,1/5,5,5,5,5,5,5,5,5 60 48 b");
  expect_info(info, 0, 9, 0);
}

TEST(TogyzRules, SingleStoneFromHoleNineCrossesAndCapturesEven) {
  Position p = T("5,0,0,0,0,0,0,0,1/5,5,5,5,5,5,5,5,5 60 51 w");
  const auto info = play1(p, 9);
  EXPECT_EQ(p.to_string(), "5,0,0,0,0,0,0,0,0/0,5,5,5,5,5,5,5,5 66 51 b");
  expect_info(info, 1, 1, 6);
}

TEST(TogyzRules, EvenCaptureAndOddNoCapture) {
  // 6 stones from hole 6: White 6..9, Black 1 and 2 (3 + 1 = 4, even).
  Position even = T("5,5,5,5,5,6,5,5,5/5,3,5,5,5,5,5,5,5 40 33 w");
  auto info = play1(even, 6);
  EXPECT_EQ(even.to_string(), "5,5,5,5,5,1,6,6,6/6,0,5,5,5,5,5,5,5 44 33 b");
  expect_info(info, 1, 2, 4);

  Position odd = T("5,5,5,5,5,6,5,5,5/5,4,5,5,5,5,5,5,5 40 32 w");
  info = play1(odd, 6);
  EXPECT_EQ(odd.to_string(), "5,5,5,5,5,1,6,6,6/6,5,5,5,5,5,5,5,5 40 32 b");
  expect_info(info, 1, 2, 0);

  // Landing in one's own row never captures, even on an even count.
  Position own = T("5,5,3,1,5,5,5,5,5/5,5,5,5,5,5,5,5,5 40 38 w");
  info = play1(own, 3);
  EXPECT_EQ(own.to_string(), "5,5,1,2,6,5,5,5,5/5,5,5,5,5,5,5,5,5 40 38 b");
  expect_info(info, 0, 5, 0);
}

TEST(TogyzRules, BlackCapturesInWhitesRow) {
  Position p = T("5,3,5,5,5,5,5,5,5/5,5,5,5,5,5,5,5,2 40 37 b");
  const auto info = play1(p, 9);  // Black's hole 9 itself, then White's 1: 5 + 1 = 6
  EXPECT_EQ(p.to_string(), "0,3,5,5,5,5,5,5,5/5,5,5,5,5,5,5,5,1 40 43 w");
  expect_info(info, 0, 1, 6);
}

TEST(TogyzRules, LongLapOf28CapturesAtTheEnd) {
  // 28 stones from hole 1: one full lap of 18 holes, then White 1..9, then Black 1.
  Position p = T("28,1,1,1,1,1,1,1,1/4,3,3,3,3,3,3,3,3 50 48 w");
  auto info = play1(p, 1);
  EXPECT_EQ(p.to_string(), "2,3,3,3,3,3,3,3,3/0,4,4,4,4,4,4,4,4 56 48 b");
  expect_info(info, 1, 1, 6);

  Position odd = T("28,1,1,1,1,1,1,1,1/3,3,3,3,3,3,3,3,3 50 49 w");
  info = play1(odd, 1);
  EXPECT_EQ(odd.to_string(), "2,3,3,3,3,3,3,3,3/5,4,4,4,4,4,4,4,4 50 49 b");
  expect_info(info, 1, 1, 0);
}

TEST(TogyzRules, LongLapsOfTwoRoundsOrMore) {
  // 46 = 2 * 18 + 10: every hole twice, then White 1..9 and Black 1 (5 + 3 = 8, even).
  Position p = T("46,0,0,0,0,0,0,0,0/5,1,1,1,1,1,1,1,1 52 51 w");
  auto info = play1(p, 1);
  EXPECT_EQ(p.to_string(), "3,3,3,3,3,3,3,3,3/0,3,3,3,3,3,3,3,3 60 51 b");
  expect_info(info, 1, 1, 8);

  // 36 = exactly two laps from hole 1: the last stone lands in Black's hole 9.
  Position q = T("36,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,2 70 54 w");
  info = play1(q, 1);
  EXPECT_EQ(q.to_string(), "2,2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2,0 74 54 b");
  expect_info(info, 1, 9, 4);

  // 40 = two laps + White 1..4: lands in the mover's own row, no capture.
  Position r = T("40,0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1,1 60 53 w");
  info = play1(r, 1);
  EXPECT_EQ(r.to_string(), "3,3,3,3,2,2,2,2,2/3,3,3,3,3,3,3,3,3 60 53 b");
  expect_info(info, 0, 4, 0);

  // A large pile from Black's side: 57 = 3 * 18 + 3 from Black's hole 8.
  Position s = T("0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,57,0 50 55 b");
  info = play1(s, 8);
  // Three laps: every hole 3; then Black 8, Black 9, White 1 (3 + 1 = 4, captured).
  EXPECT_EQ(s.to_string(), "0,3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,4,4 50 59 w");
  expect_info(info, 0, 1, 4);
}

TEST(TogyzRules, TuzdykIsMadeOnExactlyThree) {
  Position p = T("5,5,5,5,5,5,5,5,1/2,5,5,5,5,5,5,5,5 40 39 w");
  const auto info = play1(p, 9);
  EXPECT_EQ(p.to_string(), "5,5,5,5,5,5,5,5,0/x,5,5,5,5,5,5,5,5 43 39 b");
  expect_info(info, 1, 1, 3, /*made_tuzdyk=*/true);
  EXPECT_EQ(p.tuzdyk[0], 0);
  EXPECT_EQ(p.tuzdyk[1], kNoTuzdyk);
  EXPECT_EQ(p.pit(1, 0), 0);
  // Nobody can move from a tuzdyk: Black's hole 1 is not legal for Black.
  EXPECT_FALSE(p.is_legal(0));
  EXPECT_TRUE(p.is_legal(1));
}

TEST(TogyzRules, BlackMakesATuzdykInWhitesRow) {
  Position p = T("2,5,5,5,5,5,5,5,5/5,5,5,5,5,5,5,5,1 39 40 b");
  const auto info = play1(p, 9);
  EXPECT_EQ(p.to_string(), "x,5,5,5,5,5,5,5,5/5,5,5,5,5,5,5,5,0 39 43 w");
  expect_info(info, 0, 1, 3, true);
  EXPECT_EQ(p.tuzdyk[1], 0);
  EXPECT_EQ(p.tuzdyk[0], kNoTuzdyk);
}

TEST(TogyzRules, NoSecondTuzdyk) {
  // White already owns Black's hole 5.
  Position p = T("9,9,9,9,5,5,5,5,1/2,5,5,5,x,5,5,5,5 40 28 w");
  const auto info = play1(p, 9);
  EXPECT_EQ(p.to_string(), "9,9,9,9,5,5,5,5,0/3,5,5,5,x,5,5,5,5 40 28 b");
  expect_info(info, 1, 1, 0);
  EXPECT_EQ(p.tuzdyk[0], 4);
}

TEST(TogyzRules, NoTuzdykOnHoleNine) {
  Position p = T("5,5,5,5,5,5,5,5,10/5,5,5,5,5,5,5,5,2 40 30 w");
  auto info = play1(p, 9);
  EXPECT_EQ(p.to_string(), "5,5,5,5,5,5,5,5,1/6,6,6,6,6,6,6,6,3 40 30 b");
  expect_info(info, 1, 9, 0);
  EXPECT_EQ(p.tuzdyk[0], kNoTuzdyk);

  // Hole 8 is allowed.
  Position q = T("5,5,5,5,5,5,5,5,9/5,5,5,5,5,5,5,2,5 40 31 w");
  info = play1(q, 9);
  EXPECT_EQ(q.to_string(), "5,5,5,5,5,5,5,5,1/6,6,6,6,6,6,6,x,5 43 31 b");
  expect_info(info, 1, 8, 3, true);

  // Black cannot take White's hole 9 either.
  Position r = T("5,5,5,5,5,5,5,5,2/5,5,5,5,5,5,5,5,10 30 40 b");
  info = play1(r, 9);
  EXPECT_EQ(r.to_string(), "6,6,6,6,6,6,6,6,3/5,5,5,5,5,5,5,5,1 30 40 w");
  expect_info(info, 0, 9, 0);
  EXPECT_EQ(r.tuzdyk[1], kNoTuzdyk);
}

TEST(TogyzRules, NoSymmetricTuzdyk) {
  // Black owns White's hole 1; White may not take Black's hole 1.
  Position p = T("x,5,5,5,5,5,5,5,1/2,5,5,5,5,5,5,5,5 44 40 w");
  auto info = play1(p, 9);
  EXPECT_EQ(p.to_string(), "x,5,5,5,5,5,5,5,0/3,5,5,5,5,5,5,5,5 44 40 b");
  expect_info(info, 1, 1, 0);
  EXPECT_EQ(p.tuzdyk[0], kNoTuzdyk);
  EXPECT_EQ(p.tuzdyk[1], 0);

  // Black owning White's hole 3 does not stop White taking Black's hole 1.
  Position q = T("5,5,x,5,5,5,5,5,1/2,5,5,5,5,5,5,5,5 44 40 w");
  info = play1(q, 9);
  EXPECT_EQ(q.to_string(), "5,5,x,5,5,5,5,5,0/x,5,5,5,5,5,5,5,5 47 40 b");
  expect_info(info, 1, 1, 3, true);

  // The same for Black: White owns Black's hole 4, Black may not take White's hole 4.
  Position s = T("5,5,5,2,5,5,5,5,5/5,5,5,x,5,5,5,5,5 40 40 b");
  info = play1(s, 9);  // Black 9, White 1..4 (the last one: 2 + 1 = 3 on White's 4)
  EXPECT_EQ(s.to_string(), "6,6,6,3,5,5,5,5,5/5,5,5,x,5,5,5,5,1 40 40 w");
  expect_info(info, 0, 4, 0);
  EXPECT_EQ(s.tuzdyk[1], kNoTuzdyk);
}

TEST(TogyzRules, StonesSownIntoATuzdykGoToItsOwner) {
  // White owns Black's hole 3; White's six stones from hole 9 pass it.
  Position p = T("5,5,5,5,5,5,5,5,6/1,1,x,1,1,1,1,1,1 60 48 w");
  auto info = play1(p, 9);
  EXPECT_EQ(p.to_string(), "5,5,5,5,5,5,5,5,1/2,2,x,2,0,1,1,1,1 63 48 b");
  expect_info(info, 1, 5, 2);  // the tuzdyk stone is not part of the capture

  // Black owns White's hole 4; White sowing through it feeds Black's kazan.
  Position q = T("5,5,5,x,5,5,5,5,5/5,5,5,5,5,5,5,5,5 40 37 w");
  info = play1(q, 2);
  EXPECT_EQ(q.to_string(), "5,1,6,x,6,6,5,5,5/5,5,5,5,5,5,5,5,5 40 38 b");
  expect_info(info, 0, 6, 0);

  // Black sowing through Black's own hole that is White's tuzdyk feeds White.
  Position r = T("5,5,5,5,5,5,5,5,5/5,5,5,x,5,5,5,5,5 37 40 b");
  info = play1(r, 2);
  EXPECT_EQ(r.to_string(), "5,5,5,5,5,5,5,5,5/5,1,6,x,6,6,5,5,5 38 40 w");
  expect_info(info, 1, 6, 0);
}

TEST(TogyzRules, LongLapsFeedBothTuzdyks) {
  // White owns Black's 2, Black owns White's 7. 40 stones from White's 1: two laps
  // (each tuzdyk twice) then White 1..4.
  Position p = T("40,0,0,0,0,0,x,0,0/1,x,1,1,1,1,1,1,1 60 54 w");
  auto info = play1(p, 1);
  EXPECT_EQ(p.to_string(), "3,3,3,3,2,2,x,2,2/3,x,3,3,3,3,3,3,3 62 56 b");
  expect_info(info, 0, 4, 0);

  // 46 stones: two laps, then White 1..9 (Black's tuzdyk a third time) and Black 1,
  // which holds 1 + 2 + 1 = 4: an even capture at the end of a long lap.
  Position q = T("46,0,0,0,0,0,x,0,0/1,x,1,1,1,1,1,1,1 56 52 w");
  info = play1(q, 1);
  EXPECT_EQ(q.to_string(), "3,3,3,3,3,3,x,3,3/0,x,3,3,3,3,3,3,3 62 55 b");
  expect_info(info, 1, 1, 4);
}

TEST(TogyzRules, LastStoneInATuzdykCapturesNothing) {
  // White's last stone lands in White's own tuzdyk (Black's 2): it goes to White's
  // kazan and nothing else happens, though Black's 1 now holds an even 2.
  Position p = T("5,5,5,5,5,5,5,5,3/1,x,2,2,2,2,2,2,2 52 52 w");
  auto info = play1(p, 9);
  EXPECT_EQ(p.to_string(), "5,5,5,5,5,5,5,5,1/2,x,2,2,2,2,2,2,2 53 52 b");
  expect_info(info, 1, 2, 0);

  // White's last stone lands in Black's tuzdyk in White's own row: to Black's kazan.
  Position q = T("3,5,x,5,5,5,5,5,5/5,5,5,5,5,5,5,5,5 40 39 w");
  info = play1(q, 1);
  EXPECT_EQ(q.to_string(), "1,6,x,5,5,5,5,5,5/5,5,5,5,5,5,5,5,5 40 40 b");
  expect_info(info, 0, 3, 0);
}

TEST(TogyzRules, GameEndsWhenTheSideToMoveIsEmpty) {
  // White's move leaves Black (to move) with nothing: each row goes to its own kazan.
  Position p = T("2,0,0,0,0,0,0,0,5/0,0,0,0,0,0,0,0,0 80 75 w");
  EXPECT_FALSE(p.is_over());  // Black being empty does not matter while White moves
  const auto info = play1(p, 1);
  EXPECT_EQ(p.to_string(), "0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 87 75 b");
  expect_info(info, 0, 2, 0, false, /*ended=*/true);
  EXPECT_TRUE(p.is_over());
  EXPECT_TRUE(p.is_decided());
  EXPECT_EQ(p.legal_mask(), 0u);
  EXPECT_EQ(p.legal_count(), 0);
  EXPECT_EQ(p.outcome(), Outcome::kWhiteWins);
  EXPECT_EQ(p.total_stones(), 162);
}

TEST(TogyzRules, EmptyingYourOwnRowDoesNotEndTheGame) {
  Position p = T("0,0,0,0,0,0,0,0,1/5,5,5,5,5,5,5,5,1 60 60 w");
  auto info = play1(p, 9);  // White's last stone: Black 1 becomes 6, captured
  EXPECT_EQ(p.to_string(), "0,0,0,0,0,0,0,0,0/0,5,5,5,5,5,5,5,1 66 60 b");
  expect_info(info, 1, 1, 6);
  EXPECT_FALSE(p.is_over());
  EXPECT_EQ(p.legal_count(), 8);

  // Black gives stones back: White plays on.
  Position give = p;
  info = play1(give, 9);  // Black 9 (1 stone) -> White 1
  EXPECT_EQ(give.to_string(), "1,0,0,0,0,0,0,0,0/0,5,5,5,5,5,5,5,0 66 60 w");
  expect_info(info, 0, 1, 0);
  EXPECT_FALSE(give.is_over());

  // Black does not: White is to move with an empty row, so the game ends and Black's
  // stones go to Black's kazan.
  info = play1(p, 2);  // Black 2..6: Black's row is then 0,1,6,6,6,6,5,5,1 = 36
  EXPECT_EQ(p.to_string(), "0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 66 96 w");
  expect_info(info, 1, 6, 0, false, true);
  EXPECT_TRUE(p.is_over());
  EXPECT_EQ(p.outcome(), Outcome::kBlackWins);
}

TEST(TogyzRules, ParsingAPositionWhoseSideToMoveIsEmptyEndsIt) {
  const Position p = T("0,0,0,0,0,0,0,0,0/1,2,3,0,0,0,0,0,4 70 82 w");
  EXPECT_TRUE(p.is_over());
  EXPECT_EQ(p.to_string(), "0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 70 92 w");
  EXPECT_EQ(p.outcome(), Outcome::kBlackWins);
  // The other side being empty is not the end.
  const Position q = T("1,2,3,0,0,0,0,0,4/0,0,0,0,0,0,0,0,0 70 82 w");
  EXPECT_FALSE(q.is_over());
  EXPECT_EQ(q.to_string(), "1,2,3,0,0,0,0,0,4/0,0,0,0,0,0,0,0,0 70 82 w");
}

TEST(TogyzRules, OutcomeAndDecidedAt82) {
  const Position w82 = T("5,5,5,5,5,5,5,5,5/5,5,5,5,5,5,5,0,0 82 0 w");
  EXPECT_TRUE(w82.is_decided());
  EXPECT_FALSE(w82.is_over());
  EXPECT_GT(w82.legal_count(), 0);  // the rules would play on
  EXPECT_EQ(w82.outcome(), Outcome::kWhiteWins);

  const Position w81 = T("5,5,5,5,5,5,5,5,5/5,5,5,5,5,5,5,1,0 81 0 w");
  EXPECT_FALSE(w81.is_decided());
  EXPECT_EQ(w81.outcome(), Outcome::kOngoing);
  EXPECT_STREQ(outcome_string(w81.outcome()), "*");

  const Position b82 = T("5,5,5,5,5,5,5,5,5/5,5,5,5,5,5,5,0,0 0 82 b");
  EXPECT_TRUE(b82.is_decided());
  EXPECT_EQ(b82.outcome(), Outcome::kBlackWins);
  EXPECT_STREQ(outcome_string(b82.outcome()), "0-1");

  // 81-81 with the board empty: over and drawn.
  const Position draw = T("0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 81 81 b");
  EXPECT_TRUE(draw.is_over());
  EXPECT_EQ(draw.outcome(), Outcome::kDraw);
  EXPECT_STREQ(outcome_string(draw.outcome()), "1/2-1/2");
  EXPECT_EQ(draw.margin(), 0);

  // A move that brings White to 82 decides the game.
  Position r = T("5,5,5,5,5,5,5,5,1/13,5,5,5,5,5,5,5,1 68 4 w");
  EXPECT_FALSE(r.is_decided());
  play1(r, 9);  // Black's 1: 13 + 1 = 14, captured: 68 + 14 = 82
  EXPECT_EQ(r.store[0], 82);
  EXPECT_FALSE(r.is_over());
  EXPECT_TRUE(r.is_decided());
  EXPECT_EQ(r.outcome(), Outcome::kWhiteWins);
  EXPECT_EQ(r.margin(), 78);
}

TEST(TogyzRules, PositionStringRoundTrip) {
  for (const char* s : {
           "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w",
           "9,9,9,9,9,9,1,10,10/10,10,10,10,10,0,9,9,9 10 0 b",
           "x,5,5,5,5,5,5,5,0/5,5,5,x,5,5,5,5,5 43 44 w",
           "0,0,0,0,0,0,0,162,0/0,0,0,0,0,0,0,0,0 0 0 w",
           "0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 81 81 b",
           "1,0,0,0,0,0,0,0,0/x,0,0,0,0,0,0,0,0 100 61 w",
       }) {
    const Position p = T(s);
    EXPECT_EQ(p.to_string(), s);
    EXPECT_EQ(T(p.to_string()), p);
  }
  // Spaces around fields and the upper-case tuzdyk mark are accepted and normalised.
  EXPECT_EQ(T("  X,5,5,5,5,5,5,5,0/5,5,5,x,5,5,5,5,5   43 44 w \n").to_string(),
            "x,5,5,5,5,5,5,5,0/5,5,5,x,5,5,5,5,5 43 44 w");
}

TEST(TogyzRules, TuzdykFieldsFromTheString) {
  const Position p = T("x,5,5,5,5,5,5,5,0/5,5,5,x,5,5,5,5,5 43 44 w");
  EXPECT_EQ(p.tuzdyk[0], 3);  // White owns Black's hole 4
  EXPECT_EQ(p.tuzdyk[1], 0);  // Black owns White's hole 1
  EXPECT_EQ(p.pit(0, 0), 0);
  EXPECT_EQ(p.pit(1, 3), 0);
  // White's hole 1 is Black's tuzdyk: never a legal move for White.
  EXPECT_FALSE(p.is_legal(0));
  EXPECT_FALSE(p.is_legal(8));  // empty
  EXPECT_EQ(p.legal_mask(), 0b011111110u);
  EXPECT_FALSE(p.is_legal(-1));
  EXPECT_FALSE(p.is_legal(9));
}

}  // namespace
}  // namespace kz
