// `kumalak analyze --player-report` (one player's games from a file of many, a line each
// and the rating over all of them) and `--by-player` (the measurement) end to end, with
// the shipped models.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace kz {
namespace {

std::string kumalak() {
  // The shipped models' folder, where the human model's search mixture finds the engine.
  return "KZ_MODELS_DIR=" + test::source_dir() + "/models " + test::bin("kumalak");
}

bool models_present() {
  return std::filesystem::exists(test::source_dir() + "/models/togyz-human.pt") &&
         std::filesystem::exists(test::source_dir() + "/models/togyz.pt");
}

// The opening of a PlayOK game (legal, its landing holes and kazans as recorded).
const char* kMoves = "1. 76(10) 87(2) 2. 99 91 3. 78 91(14) 4. 45(22) 77(16)";

std::string game(const std::string& white, const std::string& black, const std::string& result,
                 const std::string& moves = kMoves, const std::string& extra_tags = "") {
  return "[Date \"2025.11.09\"]\n[White \"" + white + "\"]\n[Black \"" + black + "\"]\n" +
         extra_tags + "[Result \"" + result + "\"]\n\n" + moves + " " + result + "\n\n";
}

TEST(CliAnalyzeGames, ReportsThePlayerWithTheMostGamesAndSkipsABrokenOne) {
  if (!models_present()) GTEST_SKIP() << "models/togyz.pt or models/togyz-human.pt is absent";
  const std::string dir = test::temp_dir("analyze_games");
  const std::string file = dir + "/mine.pgn";
  std::ofstream(file) << game("Ann", "Bob", "1-0") << game("Cid", "Ann", "1/2-1/2")
                      << game("Ann", "Dan", "*", "1. 19 19 2. 12 12 3. 12")  // illegal ply 5
                      << game("Eve", "Bob", "0-1");
  std::string out;
  // A skipped game makes the exit status 1; the rest is still reported.
  ASSERT_EQ(
      test::run_command(
          kumalak() + " analyze --player-report --visits 16 --threads 2 --json " + file, &out),
      1)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["player"], "Ann");  // three games, Bob two
  ASSERT_EQ(j["games"].size(), 2u) << out;
  EXPECT_EQ(j["games"][0]["opponent"], "Bob");
  EXPECT_EQ(j["games"][0]["colour"], "white");
  EXPECT_EQ(j["games"][0]["score"], 1.0);
  EXPECT_EQ(j["games"][0]["date"], "2025.11.09");
  EXPECT_EQ(j["games"][0]["plies"], 8);
  EXPECT_EQ(j["games"][1]["opponent"], "Cid");
  EXPECT_EQ(j["games"][1]["colour"], "black");
  EXPECT_EQ(j["games"][1]["score"], 0.5);
  for (const auto& g : j["games"]) {
    ASSERT_TRUE(g["accuracy"].is_number()) << g;
    EXPECT_GE(g["accuracy"].get<double>(), 0);
    EXPECT_LE(g["accuracy"].get<double>(), 100);
    ASSERT_TRUE(g["played_like"].is_object()) << g;
  }
  ASSERT_EQ(j["skipped"].size(), 1u);
  EXPECT_EQ(j["skipped"][0]["game"], 3);
  EXPECT_NE(j["skipped"][0]["reason"].get<std::string>().find("ply 5"), std::string::npos) << out;
  const auto& rating = j["rating"];
  EXPECT_EQ(rating["games"], 2);
  EXPECT_LT(rating["low"].get<int>(), rating["rating"].get<int>());
  EXPECT_GT(rating["high"].get<int>(), rating["rating"].get<int>());
  EXPECT_EQ(j["visits"], 16);
  EXPECT_EQ(j["threads"], 2);  // two threads, the games still in file order

  // A chosen player, without accuracy, in words and in Russian.
  out.clear();
  ASSERT_EQ(
      test::run_command(
          kumalak() + " analyze --lang ru --player Bob --visits 0 " + file + " 2>/dev/null", &out),
      0)
      << out;
  EXPECT_NE(out.find("Bob: 2 партии"), std::string::npos) << out;
  EXPECT_NE(out.find("Соперник"), std::string::npos) << out;
  EXPECT_NE(out.find("Eve"), std::string::npos) << out;
  EXPECT_NE(out.find("поражение 1-0"), std::string::npos) << out;
  EXPECT_NE(out.find("Рейтинг по всем 2 партиям: "), std::string::npos) << out;

