// `kumalak play` driven through a pipe, as a script or a test harness would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/test_util.h"

namespace kz {
namespace {

// Writes `input` to a file and runs `kumalak play ARGS < file`; returns the exit status.
int play(const std::string& args, const std::string& input, std::string* out,
         const std::string& dir, const std::string& env = "") {
  const std::string in = dir + "/input.txt";
  std::ofstream(in) << input;
  return test::run_command(
      env + "NO_COLOR=1 " + test::bin("kumalak") + " play " + args + " < " + in, out, true);
}

// Enough move attempts to finish any game: every round of 1..9 contains a legal move.
std::string cycling_moves(int rounds, int pits) {
  std::string s;
  for (int r = 0; r < rounds; ++r)
    for (int p = 1; p <= pits; ++p) s += std::to_string(p) + "\n";
  return s;
}

int count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

TEST(CliPlay, WholeTogyzGameAtBeginnerThenSaveAndReplay) {
  const std::string dir = test::temp_dir("play");
  const std::string pgn = dir + "/game.pgn";
  std::string out;
  const int rc = play("--level beginner --seed 3",
                      cycling_moves(150, 9) + "save " + pgn + "\nquit\n", &out, dir);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("Game over: White "), std::string::npos) << out.substr(out.size() - 2000);
  EXPECT_NE(out.find("Saved "), std::string::npos);
  EXPECT_EQ(out.find("\x1b["), std::string::npos) << "no colour codes into a pipe";
  // The saved record replays with the project's own reader and reaches a decided game.
  std::string replay;
  ASSERT_EQ(test::run_command(test::bin("kumalak") + " replay " + pgn, &replay, true), 0) << replay;
  EXPECT_NE(replay.find("\"decided\":true"), std::string::npos) << replay;
  std::ifstream f(pgn);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("[White \"Human\"]"), std::string::npos);
  EXPECT_NE(text.str().find("[Black \"KumalakZero beginner\"]"), std::string::npos);
  EXPECT_EQ(text.str().find("[Result \"*\"]"), std::string::npos) << "a finished game has a result";
  std::filesystem::remove_all(dir);
}

TEST(CliPlay, WholeKalahGameAsNorth) {
  const std::string dir = test::temp_dir("play");
  const std::string pgn = dir + "/kalah.pgn";
  std::string out;
  const int rc = play("--game kalah --level easy --human north --seed 2",
                      cycling_moves(60, 6) + "save " + pgn + "\n", &out, dir);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("you play North"), std::string::npos);
  EXPECT_NE(out.find("South (engine) plays"), std::string::npos) << "South moves first";
  EXPECT_NE(out.find("Game over: South "), std::string::npos);
  EXPECT_NE(out.find("End of input"), std::string::npos) << "EOF ends the session cleanly";
  std::string replay;
  ASSERT_EQ(test::run_command(test::bin("kumalak") + " replay --game kalah " + pgn, &replay, true),
            0)
      << replay;
  EXPECT_NE(replay.find("\"decided\":true"), std::string::npos) << replay;
  std::filesystem::remove_all(dir);
}

TEST(CliPlay, EveryCommandAndBadInput) {
  const std::string dir = test::temp_dir("play");
  const std::string pgn = dir + "/partial.pgn";
  std::string out;
  const std::string input =
      "undo\n"  // nothing yet
      "help\n"
      "bogus\n"
      "0\n"
      "7 6\n"
      "\n"
      "hint\n"
      "eval\n"
      "7\n"  // 76: captures 10
      "7\n"  // hole 7 now holds 1 stone: legal again
      "undo\n"
      "board\n"
      "save\n"  // missing file name
      "save " +
      pgn +
      "\n"
      "save /nonexistent-dir/x/y.pgn\n"
      "quit\n"
      "9\n";  // after quit: never read
  ASSERT_EQ(play("--level easy --seed 1 --hint-movetime 0.1", input, &out, dir), 0) << out;
  EXPECT_NE(out.find("Nothing to undo: you have not moved yet."), std::string::npos) << out;
  EXPECT_NE(out.find("Commands:"), std::string::npos);
  EXPECT_NE(out.find("'bogus' is not a command"), std::string::npos);
  EXPECT_NE(out.find("There is no hole 0: yours are numbered 1-9."), std::string::npos);
  EXPECT_NE(out.find("One move at a time"), std::string::npos);
  EXPECT_NE(out.find("Best moves for you"), std::string::npos);
  EXPECT_EQ(count(out, "expected line: "), 3);
  EXPECT_NE(out.find("For you: win "), std::string::npos);
  EXPECT_NE(out.find("You play 76: captures 10 stones."), std::string::npos) << out;
  EXPECT_NE(out.find("Black (engine) plays "), std::string::npos);
  EXPECT_NE(out.find("Took back 2 plies."), std::string::npos);
  EXPECT_NE(out.find("Usage: save FILE"), std::string::npos);
  EXPECT_NE(out.find("Saved 2 plies to " + pgn), std::string::npos) << out;
  EXPECT_NE(out.find("Could not save"), std::string::npos);
  EXPECT_NE(out.find("Bye."), std::string::npos);
  EXPECT_EQ(out.find("End of input"), std::string::npos) << "quit leaves before EOF";
  // Board: both rows with hole numbers, the kazans, the last move marked.
  EXPECT_NE(out.find("  White (you) to move   kazan 0"), std::string::npos);
  EXPECT_NE(out.find("Black (engine, easy)"), std::string::npos);
  EXPECT_NE(out.find("    9     8     7     6     5     4     3     2     1"), std::string::npos);
  EXPECT_NE(out.find("[n] last move started here"), std::string::npos);
  // The partial game is saved unfinished and replays.
  std::string replay;
  ASSERT_EQ(test::run_command(test::bin("kumalak") + " replay " + pgn, &replay, true), 0) << replay;
  EXPECT_NE(replay.find("\"plies\":2"), std::string::npos) << replay;
  std::filesystem::remove_all(dir);
}

