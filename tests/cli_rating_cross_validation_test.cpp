// tools/rating_cross_validation.sh end to end on a tiny data set: two folds' models made
// by human-train (the shipped recipe's three steps), measured by analyze --by-player
// --held-out and pooled; a second run resumes (nothing made again), a lost fold's
// measurement is made again alone, and a bad argument is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/test_util.h"

namespace kz {
namespace {

// Twelve rated games a file, under the three names the script reads.
void write_data(const std::string& dir) {
  const std::string moves = "1. 76(10) 87(2) 2. 99 91 3. 78 91(14) 4. 45(22) 77(16)";
  int round = 0;
  for (const char* name : {"playok-2025.pgn", "playok-2024-25.pgn", "tournament-2018.pgn"}) {
    std::ofstream f(dir + "/" + name);
    for (int i = 0; i < 12; ++i, ++round)
      f << "[Event \"t\"]\n[Round \"" << round << "\"]\n[White \"P" << i % 4 << "\"]\n[Black \"Q"
        << i % 3 << "\"]\n[WhiteElo \"" << 1000 + 100 * (i % 4) << "\"]\n[BlackElo \""
        << 1300 + 100 * (i % 3) << "\"]\n[TimeControl \"300\"]\n[Result \"1-0\"]\n\n"
        << moves << " 1-0\n\n";
  }
}

TEST(CliRatingCrossValidation, TwoFoldsMadeMeasuredPooledAndResumed) {
  if (!std::filesystem::exists(test::source_dir() + "/models/togyz.pt"))
    GTEST_SKIP() << "models/togyz.pt is absent";
  const std::string dir = test::temp_dir("rating_cv");
  std::filesystem::create_directories(dir + "/data");
  write_data(dir + "/data");
  const std::string script = "cd " + test::source_dir() +
                             " && KZ_MODELS_DIR=" + test::source_dir() +
                             "/models tools/rating_cross_validation.sh --build " + test::bin_dir() +
                             "/.. --data " + dir + "/data --work " + dir + "/work --folds 2";
  std::string out;
  ASSERT_EQ(test::run_command(script + " --lanes 2", &out, true), 0) << out;
  std::ifstream in(dir + "/work/pooled.json");
  ASSERT_TRUE(in) << out;
  const auto pooled = nlohmann::json::parse(in);
  ASSERT_EQ(pooled["folds"].size(), 2u);
  int games = 0;
  for (int j = 0; j < 2; ++j) {
    EXPECT_EQ(pooled["folds"][j]["held_out"], std::to_string(j) + "/2");
    games += pooled["folds"][j]["games"].get<int>();
    const std::string model = dir + "/work/fold-" + std::to_string(j) + ".pt";
    EXPECT_TRUE(std::filesystem::exists(model));
    EXPECT_FALSE(std::filesystem::exists(dir + "/work/fold-" + std::to_string(j) + ".part.pt"));
    // The fold's model carries its search mixture, as the shipped one does.
    std::string info;
    ASSERT_EQ(test::run_command(test::bin("kumalak") + " model-info " + model, &info), 0);
    EXPECT_NE(info.find("\"search_mix\""), std::string::npos) << info;
    EXPECT_NE(info.find("fold " + std::to_string(j) + "/2 held out"), std::string::npos) << info;
  }
  EXPECT_EQ(pooled["games"], games);
  EXPECT_GT(games, 0);
  EXPECT_TRUE(std::filesystem::exists(dir + "/work/pooled.txt"));

  // Run again: every file is there, so nothing is made again.
  out.clear();
  ASSERT_EQ(test::run_command(script, &out, true), 0) << out;
  EXPECT_EQ(out.find(" start "), std::string::npos) << out;
  // A fold's measurement lost: only that one is made again.
  std::filesystem::remove(dir + "/work/fold-1.json");
  out.clear();
  ASSERT_EQ(test::run_command(script + " --only evaluate", &out, true), 0) << out;
  EXPECT_NE(out.find("start " + dir + "/work/fold-1.json"), std::string::npos) << out;
  EXPECT_EQ(out.find("fold-0.json"), std::string::npos) << out;

  out.clear();
  EXPECT_EQ(test::run_command(script + " --lanes 0", &out, true), 2);
  EXPECT_NE(out.find("--lanes"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(test::run_command(script + " --data " + dir + "/none", &out, true), 2);
  EXPECT_NE(out.find("cannot read"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz
