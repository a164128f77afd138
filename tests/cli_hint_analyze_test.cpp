// `kumalak hint` and `kumalak analyze` end to end.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace kz {
namespace {

std::string kumalak() {
  return test::bin("kumalak");
}

// White's hole 9 (one stone) lands on Black's hole 1: 15 + 1 = 16, an even capture.
// No other move captures anything.
const char* kCapture = "1,1,1,1,1,1,1,1,1/15,14,14,14,14,14,14,14,0 20 20 w";

TEST(CliHint, FindsTheCaptureAndSaysWhy) {
  std::string out;
  ASSERT_EQ(
      test::run_command(kumalak() + " hint --position '" + std::string(kCapture) + "' --depth 5",
                        &out, true),
      0)
      << out;
  EXPECT_NE(out.find("1. hole 9 (91)  win "), std::string::npos) << out;
  EXPECT_NE(out.find("captures 16 stones on their hole 1"), std::string::npos) << out;
  EXPECT_NE(out.find("expected line: 91 "), std::string::npos) << out;
  EXPECT_NE(out.find("3. hole "), std::string::npos) << "three moves are shown";
}

TEST(CliHint, SpeaksTheChosenLanguage) {
  std::string out;
  ASSERT_EQ(test::run_command(kumalak() + " hint --lang ru --count 1 --depth 3 --position '" +
                                  std::string(kCapture) + "'",
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("1. лунка 9 (91)  победа "), std::string::npos) << out;
  EXPECT_NE(out.find("берёт 16 кумалаков в лунке 1 соперника"), std::string::npos) << out;
  EXPECT_NE(out.find("ожидаемое продолжение: 91 "), std::string::npos) << out;
  // The environment chooses when --lang is not given; an unknown language is English
  // with a note, never an error.
  ASSERT_EQ(
      test::run_command("LANGUAGE= LC_ALL= LANG=kk_KZ.UTF-8 " + kumalak() +
                            " hint --count 1 --depth 3 --position '" + std::string(kCapture) + "'",
                        &out, true),
      0)
      << out;
  EXPECT_NE(out.find("қарсыластың 1-отауынан 16 құмалақ алады"), std::string::npos) << out;
  ASSERT_EQ(test::run_command(kumalak() + " hint --lang xx --count 1 --depth 3 --position '" +
                                  std::string(kCapture) + "'",
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("captures 16 stones on their hole 1"), std::string::npos) << out;
  EXPECT_NE(out.find("note: no translation for language 'xx', using English"), std::string::npos)
      << out;
}

TEST(CliHint, JsonForPrograms) {
  std::string out;
  ASSERT_EQ(
      test::run_command(
          kumalak() + " hint --json --depth 5 --position '" + std::string(kCapture) + "'", &out),
      0)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["game"], "togyz");
  EXPECT_EQ(j["side"], "white");
  EXPECT_EQ(j["depth"], 5);
  ASSERT_EQ(j["moves"].size(), 3u);
  const auto& best = j["moves"][0];
  EXPECT_EQ(best["move"], 9);
  EXPECT_EQ(best["notation"], "91");
  EXPECT_EQ(best["line"][0], "91");
  EXPECT_EQ(best["line_pits"][0], 9);
  const double sum =
      best["win"].get<double>() + best["draw"].get<double>() + best["loss"].get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-3);
  EXPECT_NE(best["reason"].get<std::string>().find("captures 16 stones"), std::string::npos);
  EXPECT_GE(best["win"].get<double>(), j["moves"][1]["win"].get<double>());
}

// With the shipped network at hand, hint uses it (expert is the network MCTS), and the
// best move is still the big capture; --depth asks the alpha-beta engine instead.
TEST(CliHint, ShippedNetworkAndDepthChooseTheEngine) {
  const std::string models = std::string("KZ_MODELS_DIR=") + test::source_dir() + "/models ";
  std::string out;
  ASSERT_EQ(test::run_command(models + kumalak() + " hint --json --movetime 0.3 --position '" +
                                  std::string(kCapture) + "'",
                              &out),
            0)
      << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["engine"], "mcts-expert");
  EXPECT_EQ(j["moves"][0]["move"], 9);
  out.clear();
  ASSERT_EQ(test::run_command(models + kumalak() + " hint --json --depth 4 --position '" +
                                  std::string(kCapture) + "'",
                              &out),
            0)
      << out;
  j = nlohmann::json::parse(out);
  EXPECT_EQ(j["engine"], "alphabeta-expert");
  EXPECT_EQ(j["depth"], 4);
}

TEST(CliHint, KalahFromMovesAndBadInput) {
  std::string out;
  // After 3 (an extra turn) South moves again.
  ASSERT_EQ(test::run_command(kumalak() + " hint --game kalah --moves '3' --depth 6 --json", &out),
            0)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["side"], "south");
  EXPECT_EQ(j["position"], "4,4,0,5,5,5/4,4,4,4,4,4 1 0 s");
  EXPECT_NE(j["moves"][0]["move"], 3) << "pit 3 is empty";

  out.clear();
  EXPECT_EQ(test::run_command(kumalak() + " hint --position 'nonsense'", &out, true), 2);
  EXPECT_NE(out.find("kumalak hint: position 'nonsense'"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(test::run_command(kumalak() + " hint --moves '1 1 1 1 1'", &out, true), 2);
  EXPECT_NE(out.find("ply 5, move 1: hole 1 is empty"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(test::run_command(kumalak() + " hint", &out, true), 2);
  out.clear();
  EXPECT_EQ(test::run_command(
                kumalak() + " hint --position " + "'0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0 90 72 w'",
                &out, true),
            1);
  EXPECT_NE(out.find("the game is over"), std::string::npos) << out;
}

TEST(CliAnalyze, AnnotatesARecordedGame) {
  const std::string shared = test::shared_data_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared/data is absent";
  const std::string dir = test::temp_dir("analyze");
  const std::string in = shared + "/togyz/tournament-2018.pgn";
  const std::string annotated = dir + "/annotated.pgn";
  std::string out;
  ASSERT_EQ(test::run_command(kumalak() + " analyze " + in + " --games 2 --depth 3 -o " + annotated,
                              &out, true),
            0)
      << out;
  EXPECT_NE(out.find("Game 2 ("), std::string::npos) << out;
  EXPECT_NE(out.find("  White "), std::string::npos) << out;
  EXPECT_NE(out.find("  Black "), std::string::npos) << out;
  EXPECT_NE(out.find("average loss"), std::string::npos) << out;
  // Each player's accuracy, and the mistakes and blunders offered as puzzles.
  EXPECT_NE(out.find("    Accuracy: "), std::string::npos) << out;
  if (out.find("blunders 0") == std::string::npos || out.find("mistakes 0,") == std::string::npos) {
    EXPECT_NE(out.find(": Find a better move than "), std::string::npos) << out;
  }

  // The annotated game is still a valid record of the same game, with a comment per
  // move.
  std::string original, again;
  ASSERT_EQ(test::run_command(kumalak() + " replay " + in, &original), 0);
  ASSERT_EQ(test::run_command(kumalak() + " replay " + annotated, &again, true), 0) << again;
  std::istringstream lines(original);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);  // game 2
  const auto want = nlohmann::json::parse(second);
  const auto got = nlohmann::json::parse(again);
  EXPECT_EQ(got["position"], want["position"]);
  EXPECT_EQ(got["plies"], want["plies"]);
  std::ifstream f(annotated);
  std::stringstream text;
  text << f.rdbuf();
  int comments = 0;
  for (size_t at = text.str().find("{W "); at != std::string::npos;
       at = text.str().find("{W ", at + 1))
    ++comments;
  EXPECT_EQ(comments, want["plies"].get<int>());
  EXPECT_NE(text.str().find("[Annotator \"KumalakZero "), std::string::npos);
  EXPECT_NE(text.str().find("engine: "), std::string::npos) << "some move differs from the engine";

  // Without --output the PGN goes to stdout with the summary in ';' comment lines.
  out.clear();
  ASSERT_EQ(test::run_command(kumalak() + " analyze " + in + " --games 1 --depth 2", &out), 0);
  EXPECT_EQ(out.rfind("[Event ", 0), 0u);
  EXPECT_NE(out.find("\n; Game 1 ("), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CliAnalyze, BadArguments) {
  std::string out;
  EXPECT_EQ(test::run_command(kumalak() + " analyze /nonexistent.pgn --depth 2", &out, true), 1);
  EXPECT_NE(out.find("cannot open '/nonexistent.pgn'"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(test::run_command(kumalak() + " analyze x.pgn --games 3-1", &out, true), 2);
  EXPECT_NE(out.find("--games: '3-1' is not a valid range"), std::string::npos) << out;
  // A record with an illegal move is reported with its ply, and analysis goes on.
  const std::string dir = test::temp_dir("analyze");
  std::ofstream(dir + "/bad.pgn") << "[White \"A\"]\n[Black \"B\"]\n\n1. 19 19 2. 12 12 3. 12 *\n\n"
                                  << "[White \"C\"]\n[Black \"D\"]\n\n1. 76(10) 87(2) *\n";
  out.clear();
  EXPECT_EQ(test::run_command(kumalak() + " analyze " + dir + "/bad.pgn --depth 2", &out, true), 1);
  EXPECT_NE(out.find("ply 5"), std::string::npos) << out;
  EXPECT_NE(out.find("C vs D"), std::string::npos) << "the good game is still analysed";
  std::filesystem::remove_all(dir);
}

// What a player meets giving analyze a record that does not read or is not there is
// said in the player's language, after the file and line (no words).
TEST(CliAnalyze, RecordErrorsInThePlayersLanguage) {
  const std::string dir = test::temp_dir("analyze");
  std::ofstream(dir + "/tag.pgn") << "[White \"A\"]\n[Black \"B\"\n\n1. 76 *\n";
  std::ofstream(dir + "/comment.pgn") << "[White \"A\"]\n\n1. 76 {never\nclosed 98\n";
  std::ofstream(dir + "/empty.pgn") << "\n";
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--lang kk " + dir + "/tag.pgn", dir + "/tag.pgn:2: Black тегінде жабатын ']' жоқ"},
      {"--lang ru " + dir + "/comment.pgn", dir + "/comment.pgn:3: комментарий '{' не закрыт"},
      {"--lang ky " + dir + "/missing.pgn", "'" + dir + "/missing.pgn' ачылбады: мындай файл жок"},
      {"--lang kk " + dir, "'" + dir + "' ашылмады: бұл файл емес, қалта"},
      {"--lang ru " + dir + "/empty.pgn", "в '" + dir + "/empty.pgn' нет ни одной партии"},
      {"--lang ky " + dir + "/tag.pgn --games 3-1", "--games: '3-1' — жараксыз аралык"},
  };
  for (const Case& c : cases) {
    std::string out;
    EXPECT_NE(test::run_command(kumalak() + " analyze --depth 2 " + c.args, &out, true), 0)
        << c.args;
    EXPECT_NE(out.find(c.message), std::string::npos) << c.args << "\n" << out;
    // Nothing in Latin letters but the command's name, the files' and the tag's.
    std::string rest = out;
    for (const std::string& name :
         {dir + "/tag.pgn", dir + "/comment.pgn", dir + "/missing.pgn", dir + "/empty.pgn", dir,
          std::string("kumalak analyze"), std::string("--games"), std::string("Black")})
      for (size_t at; (at = rest.find(name)) != std::string::npos;) rest.erase(at, name.size());
    EXPECT_EQ(rest.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
              std::string::npos)
        << c.args << "\n"
        << out;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz
