// levels-match's games without the binary (tools/levels_match.h): the sides of a pair,
// the record a stopped match resumes from (its lines, its refusals with file and line),
// a pair's counts, and a pair's paired games through the game runner.
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>

#include "tests/test_util.h"
#include "tools/levels_match.h"

namespace kz {
namespace {

TEST(LevelsMatch, ASideIsALevelOrARating) {
  EXPECT_EQ(parse_match_side("hard").level, Level::kHard);
  EXPECT_FALSE(parse_match_side("hard").rating.has_value());
  EXPECT_EQ(parse_match_side("1400").rating, 1400);
  EXPECT_EQ(parse_match_side("1400").name(), "1400");
  EXPECT_EQ(parse_match_side("2").name(), "easy");
  EXPECT_THROW(parse_match_side("strong"), ParseError);
}

RecordedGame sample_game(int opening, int game, int points) {
  RecordedGame g;
  g.upper = "easy";
  g.opening = opening;
  g.game = game;
  g.points = points;
  g.plies = 40;
  g.upper_nodes = 100;
  g.upper_moves = 20;
  g.upper_seconds = 0.5;
  g.upper_name = "alphabeta-easy";
  g.lower_name = "alphabeta-beginner";
  return g;
}

class LevelsMatchRecord : public ::testing::Test {
 protected:
  void SetUp() override { path_ = test::temp_dir("kz-levels-record") + "/record.jsonl"; }
  void TearDown() override {
    std::filesystem::remove_all(std::filesystem::path(path_).parent_path());
  }
  const nlohmann::ordered_json settings_ = {{"levels_match_record", 1}, {"seed", 3}};
  std::string path_;
};

TEST_F(LevelsMatchRecord, GamesComeBackAsTheyWereWritten) {
  const RecordedGame a = sample_game(0, 0, 2), b = sample_game(0, 1, 1);
  test::write_bytes(path_, settings_.dump() + "\n" + record_line(a).dump() + "\n" +
                               record_line(b).dump() + "\n" + "{\"upper\":");  // cut off
  const std::vector<RecordedGame> games = read_record(path_, settings_, 1);
  ASSERT_EQ(games.size(), 2u);  // the unfinished last line dropped
  EXPECT_EQ(record_line(games[0]), record_line(a));
  EXPECT_EQ(record_line(games[1]), record_line(b));
}

TEST_F(LevelsMatchRecord, OtherSettingsOrABadLineAreRefusedWithTheLine) {
  test::write_bytes(path_,
                    settings_.dump() + "\n" + record_line(sample_game(0, 0, 2)).dump() + "\n");
  const auto other = nlohmann::ordered_json{{"levels_match_record", 1}, {"seed", 4}};
  EXPECT_NE(
      test::error_message<std::runtime_error>([&] { read_record(path_, other, 1); }).find("seed"),
      std::string::npos);
  // Opening 0 of a match of no openings: out of range, on line 2.
  EXPECT_NE(test::error_message<std::runtime_error>([&] {
              read_record(path_, settings_, 0);
            }).find(path_ + ":2:"),
            std::string::npos);
  test::write_bytes(path_, settings_.dump() + "\nnot json\n");
  EXPECT_NE(test::error_message<std::runtime_error>([&] {
              read_record(path_, settings_, 1);
            }).find(path_ + ":2: not a JSON line"),
            std::string::npos);
}

TEST(LevelsMatch, APairCountsItsGamesAndOpenings) {
  PairStats s;
  s.opening_points.assign(2, 0);
  s.add(sample_game(0, 0, 2));
  s.add(sample_game(0, 1, 1));
  RecordedGame judged = sample_game(1, 0, 0);
  judged.verdict_points = 2;  // the adjudication said the upper level won: wrong
  judged.verdict_ply = 30;
  s.add(judged);
  EXPECT_EQ(s.wins, 1);
  EXPECT_EQ(s.draws, 1);
  EXPECT_EQ(s.losses, 1);
  EXPECT_EQ(s.opening_points, (std::vector<int>{3, 0}));
  EXPECT_EQ(s.plies, 120);
  EXPECT_EQ(s.verdicts, 1);
  EXPECT_EQ(s.wrong_verdicts, 1);
  EXPECT_EQ(s.verdict_plies, 30);
  EXPECT_EQ(s.upper_name, "alphabeta-easy");
}

TEST(LevelsMatch, APairPlaysBothColoursOfEveryOpeningItIsGiven) {
  const GameSpec spec = GameSpec::kalah(6, 4);
  const std::vector<Position> openings = {Position::start(spec), Position::start(spec)};
  LevelsMatchPlay play;
  play.threads = 1;
  play.alphabeta_only = true;
  play.time_scale = 0.05;
  std::mutex mutex;
  std::vector<RecordedGame> games;
  play_level_pair(spec, parse_match_side("easy"), parse_match_side("beginner"), 0, openings, {1},
                  play, [&](const RecordedGame& g, const RunnerGame&) {
                    std::lock_guard<std::mutex> lock(mutex);
                    games.push_back(g);
                  });
  ASSERT_EQ(games.size(), 2u);  // opening 1 only, in both colours
  for (const RecordedGame& g : games) {
    EXPECT_EQ(g.upper, "easy");
    EXPECT_EQ(g.opening, 1);
    EXPECT_GT(g.plies, 0);
    EXPECT_GT(g.upper_moves, 0);
    EXPECT_EQ(g.verdict_points, -1);  // no adjudication
  }
  EXPECT_NE(games[0].game, games[1].game);
}

}  // namespace
}  // namespace kz