TEST(CliPlay, EmptyHoleAndWrongNotationAreExplained) {
  const std::string dir = test::temp_dir("play");
  std::string out;
  // 76 empties hole 7 of White, then after the engine's reply hole 7 has one stone at
  // most; "75" claims a landing the rules do not give.
  ASSERT_EQ(play("--level beginner --seed 1", "75\n76\nquit\n", &out, dir), 0) << out;
  EXPECT_NE(out.find("From hole 7 the last stone lands on hole 6, not 5"), std::string::npos)
      << out;
  EXPECT_NE(out.find("You play 76"), std::string::npos);
  out.clear();
  ASSERT_EQ(play("--game kalah --level beginner", "3\n3\nquit\n", &out, dir), 0) << out;
  EXPECT_NE(out.find("You play 3: another turn."), std::string::npos) << out;
  EXPECT_NE(out.find("Your pit 3 is empty; you can move from: 1 2 4 5 6."), std::string::npos)
      << out;
  std::filesystem::remove_all(dir);
}

TEST(CliPlay, StonesSownIntoATuzdykGetASentenceOfTheirOwn) {
  const std::string dir = test::temp_dir("play");
  std::string out;
  // White owns the tuzdyk on Black's hole 2: hole 9's 5 stones go 9, then Black's 1-4.
  ASSERT_EQ(play("--level beginner --position '1,1,1,1,1,1,1,1,5/1,x,1,0,1,1,1,1,1 70 72 w'",
                 "9\nquit\n", &out, dir),
            0)
      << out;
  EXPECT_NE(out.find("You play 94. 1 stone goes into White's tuzdyk.\n"), std::string::npos) << out;
  out.clear();
  ASSERT_EQ(play("--lang ru --level beginner --position '1,1,1,1,1,1,1,1,5/1,x,1,0,1,1,1,1,1 70 "
                 "72 w'",
                 "9\nquit\n", &out, dir),
            0)
      << out;
  EXPECT_NE(out.find("Ваш ход: 94. 1 кумалак попадает в туздык стороны «Белые»."),
            std::string::npos)
      << out;
  std::filesystem::remove_all(dir);
}

// The in-game hint of a Kalah position the solver proves says the exact
// result, the same line as `kumalak hint` (tests/cli_solve_test.cpp).
TEST(CliPlay, KalahHintSaysTheExactResult) {
  const std::string dir = test::temp_dir("play");
  std::string out;
  // 22 seeds on the pits: solved in a fraction of the hint's time, with no database
  // (KZ_EGTB_DIR is an empty folder, so the user's cache plays no part).
  ASSERT_EQ(play("--game kalah --level easy --hint-movetime 4 --position "
                 "'0,3,0,6,1,2/2,0,4,1,0,3 14 12 s'",
                 "hint\nquit\n", &out, dir, "KZ_EGTB_DIR=" + dir + " "),
            0)
      << out;
  EXPECT_NE(out.find("solved: you lose by 6 with perfect play; pit 6 keeps -6, pit 4 drops to -12"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("1. pit 6  win 0%, draw 0%, margin -6.0 (proven -6)"), std::string::npos)
      << out;
  std::filesystem::remove_all(dir);
}

TEST(CliPlay, BadOptionsFailWithAMessage) {
  std::string out;
  EXPECT_EQ(
      test::run_command(test::bin("kumalak") + " play --level godlike < /dev/null", &out, true), 2);
  EXPECT_NE(out.find("unknown level 'godlike'"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(
      test::run_command(test::bin("kumalak") + " play --human purple < /dev/null", &out, true), 2);
  out.clear();
  EXPECT_EQ(test::run_command(test::bin("kumalak") + " play --game chess < /dev/null", &out, true),
            2);
  EXPECT_NE(out.find("unknown game 'chess'"), std::string::npos) << out;
}

// kumalak play --clock with input that comes only once the output shows `wait_for` (at
// most 30 s), through a pipe that stays open meanwhile: the person still thinking when
// the flag falls, however long the machine takes to start the engine.
int play_late(const std::string& args, const std::string& wait_for, const std::string& input,
              std::string* out, const std::string& dir) {
  const std::string in = dir + "/input.txt", printed = dir + "/output.txt";
  std::ofstream(in) << input;
  const int rc = test::run_command("{ for i in $(seq 300); do grep -q '" + wait_for + "' " +
                                       printed + " 2>/dev/null && break; sleep 0.1; done; cat " +
                                       in + "; } | NO_COLOR=1 " + test::bin("kumalak") + " play " +
                                       args + " > " + printed + " 2>&1",
                                   nullptr, true);
  *out = test::read_bytes(printed);
  return rc;
}

TEST(CliPlay, AWholeGameOnAClockShowsBothClocks) {
  const std::string dir = test::temp_dir("play-clock");
  std::string out;
  const int rc =
      play("--level beginner --seed 3 --clock 5+2", cycling_moves(150, 9) + "quit\n", &out, dir);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("On a clock of 5+2 each"), std::string::npos) << out.substr(0, 600);
  EXPECT_NE(out.find("White (you, 5:00 left)"), std::string::npos) << out.substr(0, 1500);
  EXPECT_NE(out.find("Black (engine, beginner, 5:00 left)"), std::string::npos);
  // The engine's clock gains its increment: after its first move, in well under two
  // seconds, it shows more than 5:00.
  EXPECT_TRUE(out.find("Black (engine, beginner, 5:01 left)") != std::string::npos ||
              out.find("Black (engine, beginner, 5:02 left)") != std::string::npos)
      << out.substr(0, 3000);
  EXPECT_NE(out.find("Game over: White "), std::string::npos);
  EXPECT_EQ(out.find("ran out"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CliPlay, YourFlagFallsWhileYouThink) {
  const std::string dir = test::temp_dir("play-flag");
  const std::string pgn = dir + "/flag.pgn";
  std::string out;
  const int rc = play_late("--level beginner --clock 300ms", "ran out",
                           "1\nundo\nsave " + pgn + "\nquit\n", &out, dir);
  ASSERT_EQ(rc, 0) << out;
  // Said as soon as the flag falls, before the late input is read.
  const size_t flag = out.find("Your time ran out: 0-1, the engine wins on time.");
  ASSERT_NE(flag, std::string::npos) << out;
  EXPECT_NE(out.find("White (you, 0:00.0 left)"), std::string::npos) << out;
  EXPECT_NE(out.find("The game is over", flag), std::string::npos) << "the late move is refused";
  EXPECT_NE(out.find("On a clock there is no taking moves back."), std::string::npos);
  const std::string text = test::read_bytes(pgn);
  EXPECT_NE(text.find("[Result \"0-1\"]"), std::string::npos) << text;
  EXPECT_NE(text.find("[Termination \"time forfeit\"]"), std::string::npos) << text;
  EXPECT_NE(text.find("[TimeControl \"0.3\"]"), std::string::npos) << text;
  std::string replay;
  EXPECT_EQ(test::run_command(test::bin("kumalak") + " replay " + pgn, &replay, true), 0) << replay;
  std::filesystem::remove_all(dir);
}

TEST(CliPlay, AFlagIsADrawWhereTheEngineCouldNotWinAnyMore) {
  const std::string dir = test::temp_dir("play-flag-draw");
  std::string out;
  // White (you) already has 81: Black can end with 81 at most.
  const int rc = play_late(
      "--level beginner --clock 200ms --position '0,0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0,50 81 30 w'",
      "ran out", "quit\n", &out, dir);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("Your time ran out, but the engine could not win any more: 1/2-1/2, a draw."),
            std::string::npos)
      << out;
  std::filesystem::remove_all(dir);
}

TEST(CliPlay, BadClocksAreRefused) {
  const std::string dir = test::temp_dir("play-clock-bad");
  std::string out;
  EXPECT_EQ(play("--clock 0+3", "quit\n", &out, dir), 2);
  EXPECT_NE(out.find("time control '0+3': the base must be at least a millisecond"),
            std::string::npos)
      << out;
  EXPECT_EQ(play("--clock 5+three", "quit\n", &out, dir), 2);
  EXPECT_NE(out.find("time control '5+three': the increment 'three' is not a number"),
            std::string::npos)
      << out;
  EXPECT_EQ(play("--clock playok-5 --level beginner", "quit\n", &out, dir), 0) << out;
  EXPECT_NE(out.find("On a clock of 5+0 each"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz
