// core/human_games.h: the moves of rated (and titled) players as samples, the one reader
// of rated games that the human head's training, human-eval and the rating estimate
// share: which sides count, how unrated sides are counted by reason, how a game that does
// not replay is skipped with its reason, and that samples follow file and game order.
#include <gtest/gtest.h>

#include <sstream>

#include "core/human_games.h"

namespace kz {
namespace {

std::vector<GameRecord> read_text(const std::string& text) {
  std::istringstream in(text);
  return read_pgn(in, "t.pgn");
}

// A game with the given rating tags (empty: none) and, unless `clock` is false, a
// TimeControl tag (a game without one and without ratings is a tournament game).
std::string game_text(const std::string& white_elo, const std::string& black_elo,
                      const std::string& moves, const std::string& round, bool clock = true,
                      const std::string& result = "*") {
  std::string t = "[Event \"Test\"]\n[Date \"2025.01.02\"]\n[Round \"" + round +
                  "\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"" + result + "\"]\n";
  if (clock) t += "[TimeControl \"300\"]\n";
  if (!white_elo.empty()) t += "[WhiteElo \"" + white_elo + "\"]\n";
  if (!black_elo.empty()) t += "[BlackElo \"" + black_elo + "\"]\n";
  return t + "\n" + moves + " " + result + "\n\n";
}

std::vector<std::vector<GameRecord>> test_files() {
  return {read_text(game_text("1500", "1300", "1. 76 98 2. 11", "1", true, "1-0") +
                    game_text("1700", "", "1. 54 33", "2") +            // Black's rating missing
                    game_text("", "", "1. 21 32", "3", false) +         // a tournament game
                    game_text("1400", "1400", "1. 76 76 2. 0", "4"))};  // pit 0: no move
}

TEST(HumanGames, RatedSidesInGameOrderAndTheRestCounted) {
  const GameSpec spec = GameSpec::togyz();
  const HumanData data = read_human_data(test_files(), spec, FoldSelection::kAll, false);
  EXPECT_EQ(data.games, 3) << ::testing::PrintToString(data.skipped);
  EXPECT_EQ(data.skipped_games, 1);
  ASSERT_EQ(data.skipped.size(), 1u);
  EXPECT_FALSE(data.skipped[0].empty());
  // Game 1's two sides, game 2's White; the tournament game's sides are not rated.
  ASSERT_EQ(data.sides.size(), 3u);
  EXPECT_EQ(data.sides[0].rating, 1500);
  EXPECT_EQ(data.sides[0].moves, 2);
  EXPECT_EQ(data.sides[0].score, 1.f);
  EXPECT_EQ(data.sides[1].rating, 1300);
  EXPECT_EQ(data.sides[1].score, 0.f);
  EXPECT_EQ(data.sides[1].color, 1);
  EXPECT_EQ(data.sides[1].game, data.sides[0].game);
  EXPECT_EQ(data.sides[2].rating, 1700);
  EXPECT_EQ(data.sides[2].game, data.sides[0].game + 1);
  EXPECT_EQ(data.sides[2].score, -1.f);  // no result
  EXPECT_EQ(data.unrated.total(), 3);    // game 2's Black, both tournament sides
  // Samples in game order, each the position before its move.
  ASSERT_EQ(data.samples.size(), 4u);
  const int moves[] = {6, 8, 0, 4};
  const int sides[] = {0, 1, 0, 2};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(data.samples[i].move, moves[i]) << i;
    EXPECT_EQ(data.samples[i].side, sides[i]) << i;
    EXPECT_FALSE(data.samples[i].titled);
  }
  EXPECT_EQ(data.samples[0].position.to_string(), Position::start(spec).to_string());
  EXPECT_EQ(data.samples[1].position.to_move, 1);
  EXPECT_EQ(mean_rating(data.samples), 1500);  // (1500 + 1300 + 1500 + 1700) / 4
}

TEST(HumanGames, TitledPlayersOnlyWhenAskedFor) {
  const HumanData data =
      read_human_data(test_files(), GameSpec::togyz(), FoldSelection::kAll, true);
  ASSERT_EQ(data.sides.size(), 5u);
  EXPECT_TRUE(data.sides[3].titled);
  EXPECT_TRUE(data.sides[4].titled);
  EXPECT_EQ(data.unrated.total(), 1);  // game 2's Black only: it has a clock
  EXPECT_EQ(data.samples.size(), 6u);
  EXPECT_EQ(mean_rating(data.samples), 1500);  // the titled players' moves left out
}

TEST(HumanGames, TheFoldsSplitTheGames) {
  const auto files = test_files();
  const GameSpec spec = GameSpec::togyz();
  const HumanData train = read_human_data(files, spec, FoldSelection::kTrain, false);
  const HumanData validation = read_human_data(files, spec, FoldSelection::kValidation, false);
  const HumanData all = read_human_data(files, spec, FoldSelection::kAll, false);
  EXPECT_EQ(train.games + validation.games, all.games);
  EXPECT_EQ(train.samples.size() + validation.samples.size(), all.samples.size());
}

}  // namespace
}  // namespace kz
