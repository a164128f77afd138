// Levels named by a PlayOK rating (tools/human_level.h): `kumalak play` and `kumalak
// hint` at the ends of the human model's range, and the refusals outside it.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace kz {
namespace {

const std::string kModels = std::string("KZ_MODELS_DIR=") + test::source_dir() + "/models ";

int kumalak(const std::string& args, std::string* out, const std::string& env = kModels) {
  return test::run_command(env + "NO_COLOR=1 " + test::bin("kumalak") + " " + args, out, true);
}

// A few human moves then quit: the engine answers each at the rating level.
int play(const std::string& args, std::string* out) {
  const std::string dir = test::temp_dir("human-level");
  const std::string in = dir + "/input.txt";
  std::ofstream(in) << "1\n2\n3\n4\nquit\n";
  const int rc = kumalak("play " + args + " < " + in, out);
  std::filesystem::remove_all(dir);
  return rc;
}

// The engine's moves of a play transcript ("Black (engine) plays 87...").
std::vector<std::string> engine_moves(const std::string& out) {
  std::vector<std::string> moves;
  const std::string key = "(engine) plays ";
  for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + 1))
    moves.push_back(
        out.substr(at + key.size(), out.find_first_of(":.", at + key.size()) - (at + key.size())));
  return moves;
}

TEST(CliHumanLevel, PlaysAtBothEndsOfTheRangeAndReplaysBySeed) {
  for (const char* rating : {"800", "2200"}) {
    std::string out;
    ASSERT_EQ(play(std::string("--level ") + rating + " --seed 5", &out), 0) << out;
    EXPECT_NE(out.find(std::string("like a PlayOK player rated ") + rating), std::string::npos)
        << out;
    const auto moves = engine_moves(out);
    EXPECT_GE(moves.size(), 3u) << out;
    std::string again;
    ASSERT_EQ(play(std::string("--level ") + rating + " --seed 5", &again), 0) << again;
    EXPECT_EQ(engine_moves(again), moves) << "the same seed draws the same moves";
  }
}

TEST(CliHumanLevel, RefusesARatingOutsideTheRangeNamingIt) {
  for (const char* rating : {"799", "2201"}) {
    for (const char* command : {"play", "hint --moves 1"}) {
      std::string out;
      EXPECT_EQ(kumalak(std::string(command) + " --level " + rating + " </dev/null", &out), 2)
          << out;
      EXPECT_NE(out.find("range 800..2200"), std::string::npos) << out;
    }
  }
}

// The refusals a player meets on the command line, in the player's language.
TEST(CliHumanLevel, RefusalsAreInThePlayersLanguage) {
  std::string out;
  EXPECT_EQ(kumalak("hint --lang ru --moves 1 --level 5000", &out), 2) << out;
  EXPECT_NE(out.find("уровень 5000: уровень по рейтингу должен лежать в диапазоне модели игры "
                     "людей 800..2200"),
            std::string::npos)
      << out;
  out.clear();
  EXPECT_EQ(kumalak("play --lang kk --game kalah --level 1200 </dev/null", &out), 2) << out;
  EXPECT_NE(out.find("1200 деңгейі: рейтинг бойынша деңгейге kalah:6,4 үшін адамдар ойынының "
                     "үлгісі керек (models/kalah-human.pt"),
            std::string::npos)
      << out;
  out.clear();
  EXPECT_EQ(
      kumalak("hint --lang ky --moves 1 --level 1200 --human-model /nonexistent/none.pt", &out), 2)
      << out;
  EXPECT_NE(out.find("1200 деңгээли: '/nonexistent/none.pt' адамдардын оюнунун модели жок"),
            std::string::npos)
      << out;
}

