// The words a player reads about moves and analyses (tools/move_words.h,
// tools/analysis_words.h), made from the facts the search returns.
#include <gtest/gtest.h>

#include <string>

#include "core/i18n.h"
#include "core/notation.h"
#include "mcts/advice.h"
#include "mcts/analysis.h"
#include "tools/analysis_words.h"
#include "tools/move_words.h"

namespace kz {
namespace {

Position togyz(const char* s) {
  return Position::parse(s, GameSpec::togyz());
}

TEST(MoveWords, SayWhatATogyzMoveDoes) {
  // Hole 9's stone makes Black's hole 1 hold 3: a tuzdyk, 79 + 3 = 82.
  const Position tuzdyk = togyz("0,0,0,0,0,0,0,1,1/2,1,1,1,1,1,1,1,2 79 70 w");
  const std::string why = explain_move(tuzdyk, 8);
  EXPECT_EQ(why.find("decides the game (82-70): a win"), 0u) << why;
  EXPECT_NE(why.find("; makes their hole 1 your tuzdyk"), std::string::npos) << why;
  // Hole 9's single stone makes Black's hole 1 hold 16: captured.
  const Position capture = togyz("1,1,1,1,1,1,1,1,1/15,14,14,14,14,14,14,14,0 20 20 w");
  EXPECT_NE(explain_move(capture, 8).find("captures 16 stones on their hole 1"), std::string::npos)
      << explain_move(capture, 8);
  EXPECT_EQ(explain_move(capture, 9), "not a legal move");
}

TEST(MoveWords, SayKalahPitsAndSeeds) {
  const GameSpec kalah = GameSpec::kalah(6, 4);
  // Pit 3 holds 4 seeds: the last one falls into the store.
  EXPECT_NE(explain_move(Position::start(kalah), 2).find("ends in your store: you move again"),
            std::string::npos);
  // South pit 1 (1 seed) lands in the empty pit 2 opposite North's pit 5 (6 seeds).
  const Position cap = Position::parse("1,0,4,4,4,4/4,4,4,4,6,4 4 1 s", kalah);
  EXPECT_NE(explain_move(cap, 0).find("captures 7 seeds (your pit 2 and the opposite pit 5)"),
            std::string::npos)
      << explain_move(cap, 0);
}

TEST(MoveWords, ProvenNotes) {
  EXPECT_EQ(proven_note(false, false, 3.0f), "");
  EXPECT_EQ(proven_note(true, false, 3.0f), " (proven)");
  EXPECT_EQ(proven_note(true, true, 12.0f), " (proven +12)");
  EXPECT_EQ(proven_note(true, true, -4.0f), " (proven -4)");
}

// A blunder by White in the start position: the engine preferred hole 9.
MoveJudgement blunder() {
  MoveJudgement j;
  j.move = 0;
  j.mover = 0;
  j.judged = true;
  j.after = {0.40, -1.5f};
  j.best = {0.80, 3.0f};
  j.best_move = 8;
  j.drop = 0.40;
  j.mark = MoveMark::kBlunder;
  return j;
}

TEST(AnalysisWords, CommentsAJudgedMove) {
  const Position start = Position::start(GameSpec::togyz());
  const MoveJudgement j = blunder();
  EXPECT_EQ(judgement_comment(j, start),
            "W 40% -1.5; ?? blunder (-40%); engine: " + format_move(start, 8) + " (W 80% +3.0)");
  // A move of Black's is still seen from White's side.
  MoveJudgement black = j;
  black.mover = 1;
  black.mark = MoveMark::kInaccuracy;
  black.drop = 0.12;
  EXPECT_EQ(judgement_comment(black, start).substr(0, 31), "W 60% +1.5; ?! inaccuracy (-12%");
  // A move made after the result was fixed: only the value.
  MoveJudgement decided;
  decided.after = {1.0, 12.0f};
  EXPECT_EQ(judgement_comment(decided, start), "W 100% +12.0");
}

TEST(AnalysisWords, SaysTheTallyAndTheThresholds) {
  AnalysisStats s;
  s.add(blunder());
  MoveJudgement good;
  good.judged = true;
  good.agrees = true;
  s.add(good);
  EXPECT_EQ(analysis_stats_line(s),
            "  2 moves: inaccuracies 0, mistakes 0, blunders 1, average loss 20.0%, engine's "
            "move  50%");
  EXPECT_NE(analysis_thresholds_text().find("blunder >= 35%"), std::string::npos);
}

TEST(AnalysisWords, InThePlayersLanguage) {
  i18n::ScopedLanguage russian("ru");
  const Position start = Position::start(GameSpec::togyz());
  const std::string c = judgement_comment(blunder(), start);
  EXPECT_EQ(c.find("Б 40% -1.5; ?? грубая ошибка (-40%); программа: "), 0u) << c;
  EXPECT_EQ(explain_move(start, 9), "недопустимый ход");
  EXPECT_EQ(proven_note(true, false, 0), " (доказано)");
}

}  // namespace
}  // namespace kz
