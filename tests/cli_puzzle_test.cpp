// `kumalak puzzle` end to end: a hand-made puzzle file, answers typed on standard input,
// the rating file under XDG_CONFIG_HOME; `kumalak puzzles build` refusing bad input;
// `puzzles rate` and `puzzles calibrate` on hand-made files and games.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/puzzle_file.h"
#include "tests/test_util.h"

namespace kz {
namespace {

// White's hole 9 captures 10 and reaches 82 (a decided win); hole 8 does not.
const char* kPuzzleFile =
    "kumalak-puzzles 1 togyz\n"
    "t-test0001\t0,0,0,0,0,0,0,1,2/9,0,0,0,0,0,0,0,0 72 78 w\t9\twinning-line\t1500\t0.900\t"
    "hand-made\n"
    "end 1\n";

struct Fixture {
  std::string dir = test::temp_dir("cli-puzzle");
  std::string file = dir + "/p.txt";
  Fixture() { test::write_bytes(file, kPuzzleFile); }
  // Runs `kumalak puzzle ARGS` with `input` on standard input; returns the exit status.
  int run(const std::string& args, const std::string& input, std::string* out) const {
    test::write_bytes(dir + "/input", input);
    return test::run_command("XDG_CONFIG_HOME=" + dir + "/config " + test::bin("kumalak") +
                                 " puzzle --file " + file + " " + args + " < " + dir + "/input",
                             out, true);
  }
  std::string ratings() const {
    return test::read_bytes(dir + "/config/kumalak/puzzle-rating.txt");
  }
};

}  // namespace

TEST(CliPuzzle, SolvedPuzzleRaisesTheRatingOnce) {
  Fixture f;
  std::string out;
  ASSERT_EQ(f.run("--id t-test0001", "5\n9\n", &out), 0) << out;
  EXPECT_NE(out.find("Puzzle t-test0001: winning-line, rated 1500 (from hand-made)."),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("'5' is not a legal move here."), std::string::npos) << out;
  EXPECT_NE(out.find("Correct: hole 9 (91) is the best move; it "), std::string::npos) << out;
  EXPECT_NE(out.find("Your puzzle rating: 1500 -> 1"), std::string::npos) << out;
  const std::string saved = f.ratings();
  EXPECT_EQ(saved.rfind("kumalak-puzzle-rating 1\nrating togyz 1", 0), 0u) << saved;
  EXPECT_NE(saved.find("tried togyz t-test0001 1"), std::string::npos) << saved;
  EXPECT_GT(std::stod(saved.substr(saved.find("rating togyz ") + 13)), 1500);
  // The same puzzle again: judged, not rated.
  ASSERT_EQ(f.run("--id t-test0001", "8\n", &out), 0) << out;
  EXPECT_NE(out.find("Not the best move: hole 8"), std::string::npos) << out;
  EXPECT_NE(out.find("You have tried this puzzle before"), std::string::npos) << out;
  EXPECT_EQ(f.ratings(), saved);
}

TEST(CliPuzzle, FailedDailyPuzzleLowersTheRating) {
  Fixture f;
  std::string out;
  ASSERT_EQ(f.run("--date 2026-12-02", "88\n", &out), 0) << out;  // the only puzzle
  EXPECT_NE(out.find("Not the best move: hole 8 (89)"), std::string::npos) << out;
  EXPECT_NE(out.find("The solution is hole 9 (91)"), std::string::npos) << out;
  EXPECT_NE(out.find("The line: 91."), std::string::npos) << out;
  const std::string saved = f.ratings();
  EXPECT_LT(std::stod(saved.substr(saved.find("rating togyz ") + 13)), 1500) << saved;
  EXPECT_NE(saved.find("tried togyz t-test0001 0"), std::string::npos) << saved;
}

TEST(CliPuzzle, SpeaksTheChosenLanguage) {
  Fixture f;
  std::string out;
  ASSERT_EQ(f.run("--lang kk --id t-test0001", "9\n", &out), 0) << out;
  EXPECT_NE(out.find("t-test0001 есебі: жеңіс жолы, рейтингі 1500 (дереккөзі: hand-made)."),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Дұрыс: 9-отау (91) — ең үздік жүріс; ол "), std::string::npos) << out;
}

// A player new to the game starts at the middle of its puzzles (core/puzzle_rating.h), not
// at Glicko-2's 1500, and a kept rating is used as it is.
TEST(CliPuzzle, ANewPlayerStartsAtTheMiddleOfThePuzzles) {
  Fixture f;
  const std::string position = "0,0,0,0,0,0,0,1,2/9,0,0,0,0,0,0,0,0 72 78 w\t9\twinning-line\t";
  test::write_bytes(f.file, "kumalak-puzzles 1 togyz\nt-test0001\t" + position +
                                "1500\t0.900\thand-made\nt-test0002\t" + position +
                                "700\t0.900\thand-made\nt-test0003\t" + position +
                                "900\t0.900\thand-made\nend 3\n");
  std::string out;
  ASSERT_EQ(f.run("--id t-test0002", "8\n", &out), 0) << out;
  EXPECT_NE(out.find("Your puzzle rating: 900 -> 8"), std::string::npos) << out;
  const std::string saved = f.ratings();
  const double after = std::stod(saved.substr(saved.find("rating togyz ") + 13));
  EXPECT_GE(after, 900 - 150) << saved;
  ASSERT_EQ(f.run("--id t-test0001", "9\n", &out), 0) << out;
  EXPECT_NE(out.find("Your puzzle rating: " + std::to_string(int(std::lround(after))) + " -> "),
            std::string::npos)
      << out;
}

TEST(CliPuzzle, NoAnswerIsNotRated) {
  Fixture f;
  std::string out;
  ASSERT_EQ(f.run("", "quit\n", &out), 0) << out;
  EXPECT_NE(out.find("No answer: the puzzle is not rated."), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(f.dir + "/config/kumalak/puzzle-rating.txt"));
}

TEST(CliPuzzle, BadInputIsRefusedWithFileAndLine) {
  Fixture f;
  std::string out;
  EXPECT_EQ(f.run("--id nope", "", &out), 2);
  EXPECT_NE(out.find("no puzzle 'nope'"), std::string::npos) << out;
  EXPECT_EQ(f.run("--date 2026-02-30", "", &out), 2);
  EXPECT_NE(out.find("not a calendar date"), std::string::npos) << out;
  EXPECT_EQ(f.run("--game kalah", "", &out), 2);
  EXPECT_NE(out.find("holds togyz puzzles, not kalah:6,4"), std::string::npos) << out;
  // A damaged rating file is refused, never overwritten.
  std::filesystem::create_directories(f.dir + "/config/kumalak");
  test::write_bytes(f.dir + "/config/kumalak/puzzle-rating.txt",
                    "kumalak-puzzle-rating 1\nrating togyz 1500 oops 0.06\n");
  EXPECT_EQ(f.run("--id t-test0001", "9\n", &out), 2);
  EXPECT_NE(out.find("puzzle-rating.txt:2: expected 'rating GAME"), std::string::npos) << out;
  // A truncated puzzle file: the line where 'end' should be.
  test::write_bytes(f.file,
                    std::string(kPuzzleFile).substr(0, std::string(kPuzzleFile).find("end")));
  EXPECT_EQ(f.run("", "9\n", &out), 2);
  EXPECT_NE(out.find(f.file + ":3: truncated"), std::string::npos) << out;
}

// Two recorded games: one from a position with one winning capture, one from the start
// (its first plies have no clear move). The build finds the one puzzle, names its source
// game, and says (exit 3) that it ran out of positions before --count.
TEST(CliPuzzle, BuildMinesATinyInput) {
  const std::string dir = test::temp_dir("cli-puzzles-build");
  std::filesystem::create_directories(dir + "/games");
  test::write_bytes(dir + "/games/tiny.pgn",
                    "[Event \"clear\"]\n[Date \"2026.01.02\"]\n"
                    "[FEN \"0,0,0,0,0,0,0,1,2/9,0,0,0,0,0,0,0,0 72 78 w\"]\n\n1. 91 *\n\n"
                    "[Event \"start\"]\n[Date \"2026.01.03\"]\n\n1. 98 98 2. 11 *\n");
  std::string out;
  EXPECT_EQ(test::run_command(test::bin("kumalak") + " puzzles build --game togyz --model " +
                                  test::source_dir() + "/models/togyz.pt --games-dir " + dir +
                                  "/games --min-ply 0 --count 5 --confirm-visits 16 " +
                                  "--rating-visits 16 --rated-by search --out " + dir + "/out.txt",
                              &out, true),
            3)
      << out;
  EXPECT_NE(out.find("4 positions from 2 games"), std::string::npos) << out;
  EXPECT_NE(out.find("puzzles/s"), std::string::npos) << out;
  const std::string file = test::read_bytes(dir + "/out.txt");
  EXPECT_NE(file.find("0,0,0,0,0,0,0,1,2/9,0,0,0,0,0,0,0,0 72 78 w\t9\twinning-line\t"),
            std::string::npos)
      << file;
  EXPECT_NE(file.find("\ttiny.pgn game 1 (2026.01.02) ply 0\nend 1\n"), std::string::npos) << file;
}

TEST(CliPuzzle, BuildRefusesAMissingSource) {
  std::string out;
  EXPECT_EQ(test::run_command(test::bin("kumalak") + " puzzles build --game togyz --model " +
                                  test::source_dir() + "/models/togyz.pt",
                              &out, true),
            2);
  EXPECT_NE(out.find("give --games-dir and/or --selfplay-games"), std::string::npos) << out;
}

// The human model rates the hand-made puzzle: a rating in range, the file otherwise
// unchanged and readable, the same rating every time; a missing model or another game's
// file is refused.
TEST(CliPuzzle, RateGivesThePuzzleTheHumanModelsRating) {
  Fixture f;
  const std::string rate = test::bin("kumalak") + " puzzles rate --human-model " +
                           test::source_dir() + "/models/togyz-human.pt --in " + f.file;
  std::string out;
  ASSERT_EQ(test::run_command(rate + " --out " + f.dir + "/rated.txt", &out, true), 0) << out;
  EXPECT_NE(out.find("rated 1 puzzles into " + f.dir + "/rated.txt"), std::string::npos) << out;
  const std::string rated = test::read_bytes(f.dir + "/rated.txt");
  const PuzzleSet set = parse_puzzle_text(rated, "rated.txt");
  ASSERT_EQ(set.puzzles.size(), 1u);
  EXPECT_GE(set.puzzles[0].rating, kMinPuzzleRating);
  EXPECT_LE(set.puzzles[0].rating, kMaxPuzzleRating);
  EXPECT_EQ(set.puzzles[0].source, "hand-made");
  ASSERT_EQ(test::run_command(rate + " --out " + f.dir + "/again.txt", &out, true), 0) << out;
  EXPECT_EQ(test::read_bytes(f.dir + "/again.txt"), rated);

  EXPECT_EQ(test::run_command(test::bin("kumalak") + " puzzles rate --human-model " + f.dir +
                                  "/none.pt --in " + f.file + " --out " + f.dir + "/x.txt",
                              &out, true),
            1);
  EXPECT_NE(out.find("none.pt"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(test::bin("kumalak") + " puzzles rate --game kalah --in " + f.file +
                                  " --out " + f.dir + "/x.txt",
                              &out, true),
            2);
  EXPECT_NE(out.find("holds togyz puzzles, not kalah:6,4"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(f.dir + "/x.txt"));
}

// Three recorded games from the puzzle's position: a 1500 player found the key move, a
// 1300 player did not, an unrated one does not count; puzzles from self-play or from a
// game that is not there are counted apart.
TEST(CliPuzzle, CalibrateJudgesTheRatingsOnWhatRatedPlayersDid) {
  const std::string dir = test::temp_dir("cli-puzzles-calibrate");
  std::filesystem::create_directories(dir + "/games");
  const std::string fen = "0,0,0,0,0,0,0,1,2/9,0,0,0,0,0,0,0,0 72 78 w";
  test::write_bytes(dir + "/games/tiny.pgn",
                    "[Event \"a\"]\n[Date \"2026.01.02\"]\n[WhiteElo \"1500\"]\n"
                    "[BlackElo \"1400\"]\n[FEN \"" +
                        fen +
                        "\"]\n\n1. 91 *\n\n"
                        "[Event \"b\"]\n[Date \"2026.01.03\"]\n[WhiteElo \"1300\"]\n"
                        "[BlackElo \"1400\"]\n[FEN \"" +
                        fen +
                        "\"]\n\n1. 89 *\n\n"
                        "[Event \"c\"]\n[Date \"2026.01.04\"]\n[FEN \"" +
                        fen + "\"]\n\n1. 91 *\n");
  auto line = [&](const std::string& id, const std::string& source) {
    return id + "\t" + fen + "\t9\twinning-line\t1400\t0.900\t" + source + "\n";
  };
  test::write_bytes(dir + "/p.txt", "kumalak-puzzles 1 togyz\n" +
                                        line("t-1", "tiny.pgn game 1 (2026.01.02) ply 0") +
                                        line("t-2", "tiny.pgn game 2 (2026.01.03) ply 0") +
                                        line("t-3", "tiny.pgn game 3 (2026.01.04) ply 0") +
                                        line("t-4", "tiny.pgn game 9 (2026.01.09) ply 0") +
                                        line("t-5", "self-play seed 1 game 2 ply 7") + "end 5\n");
  const std::string calibrate = test::bin("kumalak") + " puzzles calibrate --games-dir " + dir +
                                "/games --puzzles " + dir + "/p.txt";
  std::string out;
  ASSERT_EQ(test::run_command(calibrate + " --puzzles " + dir + "/p.txt --json", &out, false), 0)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["games"], 3);
  const auto& file = j["files"][0];
  EXPECT_EQ(file["attempts"], 2);
  EXPECT_DOUBLE_EQ(file["found"].get<double>(), 0.5);
  EXPECT_EQ(file["skipped"]["player_unrated"], 1);
  EXPECT_EQ(file["skipped"]["game_not_found"], 1);
  EXPECT_EQ(file["skipped"]["not_from_a_recorded_game"], 1);
  // A 1400 puzzle: the 1500 player was expected to find it a little more often than not (g(RD 80) =
  // 0.96925, Glicko-2).
  const double p1500 = 1 / (1 + std::pow(10, -100 / 400.0 * 0.96925));
  const double p1300 = 1 / (1 + std::pow(10, 100 / 400.0 * 0.96925));
  EXPECT_NEAR(file["log_loss"].get<double>(), -(std::log(p1500) + std::log(1 - p1300)) / 2, 1e-3);
  EXPECT_LE(file["constant_log_loss"].get<double>(), file["log_loss"].get<double>() + 1e-9);
  EXPECT_DOUBLE_EQ(file["ordering_auc"].get<double>(), 1.0);
  ASSERT_EQ(j["paired"].size(), 1u);
  EXPECT_EQ(j["paired"][0]["shared_attempts"], 2);
  EXPECT_DOUBLE_EQ(j["paired"][0]["log_loss_difference"].get<double>(), 0.0);

  ASSERT_EQ(test::run_command(calibrate, &out, false), 0) << out;
  EXPECT_NE(out.find("2 attempts"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(calibrate + " --fold some", &out, true), 2);
  EXPECT_NE(out.find("some"), std::string::npos) << out;
}

}  // namespace kz
