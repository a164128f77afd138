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

// Two copies of one model: without a temperature each pair's two games are the same
// game with colours swapped (exactly 50 %, half the games distinct); with a temperature
// on the first plies nearly every game is its own and the score stays near 50 %.
TEST(Match, OpeningTemperatureMakesEqualPlayersPlayDistinctGames) {
  MatchOptions o;
  o.config = parse_config(R"(
game = "kalah:6,4"
seed = 3
[network]
channels = 8
blocks = 1
policy_channels = 4
value_channels = 4
value_hidden = 8
[search]
leaves_per_batch = 4
threads = 1
[gate]
games = 40
visits = 16
games_in_parallel = 40
opening_plies = 4
)",
                          "test config");
  o.a = o.b = "init";
  o.show_progress = false;
  const MatchResult plain = play_match(o);
  EXPECT_EQ(plain.wdl.wins + plain.wdl.draws + plain.wdl.losses, 40);
  EXPECT_EQ(plain.elo.score, 0.5);
  EXPECT_EQ(plain.distinct_games, 20);  // (one pair = one game, if no two openings repeat)
  o.config.gate.opening_temperature = 1;
  o.config.gate.temperature_plies = 6;
  const MatchResult sampled = play_match(o);
  EXPECT_EQ(sampled.wdl.wins + sampled.wdl.draws + sampled.wdl.losses, 40);
  EXPECT_GE(sampled.distinct_games, 36);
  EXPECT_GT(sampled.elo.score, 0.3);
  EXPECT_LT(sampled.elo.score, 0.7);
  // Seeded: the same match again is the same games.
  const MatchResult again = play_match(o);
  EXPECT_EQ(again.plies, sampled.plies);
  EXPECT_EQ(again.pairs.counts, sampled.pairs.counts);
}

}  // namespace
}  // namespace kz
