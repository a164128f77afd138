// What `kumalak levels-match` computes around its games, without the binary
// (tools/levels_ladder.h): the pairs its options name, the paired openings, an earlier
// sitting's games taken back from the record, and the score table.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_util.h"
#include "tools/levels_ladder.h"

namespace kz {
namespace {

LevelPairsChoice only(const std::string& level, bool same_level = false) {
  LevelPairsChoice c;
  c.only = level;
  c.same_level = same_level;
  return c;
}

TEST(LevelsLadder, ThePairsTheOptionsName) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  const std::vector<LevelPair> ladder = level_pairs_of({}, spec);
  ASSERT_EQ(ladder.size(), size_t(kLevelCount - 1));
  EXPECT_EQ(ladder[0].upper.name(), "easy");
  EXPECT_EQ(ladder[0].lower.name(), "beginner");
  EXPECT_EQ(ladder[0].step_score, kStepScore);
  const std::vector<LevelPair> one = level_pairs_of(only("medium"), spec);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].lower.name(), "easy");
  EXPECT_EQ(level_pairs_of(only("beginner", true), spec)[0].lower.name(), "beginner");
  try {
    level_pairs_of(only("beginner"), spec);
    FAIL() << "beginner has no level below it";
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()), "--only: beginner has no level below it");
  }
  LevelPairsChoice a_only;
  a_only.a = "easy";
  EXPECT_THROW(level_pairs_of(a_only, spec), ParseError) << "--a without --b";
  LevelPairsChoice a_b = a_only;
  a_b.b = "beginner";
  EXPECT_EQ(level_pairs_of(a_b, spec)[0].upper.name(), "easy");
  a_b.only = "hard";
  EXPECT_THROW(level_pairs_of(a_b, spec), ParseError) << "--a/--b with --only";
}

TEST(LevelsLadder, PairedOpeningsAreSeeded) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  const std::vector<Position> a = paired_openings(spec, 5, 3, 7);
  ASSERT_EQ(a.size(), 3u) << "5 games: 3 openings, both colours each";
  const std::vector<Position> b = paired_openings(spec, 5, 3, 7);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].to_string(), b[i].to_string());
}

RecordedGame game(int opening, int colour, int points) {
  RecordedGame g;
  g.upper = "easy";
  g.opening = opening;
  g.game = colour;
  g.points = points;
  g.plies = 30;
  g.upper_moves = g.lower_moves = 15;
  g.upper_name = "alphabeta-easy";
  g.lower_name = "alphabeta-beginner";
  return g;
}

TEST(LevelsLadder, AnEarlierSittingIsTakenBackAndTabled) {
  const std::string dir = test::temp_dir("levels-ladder");
  const std::string path = dir + "/match.jsonl";
  const GameSpec spec = GameSpec::kalah(4, 3);
  const std::vector<LevelPair> pairs = level_pairs_of(only("easy"), spec);
  const nlohmann::ordered_json settings = {{"levels_match_record", 1}, {"games", 4}};
  std::vector<PairStats> stats(1);
  stats[0].opening_points.assign(2, 0);
  // No record yet: only the settings line.
  const ResumedRecord none = resume_record(path, settings, 2, pairs, stats);
  EXPECT_EQ(none.games, 0);
  EXPECT_EQ(none.kept, settings.dump() + "\n");
  // Opening 1 played in both colours, opening 2 in one: that one is played again.
  test::write_bytes(path, settings.dump() + "\n" + record_line(game(0, 0, 2)).dump() + "\n" +
                              record_line(game(0, 1, 1)).dump() + "\n" +
                              record_line(game(1, 0, 0)).dump() + "\n");
  const ResumedRecord resumed = resume_record(path, settings, 2, pairs, stats);
  EXPECT_EQ(resumed.games, 2);
  EXPECT_EQ(resumed.opening_done, (std::vector<std::vector<bool>>{{true, false}}));
  EXPECT_EQ(stats[0].wins, 1);
  EXPECT_EQ(stats[0].draws, 1);
  EXPECT_EQ(stats[0].opening_points[0], 3);
  // This sitting wins opening 2 in both colours.
  stats[0].add(game(1, 0, 2));
  stats[0].add(game(1, 1, 2));
  const LevelsTable table = levels_table({.game = spec.name(),
                                          .openings = 2,
                                          .opening_plies = 4,
                                          .time_scale = 1,
                                          .seed = 1,
                                          .resign = false,
                                          .resign_verify = false,
                                          .threads = 2,
                                          .recorded_games = 2,
                                          .seconds = 3},
                                         pairs, stats);
  EXPECT_EQ(
      table.text.rfind("game " + spec.name() + ", 4 games per pair (2 openings x 2 colours", 0), 0u)
      << table.text;
  EXPECT_NE(table.text.find("easy vs beginner          4         3-1-0   87.5%"), std::string::npos)
      << table.text;
  EXPECT_NE(table.text.find("easy: alphabeta-easy vs alphabeta-beginner\n"), std::string::npos);
  EXPECT_NE(table.text.find("(this sitting; earlier games from --record)"), std::string::npos);
  EXPECT_EQ(table.failures, 0) << "7 of 8 half points";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz
