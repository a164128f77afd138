// Matches between two players: the two MCTS sides searching at the same time on two
// threads play exactly the games that taking turns plays.
#include <gtest/gtest.h>

#include "train/config.h"
#include "train/match.h"

namespace kz {
namespace {

RunConfig small_togyz_config() {
  return parse_config(R"(
game = "togyz"
seed = 3
[search]
leaves_per_batch = 4
[gate]
games = 8
visits = 24
games_in_parallel = 8
opening_plies = 4
)",
                      "test config");
}

MatchResult play(bool sides_in_parallel, const std::string& a, const std::string& b) {
  MatchOptions o;
  o.config = small_togyz_config();
  o.a = a;
  o.b = b;
  o.max_plies = 120;  // enough for many captures; short enough for a test
  o.show_progress = false;
  o.sides_in_parallel = sides_in_parallel;
  return play_match(o);
}

TEST(Match, SidesSearchingAtOncePlayTheSameGamesAsTakingTurns) {
  // Two rollout players: deterministic evaluators of their own, so any interference
  // between the threads (a shared cache, a search fed the other side's answers) shows as
  // different games.
  const MatchResult turns = play(false, "rollout", "rollout");
  const MatchResult both = play(true, "rollout", "rollout");
  EXPECT_EQ(turns.wdl.wins + turns.wdl.draws + turns.wdl.losses, 8);
  EXPECT_EQ(both.wdl.wins, turns.wdl.wins);
  EXPECT_EQ(both.wdl.draws, turns.wdl.draws);
  EXPECT_EQ(both.wdl.losses, turns.wdl.losses);
  EXPECT_EQ(both.plies, turns.plies);
  EXPECT_EQ(both.pairs.counts, turns.pairs.counts);
}

TEST(Match, AgainstAlphaBetaAllGamesFinish) {
  const MatchResult r = play(true, "rollout", "ab:1");
  EXPECT_EQ(r.wdl.wins + r.wdl.draws + r.wdl.losses, 8);
  EXPECT_GT(r.plies, 8 * 4);
}

}  // namespace
}  // namespace kz
