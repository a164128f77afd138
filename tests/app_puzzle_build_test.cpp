// What the puzzle commands compute, without the binary (tools/puzzle_build.h): the
// positions of recorded games, the mining under a build's caps, rating and sorting, the
// puzzle chosen, the answer read and the attempt counted for the player's rating.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <sstream>

#include "mcts/rollout_evaluator.h"
#include "tests/test_util.h"
#include "tools/puzzle_build.h"

namespace kz::cli {
namespace {

// White wins at once with hole 9 (the position of tests/cli_puzzle_test.cpp).
constexpr const char* kClearWin = "0,0,0,0,0,0,0,1,2/9,0,0,0,0,0,0,0,0 72 78 w";

Puzzle puzzle(const std::string& id, int rating, PuzzleTheme theme) {
  Puzzle z;
  z.id = id;
  z.position = Position::start(GameSpec::togyz());
  z.solution = {6};
  z.theme = theme;
  z.rating = rating;
  return z;
}

// The choice of one way: an id, a random seed or a date.
PuzzleChoice choice(const std::string& id, uint64_t seed, const std::string& date) {
  PuzzleChoice c;
  c.id = id;
  c.random = seed != 0;
  c.seed = seed;
  c.date = date;
  return c;
}

PuzzleSet three_puzzles() {
  PuzzleSet set;
  set.spec = GameSpec::togyz();
  set.puzzles = {puzzle("a", 900, PuzzleTheme::kCapture), puzzle("b", 700, PuzzleTheme::kTuzdyk),
                 puzzle("c", 900, PuzzleTheme::kCapture)};
  return set;
}

TEST(PuzzleBuild, RecordedGamesGiveTheirPositions) {
  const std::string dir = test::temp_dir("puzzle-build");
  test::write_bytes(dir + "/tiny.pgn",
                    "[Event \"clear\"]\n[Date \"2026.01.02\"]\n[FEN \"" + std::string(kClearWin) +
                        "\"]\n\n1. 91 *\n\n[Event \"start\"]\n[Date \"2026.01.03\"]\n\n"
                        "1. 98 98 2. 11 *\n\n[Event \"broken\"]\n\n1. 99 99 *\n");
  std::vector<PuzzleCandidate> positions;
  int games = 0;
  std::ostringstream log;
  add_recorded_positions(dir, GameSpec::togyz(), 1, FoldSelection::kAll, positions, games, log);
  EXPECT_EQ(games, 2);
  ASSERT_EQ(positions.size(), 2u) << "plies 1 and 2 of the second game";
  EXPECT_EQ(positions[0].source, "tiny.pgn game 2 (2026.01.03) ply 1");
  EXPECT_EQ(positions[1].game, 2);
  EXPECT_EQ(log.str(),
            "kumalak puzzles build: tiny.pgn: 2 games (1 refused by the rules, skipped)\n");
  std::filesystem::remove_all(dir);
}

TEST(PuzzleBuild, MiningKeepsTheCaps) {
  const GameSpec spec = GameSpec::togyz();
  PuzzleMinerOptions options;
  options.confirm_visits = 16;
  options.max_rating_visits = 16;
  PuzzleMiner miner(spec, std::make_shared<RolloutEvaluator>(), options);
  const Position clear = Position::parse(kClearWin, spec);
  // The same position twice in one game, and once in another: one puzzle.
  const std::vector<PuzzleCandidate> positions = {
      {clear, "one", 1}, {clear, "again", 1}, {clear, "other", 2}};
  int calls = 0;
  const MinedPuzzles mined =
      mine_puzzles(miner, positions, {.count = 5, .max_per_game = 2, .batch = 2},
                   [&](const PuzzleMiningProgress&) { ++calls; });
  ASSERT_EQ(mined.puzzles.size(), 1u);
  EXPECT_EQ(mined.puzzles[0].key_move(), 8);
  EXPECT_EQ(mined.puzzles[0].source, "one");
  EXPECT_EQ(mined.progress.filtered, 3u);
  EXPECT_EQ(mined.progress.positions, 3u);
  EXPECT_EQ(mined.progress.candidates, 1u);
  EXPECT_EQ(calls, 1);
}

TEST(PuzzleBuild, SortedByRatingAndCountedByTheme) {
  std::vector<Puzzle> puzzles = three_puzzles().puzzles;
  rate_and_sort_puzzles(puzzles, nullptr);
  EXPECT_EQ(puzzles[0].id, "b");
  EXPECT_EQ(puzzles[1].id, "a") << "ties keep their order";
  EXPECT_EQ(puzzle_theme_counts(puzzles),
            (std::map<std::string, int>{{"capture", 2}, {"tuzdyk", 1}}));
  EXPECT_EQ(minutes_text(125.9), "2m05s");
}

TEST(PuzzleBuild, TheBuildsLinesAndItsFile) {
  const PuzzleMiningProgress p{100, 400, 10, 5};
  EXPECT_EQ(mining_line(p, 20, 10, 12, false),
            "kumalak puzzles build: 100/400 positions filtered, 10 candidates, 5 puzzles, 0.50 "
            "puzzles/s, ETA 0m30s\n");
  EXPECT_EQ(mining_line(p, 20, 10, 125, true),
            "kumalak puzzles build: 100/400 positions filtered, 10 candidates, 5 puzzles, 0.50 "
            "puzzles/s, done in 2m05s\n");
  EXPECT_EQ(mining_line({}, 20, 0, 0, false),
            "kumalak puzzles build: 0/0 positions filtered, 0 candidates, 0 puzzles, 0.00 "
            "puzzles/s, ETA unknown\n");
  PuzzleSet set = three_puzzles();
  for (Puzzle& z : set.puzzles) {  // what a written puzzle must have
    z.gap = 0.5;
    z.source = "test";
  }
  const std::string path = test::temp_dir("puzzle_build") + "/new/folder/p.txt";
  write_puzzle_set(path, set);
  EXPECT_EQ(read_puzzle_file(path).puzzles.size(), 3u);
  EXPECT_EQ(written_puzzles_text(set, path),
            "wrote 3 puzzles to " + path + " (capture 2, tuzdyk 1)\n");
  EXPECT_TRUE(rates_by_human("human", "", GameSpec::kalah(6, 4)));
  EXPECT_TRUE(rates_by_human("auto", "my-human.pt", GameSpec::kalah(6, 4)));
  EXPECT_FALSE(rates_by_human("search", "my-human.pt", GameSpec::togyz()));
}

TEST(PuzzleBuild, APuzzleIsChosenAndItsAnswerRead) {
  const PuzzleSet set = three_puzzles();
  EXPECT_EQ(choose_puzzle(set, choice("c", 0, "")), 2u);
  EXPECT_THROW(choose_puzzle(set, choice("d", 0, "")), ParseError);
  EXPECT_EQ(choose_puzzle(set, choice("", 7, "")), choose_puzzle(set, choice("", 7, "")));
  EXPECT_EQ(choose_puzzle(set, choice("", 0, "2026-01-05")), daily_puzzle_index("2026-01-05", 3));
  EXPECT_THROW(choose_puzzle(set, choice("", 0, "2026-13-45")), ParseError);
  const GameSpec togyz = GameSpec::togyz();
  const Position clear = Position::parse(kClearWin, togyz);
  EXPECT_EQ(read_puzzle_answer(togyz, clear, "9"), 8);
  EXPECT_EQ(read_puzzle_answer(togyz, clear, "91"), 8);
  EXPECT_EQ(read_puzzle_answer(togyz, clear, "1"), std::nullopt) << "an empty hole";
  EXPECT_EQ(read_puzzle_answer(togyz, clear, "x"), std::nullopt);
  const GameSpec kalah = GameSpec::kalah(6, 4);
  EXPECT_EQ(read_puzzle_answer(kalah, Position::start(kalah), "3"), 2);
}

TEST(PuzzleBuild, AnAttemptCountsOnce) {
  const PuzzleSet set = three_puzzles();
  PuzzleRatings ratings;
  const PuzzleAttempt first = record_puzzle_attempt(ratings, set, set.puzzles[0], true);
  EXPECT_FALSE(first.tried_before);
  EXPECT_EQ(first.before.rating, new_puzzle_player(set).rating) << "a new player";
  EXPECT_GT(first.after.rating, first.before.rating);
  const PuzzleAttempt again = record_puzzle_attempt(ratings, set, set.puzzles[0], false);
  EXPECT_TRUE(again.tried_before);
  EXPECT_EQ(again.after.rating, first.after.rating);
  EXPECT_EQ(ratings.tried.at("togyz").at("a"), 1);
}

}  // namespace
}  // namespace kz::cli