  // A player who is not in the file.
  out.clear();
  EXPECT_EQ(test::run_command(kumalak() + " analyze --player Zed --visits 0 " + file, &out, true),
            1);
  EXPECT_NE(out.find("no game of 'Zed' could be analysed"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

TEST(CliAnalyzeGames, ByPlayerMeasuresRatedPlayersWithEnoughGames) {
  if (!models_present()) GTEST_SKIP() << "models/togyz.pt or models/togyz-human.pt is absent";
  const std::string dir = test::temp_dir("analyze_games");
  const std::string file = dir + "/rated.pgn";
  {
    std::ofstream f(file);
    const std::string rated = "[WhiteElo \"1200\"]\n[BlackElo \"1800\"]\n";
    for (int k = 0; k < 3; ++k) f << game("Low", "High", "0-1", kMoves, rated);
    f << game("Low", "Once", "1-0", kMoves, rated);  // Once: a single game, left out
  }
  std::string out;
  ASSERT_EQ(test::run_command(kumalak() +
                                  " analyze --by-player --fold all --min-games 3 "
                                  "--likelihood-scales 1,0.5 --without-opponents --json " +
                                  file + " 2>/dev/null",
                              &out),
            0)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["players"], 2);
  EXPECT_EQ(j["games"], 4);
  ASSERT_EQ(j["rows"].size(), 4u * 5u);  // (2 scales x with/without opponents) x 5 rows
  const auto& all = j["rows"][4];
  EXPECT_EQ(all["games"], "all");
  EXPECT_EQ(all["likelihood_scale"], 1.0);
  EXPECT_EQ(all["opponents"], true);
  EXPECT_EQ(all["players"], 2);
  EXPECT_DOUBLE_EQ(all["games_per_player"].get<double>(), 3.5);  // Low 4, High 3
  EXPECT_DOUBLE_EQ(all["mean_mae"].get<double>(), 300);
  ASSERT_EQ(j["player_list"].size(), 2u);
  EXPECT_EQ(j["player_list"][0]["name"], "Low");
  EXPECT_EQ(j["player_list"][0]["recorded"], 1200);

  // Fewer than two players qualify: said, not measured.
  out.clear();
  EXPECT_EQ(test::run_command(kumalak() + " analyze --by-player --fold all --min-games 4 " + file,
                              &out, true),
            1);
  EXPECT_NE(out.find("fewer than two players"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

// A cross-validation's folds end to end: `--by-player --held-out j/2` measures the j-th
// half of the games, the two halves hold every game once, and `--pool-by-player` puts
// their players in one table.
TEST(CliAnalyzeGames, HeldOutFoldsPoolIntoOneTable) {
  if (!models_present()) GTEST_SKIP() << "models/togyz.pt or models/togyz-human.pt is absent";
  const std::string dir = test::temp_dir("analyze_folds");
  const std::string file = dir + "/rated.pgn";
  {
    std::ofstream f(file);
    for (int k = 0; k < 8; ++k) {
      const std::string n = std::to_string(k);
      std::string tags = "[Round \"";
      tags += n;
      tags += "\"]\n[WhiteElo \"";
      tags += std::to_string(1000 + 100 * k);
      tags += "\"]\n[BlackElo \"1500\"]\n";
      f << game("A" + n, "B" + n, "1-0", kMoves, tags);
    }
  }
  std::vector<std::string> jsons;
  int games = 0, players = 0;
  for (int j = 0; j < 2; ++j) {
    std::string out;
    const std::string json = dir + "/fold-" + std::to_string(j) + ".json";
    ASSERT_EQ(test::run_command(kumalak() + " analyze --by-player --held-out " + std::to_string(j) +
                                    "/2 --min-games 1 --json " + file + " 2>/dev/null >" + json,
                                &out),
              0)
        << out;
    std::ifstream in(json);
    const auto fold = nlohmann::json::parse(in);
    EXPECT_EQ(fold["held_out"], std::to_string(j) + "/2");
    EXPECT_EQ(fold["rows"][4]["scored"].size(), fold["players"].get<size_t>());
    games += fold["games"].get<int>();
    players += fold["players"].get<int>();
    jsons.push_back(json);
  }
  EXPECT_EQ(games, 8);
  EXPECT_EQ(players, 16);
  std::string out;
  ASSERT_EQ(test::run_command(
                kumalak() + " analyze --pool-by-player --json " + jsons[1] + " " + jsons[0], &out),
            0)
      << out;
  const auto pooled = nlohmann::json::parse(out);
  EXPECT_EQ(pooled["games"], 8);
  EXPECT_EQ(pooled["players"], 16);
  EXPECT_EQ(pooled["distinct_players"], 16);
  EXPECT_EQ(pooled["folds"][0]["held_out"], "0/2");
  EXPECT_EQ(pooled["rows"][4]["players"], 16);
  // One fold twice is refused, naming the file.
  out.clear();
  EXPECT_EQ(test::run_command(kumalak() + " analyze --pool-by-player " + jsons[0] + " " + jsons[0],
                              &out, true),
            2);
  EXPECT_NE(out.find("is also"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(
      test::run_command(kumalak() + " analyze --by-player --held-out 2/2 " + file, &out, true), 2);
  EXPECT_NE(out.find("held-out fold '2/2'"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kz
