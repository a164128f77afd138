// What `kumalak serve` sends the page about a session (tools/serve/views.h), built from a
// session filled by hand: the analysis' per-side accuracy is mcts/accuracy.h's over each
// side's judged moves, so the page shows the server's number rather than computing its own;
// the game's size is given as numbers, so the page does not parse the game's name.
#include <gtest/gtest.h>

#include <vector>

#include "mcts/accuracy.h"
#include "tools/serve/session.h"
#include "tools/serve/views.h"

namespace kz::cli::serve {
namespace {

// The lowest legal pit (0-based) of a position that has one.
int first_legal(const Position& p) {
  return __builtin_ctz(p.legal_mask());
}

// A Togyz session with `drops.size()` plies played (each the first legal move), judged
// with these expected-score drops; `judged[i]` false leaves ply i unjudged.
Session analysed_session(const std::vector<double>& drops, const std::vector<bool>& judged) {
  Session s;
  s.id = "test";
  for (size_t i = 0; i < drops.size(); ++i) {
    MoveJudgement j;
    j.mover = s.pos().to_move;
    j.move = first_legal(s.pos());
    j.judged = judged[i];
    j.drop = drops[i];
    s.game.play(j.move);
    s.judged.push_back(j);
  }
  return s;
}

TEST(ServeViews, AnalysisAccuracyIsEachSidesOverItsJudgedMoves) {
  const std::vector<double> drops = {0.0, 0.05, 0.30, 0.0, 0.12, 0.9};
  const std::vector<bool> judged = {true, true, true, true, true, false};
  const json a = state_json(analysed_session(drops, judged), std::nullopt)["analysis"];
  ASSERT_TRUE(a.is_object());
  ASSERT_EQ(a["complete"], true);
  ASSERT_EQ(a["accuracy"].size(), 2u);
  // White played plies 1, 3, 5; Black 2, 4 and the unjudged 6 (left out).
  const std::vector<double> white = {0.0, 0.30, 0.12}, black = {0.05, 0.0};
  EXPECT_DOUBLE_EQ(a["accuracy"][0].get<double>(), *game_accuracy(white));
  EXPECT_DOUBLE_EQ(a["accuracy"][1].get<double>(), *game_accuracy(black));
  EXPECT_LT(a["accuracy"][0].get<double>(), a["accuracy"][1].get<double>());
}

TEST(ServeViews, NoAccuracyForASideWithoutJudgedMovesOrBeforeTheEnd) {
  const json one = state_json(analysed_session({0.1}, {true}), std::nullopt)["analysis"];
  EXPECT_TRUE(one["accuracy"][0].is_number());
  EXPECT_TRUE(one["accuracy"][1].is_null());  // Black has not moved
  Session part = analysed_session({0.1, 0.2}, {true, true});
  part.game.play(first_legal(part.pos()));  // a ply not judged yet
  part.analysis_active = true;
  const json a = state_json(part, std::nullopt)["analysis"];
  EXPECT_EQ(a["complete"], false);
  EXPECT_TRUE(a["accuracy"][0].is_null());
  EXPECT_TRUE(a["accuracy"][1].is_null());
}

// The page shows a game's size in its form from these, without reading the game's name.
TEST(ServeViews, StateSaysTheGamesSize) {
  Session s;
  s.game = GameSession(GameSpec::kalah(5, 4, true));
  const json state = state_json(s, std::nullopt);
  EXPECT_EQ(state["game"], "kalah:5,4,empty");
  EXPECT_EQ(state["togyz"], false);
  EXPECT_EQ(state["npits"], 5);
  EXPECT_EQ(state["seeds"], 4);
  EXPECT_EQ(state["empty_capture"], true);
  s.game = GameSession(GameSpec::kalah(7, 3));
  EXPECT_EQ(state_json(s, std::nullopt)["empty_capture"], false);
  EXPECT_EQ(state_json(s, std::nullopt)["seeds"], 3);
}

}  // namespace
}  // namespace kz::cli::serve