TEST(CliHumanLevel, RefusesARatingWithoutAHumanModel) {
  std::string out;
  EXPECT_EQ(kumalak("play --game kalah --level 1200 </dev/null", &out), 2) << out;
  EXPECT_NE(out.find("kalah-human.pt"), std::string::npos) << out;
  const std::string empty = test::temp_dir("no-models");
  out.clear();
  EXPECT_EQ(kumalak("hint --moves 1 --level 1200", &out, "KZ_MODELS_DIR=" + empty + " "), 2) << out;
  EXPECT_NE(out.find("togyz-human.pt"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(kumalak("hint --moves 1 --level 1200 --human-model " + empty + "/none.pt", &out), 2)
      << out;
  EXPECT_NE(out.find("none.pt' does not exist"), std::string::npos) << out;
  std::filesystem::remove_all(empty);
  // The named levels keep their meaning: 1..5 are beginner..expert, not ratings.
  out.clear();
  EXPECT_EQ(kumalak("hint --moves 1 --level 2 --depth 1", &out), 0) << out;
  EXPECT_EQ(out.find("players rated"), std::string::npos) << out;
}

TEST(CliHumanLevel, HintAtARatingListsTheHumanMovesAndTheEnginesBest) {
  std::string out;
  ASSERT_EQ(kumalak("hint --moves \"1 2\" --level 800 --depth 2 --count 2", &out), 0) << out;
  EXPECT_NE(out.find("The moves players rated 800 make here"), std::string::npos) << out;
  EXPECT_NE(out.find("1. hole "), std::string::npos) << out;
  EXPECT_NE(out.find("2. hole "), std::string::npos) << out;
  EXPECT_EQ(out.find("3. hole "), std::string::npos) << "--count 2" << out;
  EXPECT_NE(out.find("Most players at 800 play "), std::string::npos) << out;
  EXPECT_NE(out.find("; the engine's best is "), std::string::npos) << out;

  std::string json;
  ASSERT_EQ(kumalak("hint --moves \"1 2\" --level 2200 --depth 2 --json", &json), 0) << json;
  const auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["rating"], 2200);
  ASSERT_EQ(j["moves"].size(), 3u);
  double previous = 1.0, total = 0;
  for (const auto& m : j["moves"]) {
    const double p = m["probability"];
    EXPECT_LE(p, previous) << "most likely first";
    previous = p;
    total += p;
  }
  EXPECT_GT(total, 0.0);
  EXPECT_LE(total, 1.0 + 1e-5);
  EXPECT_GE(j["engine_best"]["move"].get<int>(), 1);
}

// A named level's hint with --rating: the engine's moves, then what most players of the
// rating play (the same sentence as a rating level's hint).
TEST(CliHumanLevel, HintWithARatingSaysWhatMostPlayersOfItPlay) {
  std::string out;
  ASSERT_EQ(kumalak("hint --moves \"1 2\" --depth 2 --rating 1300", &out), 0) << out;
  EXPECT_NE(out.find("Engine "), std::string::npos) << out;
  EXPECT_NE(out.find("Most players at 1300 play "), std::string::npos) << out;
  std::string json;
  ASSERT_EQ(kumalak("hint --moves \"1 2\" --depth 2 --rating 2200 --json", &json), 0) << json;
  const auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["human"]["rating"], 2200);
  EXPECT_EQ(j["human"]["moves"].size(), 3u) << json;
  for (const char* rating : {"799", "2201"}) {
    out.clear();
    EXPECT_EQ(kumalak(std::string("hint --moves 1 --depth 1 --rating ") + rating, &out), 2) << out;
    EXPECT_NE(out.find("range 800..2200"), std::string::npos) << out;
  }
  out.clear();
  EXPECT_EQ(kumalak("hint --game kalah --moves 1 --depth 1 --rating 1200", &out), 2) << out;
  EXPECT_NE(out.find("kalah-human.pt"), std::string::npos) << out;
}

TEST(CliHumanLevel, AnalyzeEstimatesEachPlayersRating) {
  const std::string dir = test::temp_dir("human-analyze");
  const std::string pgn = dir + "/game.pgn";
  std::ofstream(pgn) << "[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[Variant \"togyz\"]\n\n"
                        "1. 19 32 2. 23(2) 99(12) 3. 35 56(26) 4. 48(14) 13x *\n";
  std::string out;
  ASSERT_EQ(kumalak("analyze " + pgn + " --depth 1", &out), 0) << out;
  // Both players, each with an interval inside the model's range around the estimate.
  int estimates = 0;
  for (size_t at = out.find("Played like a "); at != std::string::npos;
       at = out.find("Played like a ", at + 1)) {
    int rating = 0, low = 0, high = 0;
    ASSERT_EQ(std::sscanf(out.c_str() + at, "Played like a %d [%d, %d].", &rating, &low, &high), 3)
        << out.substr(at, 60);
    EXPECT_LE(800, low);
    EXPECT_LE(low, rating);
    EXPECT_LE(rating, high);
    EXPECT_LE(high, 2200);
    ++estimates;
  }
  EXPECT_EQ(estimates, 2) << out;
  EXPECT_NE(out.find("Ply 1: 19, played here by "), std::string::npos) << out;
  EXPECT_NE(out.find("Ply 8: 13x, played here by "), std::string::npos) << out;
  // Without a human model there is no estimate, and nothing else changes.
  std::string plain;
  const std::string empty = dir + "/no-models";
  std::filesystem::create_directories(empty);
  ASSERT_EQ(kumalak("analyze " + pgn + " --depth 1", &plain, "KZ_MODELS_DIR=" + empty + " "), 0)
      << plain;
  EXPECT_EQ(plain.find("Played like a "), std::string::npos) << plain;
  EXPECT_NE(plain.find("Game 1 ("), std::string::npos) << plain;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz
