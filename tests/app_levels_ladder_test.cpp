// What `kumalak levels-match` computes around its games, without the binary
// (tools/levels_ladder.h): the pairs its options name, the paired openings, an earlier
// sitting's games taken back from the record and the settings it is made with, the
// openings still to play, a game's line, a pair's score, and the score table.
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

TEST(LevelsLadder, TheRecordsSettingsNameWhatWasGiven) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  LevelsMatchPlay play;
  play.seed = 5;
  const nlohmann::ordered_json plain = levels_record_settings(spec, 10, 4, only("hard"), play);
  EXPECT_EQ(plain.dump(),
            "{\"levels_match_record\":1,\"game\":\"" + spec.name() +
                "\",\"games\":10,\"opening_plies\":4,\"seed\":5,\"time_scale\":1.0,"
                "\"only\":\"hard\",\"max_plies\":1000,\"alphabeta\":false,\"model\":\"\","
                "\"same_level\":false,\"lower_alphabeta\":false,\"lower_no_score_bounds\":false,"
                "\"lower_model\":\"\"}")
      << "a record made before --a/--b and adjudication existed still resumes";
  LevelPairsChoice ab;
  ab.a = "1400";
  ab.b = "1200";
  ab.human_model = "h.pt";
  play.resign_score = 0.03;
  const nlohmann::ordered_json both = levels_record_settings(spec, 10, 4, ab, play);
  EXPECT_EQ(both["a"], "1400");
  EXPECT_EQ(both["b"], "1200");
  EXPECT_EQ(both["human_model"], "h.pt");
  EXPECT_EQ(both["resign_score"], 0.03);
  EXPECT_EQ(both["resign_moves"], 3);
  EXPECT_EQ(both["resign_verify"], false);
}

TEST(LevelsLadder, OpeningsToPlayScoresAndGameLines) {
  ResumedRecord resumed;
  resumed.opening_done = {{true, false, true, false}, {true, true, true, true}};
  EXPECT_EQ(openings_to_play(resumed, 0), (std::vector<int>{1, 3}));
  EXPECT_TRUE(openings_to_play(resumed, 1).empty());
  PairStats stats;
  EXPECT_EQ(pair_score_text(stats), "0.0%");
  stats.wins = 2;
  stats.draws = 1;
  stats.losses = 1;
  EXPECT_EQ(pair_score_text(stats), "62.5%");

  const MatchSide hard{Level::kHard}, rated{Level::kBeginner, 1400};
  RecordedGame recorded;
  recorded.opening = 2;
  recorded.game = 1;
  recorded.points = 2;
  RunnerGame game;
  game.pos = Position::start(GameSpec::kalah(4, 3));
  game.pos.store[0] = 7;
  game.pos.store[1] = 17;
  game.plies = 30;
  EXPECT_EQ(levels_game_line(hard, rated, recorded, game, false),
            "hard (black) vs 1400, opening 3: win 7-17, 30 plies");
  game.verdict_ply = 20;
  EXPECT_EQ(levels_game_line(hard, rated, recorded, game, false),
            "hard (black) vs 1400, opening 3: win 7-17, 30 plies (adjudicated)");
  recorded.verdict_points = 0;
  recorded.game = 0;
  recorded.points = 1;
  EXPECT_EQ(levels_game_line(hard, rated, recorded, game, true),
            "hard (white) vs 1400, opening 3: draw 7-17, 30 plies (adjudication's verdict at ply "
            "20: wrong)");
}

}  // namespace
}  // namespace kz
