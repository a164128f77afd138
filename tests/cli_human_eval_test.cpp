// End-to-end: runs the built `kumalak human-eval` on small rated Togyz records written
// here and checks its JSON (bins, counts, skipped games, unrated sides by reason), the
// fold filter against core/rated_games.h's split, the searched sample, the table, the
// refusal of a file that does not exist, and `kumalak human-train --epochs 0` writing the
// train fold's two-sided rating prior that human-eval then estimates with.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/rated_games.h"
#include "tests/test_util.h"

namespace kz {
namespace {

using nlohmann::json;

struct CliRun {
  int status = -1;
  std::string out, err;
};

class HumanEval : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("kz-human-eval"); }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    test::write_bytes(path, text);
    return path;
  }

  // `kumalak human-eval --model <shipped togyz> <args>`, stdout and stderr apart; the
  // shipped models' folder is KZ_MODELS_DIR, where a human model's search mixture finds
  // its engine network.
  CliRun run(const std::string& args) {
    const std::string err_file = dir_ + "/stderr";
    CliRun r;
    r.status =
        test::run_command("KZ_MODELS_DIR=" + test::source_dir() + "/models " +
                              test::bin("kumalak") + " human-eval --model " + test::source_dir() +
                              "/models/togyz.pt " + args + " 2>" + err_file,
                          &r.out);
    r.err = test::read_bytes(err_file);
    return r;
  }

  std::string dir_;
};

// A record with the PlayOK tags; an empty rating leaves its tag out.
std::string game(const std::string& round, const std::string& white_elo,
                 const std::string& black_elo, const std::string& moves) {
  std::string t = "[Event \"Synthetic\"]\n[Site \"PlayOK\"]\n[Date \"2025.01.02\"]\n[Round \"" +
                  round + "\"]\n[White \"w" + round + "\"]\n[Black \"b" + round +
                  "\"]\n[Result \"*\"]\n[Time \"12:00:00\"]\n[TimeControl \"300\"]\n";
  if (!white_elo.empty()) t += "[WhiteElo \"" + white_elo + "\"]\n";
  if (!black_elo.empty()) t += "[BlackElo \"" + black_elo + "\"]\n";
  return t + "\n" + moves + " *\n\n";
}

// The opening of a recorded tournament game: every token's landing hole is right.
constexpr const char* kFourPlies = "1. 76 98 2. 66 87";

// Rated positions, in order (--every counts in this order):
//   game 1: White 1250 x2 and Black 1420 x2, alternating: 1200, 1400, 1200, 1400
//   game 2: White 1299 x2 (Black "?" is unknown):          1200, 1200
//   game 3: Black 1400 x1 (White "abc" is not a number):   1400
//   game 4: does not replay (98 lands on 8 of the other row, not 7): skipped
//   game 5: no rating tags: two sides missing
std::string five_games() {
  return game("1", "1250", "1420", kFourPlies) + game("2", "1299", "?", "1. 76 98 2. 66") +
         game("3", "abc", "1400", "1. 76 98") + game("4", "1500", "1500", "1. 76 97") +
         game("5", "", "", "1. 76 98");
}

TEST_F(HumanEval, JsonCountsBinsSkippedGamesAndUnratedSides) {
  const std::string pgn = write("rated.pgn", five_games());
  const CliRun r = run("--json --fold all " + pgn);
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["games"], 4);
  EXPECT_EQ(j["skipped_games"], 1);
  EXPECT_EQ(j["positions"], 7);
  EXPECT_EQ(j["unrated_sides"], json({{"missing", 2}, {"not_a_number", 1}, {"unknown", 1}}));
  ASSERT_EQ(j["bins"].size(), 2u);
  const json& low = j["bins"][0];
  const json& high = j["bins"][1];
  EXPECT_EQ(low["from"], 1200);
  EXPECT_EQ(low["to"], 1299);
  EXPECT_EQ(low["positions"], 4);
  EXPECT_EQ(high["from"], 1400);
  EXPECT_EQ(high["to"], 1499);
  EXPECT_EQ(high["positions"], 3);
  for (const json& b : j["bins"]) {
    const double top1 = b["policy_top1"], loglik = b["policy_loglik"];
    const int positions = b["positions"];
    EXPECT_GE(top1, 0.0);
    EXPECT_LE(top1, 1.0);
    // A share of whole positions.
    EXPECT_NEAR(top1 * positions, std::round(top1 * positions), 1e-9);
    EXPECT_LT(loglik, 0.0);  // no move at the start is certain to the network
    EXPECT_GE(loglik, std::log(1e-9));
    EXPECT_TRUE(b["search_top1"].is_null()) << "no search was asked for";
    EXPECT_EQ(b["search_positions"], 0);
  }
  EXPECT_NE(r.err.find("skipped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("positions/s"), std::string::npos) << "progress on stderr: " << r.err;
}

TEST_F(HumanEval, SearchesEveryKthRatedPosition) {
  const std::string pgn = write("rated.pgn", five_games());
  const CliRun r = run("--json --fold all --search-visits 16 --every 2 " + pgn);
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["bins"].size(), 2u);
  // Rated positions 0, 2, 4 and 6 of the seven: three at 1200, one at 1400.
  EXPECT_EQ(j["bins"][0]["search_positions"], 3);
  EXPECT_EQ(j["bins"][1]["search_positions"], 1);
  for (const json& b : j["bins"]) {
    ASSERT_TRUE(b["search_top1"].is_number()) << b.dump();
    const double top1 = b["search_top1"];
    const int searched = b["search_positions"];
    EXPECT_NEAR(top1 * searched, std::round(top1 * searched), 1e-9);
  }
  // The policy columns do not depend on the search.
  const json plain = json::parse(run("--json --fold all " + pgn).out);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(j["bins"][i]["policy_top1"], plain["bins"][i]["policy_top1"]);
    EXPECT_EQ(j["bins"][i]["policy_loglik"], plain["bins"][i]["policy_loglik"]);
  }
}

// --fold takes the games of core/rated_games.h's split, and the two folds make up all.
TEST_F(HumanEval, FoldsFollowTheSplitByGame) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += game(std::to_string(i), "1300", "1600", kFourPlies);
  const std::string pgn = write("many.pgn", text);
  int expected_validation = 0;
  for (const auto& g : read_pgn_file(pgn))
    expected_validation += read_rated_game(g).fold == Fold::kValidation;
  ASSERT_GT(expected_validation, 0) << "the split of these 40 games is fixed; pick others";
  ASSERT_LT(expected_validation, 40);
  const CliRun validation = run("--json " + pgn);  // the default fold
  const CliRun train = run("--json --fold train " + pgn);
  const CliRun all = run("--json --fold all " + pgn);
  ASSERT_EQ(validation.status, 0) << validation.err;
  ASSERT_EQ(train.status, 0) << train.err;
  ASSERT_EQ(all.status, 0) << all.err;
  const json v = json::parse(validation.out), t = json::parse(train.out), a = json::parse(all.out);
  EXPECT_EQ(v["fold"], "validation");
  EXPECT_EQ(v["games"], expected_validation);
  EXPECT_EQ(t["games"], 40 - expected_validation);
  EXPECT_EQ(a["games"], 40);
  EXPECT_EQ(v["positions"], 4 * expected_validation);  // every ply of a game, whole games
  EXPECT_EQ(int(v["positions"]) + int(t["positions"]), int(a["positions"]));
  EXPECT_EQ(run("--json --fold test " + pgn).status, 2);
}

TEST_F(HumanEval, TableNamesTheBins) {
  const std::string pgn = write("rated.pgn", five_games());
  const CliRun r = run("--fold all " + pgn);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1200-1299"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1400-1499"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 games (1 skipped)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not_a_number 1"), std::string::npos) << r.out;
}

TEST_F(HumanEval, RefusesAFileThatDoesNotExist) {
  const std::string good = write("rated.pgn", five_games());
  const std::string missing = dir_ + "/no-such-games.pgn";
  const CliRun r = run("--json --fold all " + good + " " + missing);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST_F(HumanEval, NoRatedPositionIsAnError) {
  const std::string pgn = write("unrated.pgn", game("1", "", "?", kFourPlies));
  const CliRun r = run("--json --fold all " + pgn);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("no position of a rated player"), std::string::npos) << r.err;
}

// The metadata JSON of a model file (nn/model_file.h: its length at byte 12, the JSON
// from byte 28).
json model_metadata(const std::string& path) {
  const std::string bytes = test::read_bytes(path);
  if (bytes.size() < 28) return json();
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return json::parse(bytes.substr(28, length));
}

// `human-train --epochs 0` writes the train fold's pair prior (games per White bin x Black
// bin) into a model without touching its weights, and leaves it out with
// --no-pair-prior; human-eval then estimates both sides jointly.
TEST_F(HumanEval, HumanTrainWritesTheTrainFoldsPairPrior) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += game(std::to_string(i), "1300", "1650", kFourPlies);
  const std::string pgn = write("pairs.pgn", text);
  int train_games = 0;
  for (const auto& g : read_pgn_file(pgn)) train_games += read_rated_game(g).fold == Fold::kTrain;
  ASSERT_GT(train_games, 0);
  const std::string shipped = test::source_dir() + "/models/togyz-human.pt";
  auto human_train = [&](const std::string& out, const std::string& extra) {
    std::string output;
    const int status =
        test::run_command(test::bin("kumalak") + " human-train --init " + shipped +
                              " --epochs 0 --out " + out + extra + " " + pgn + " 2>&1",
                          &output);
    EXPECT_EQ(status, 0) << output;
  };
  const std::string with = dir_ + "/with.pt", without = dir_ + "/without.pt";
  human_train(with, "");
  human_train(without, " --no-pair-prior");
  const json a = model_metadata(with), b = model_metadata(without), s = model_metadata(shipped);
  ASSERT_TRUE(a.contains("human")) << a.dump();
  EXPECT_EQ(a["weights_checksum"], s["weights_checksum"]);
  const std::vector<int> pairs = a["human"]["rating_pair_prior"].get<std::vector<int>>();
  ASSERT_EQ(pairs.size(), 14u * 14u);         // 800..2200 in 100-point bins
  EXPECT_EQ(pairs[5 * 14 + 8], train_games);  // White 1300-1399, Black 1600-1699
  int total = 0;
  for (int c : pairs) total += c;
  EXPECT_EQ(total, train_games);
  EXPECT_FALSE(b["human"].contains("rating_pair_prior")) << b.dump();
  EXPECT_EQ(b["human"]["rating_prior"], a["human"]["rating_prior"]);
  // --held-out 1/2: a cross-validation's fold; the prior counts the games of the other half.
  int other_half = 0;
  for (const auto& g : read_pgn_file(pgn))
    other_half += read_rated_game(g, HeldOut{1, 2}).fold == Fold::kTrain;
  ASSERT_NE(other_half, train_games);
  const std::string half = dir_ + "/half.pt";
  human_train(half, " --held-out 1/2");
  const json h = model_metadata(half);
  EXPECT_EQ(h["human"]["rating_pair_prior"][5 * 14 + 8], other_half) << h.dump();

  const CliRun joint = run("--json --fold all --human-model " + with + " " + pgn);
  const CliRun single = run("--json --fold all --human-model " + without + " " + pgn);
  ASSERT_EQ(joint.status, 0) << joint.err;
  ASSERT_EQ(single.status, 0) << single.err;
  EXPECT_EQ(json::parse(joint.out)["rating_estimate"], "joint_posterior");
  EXPECT_EQ(json::parse(single.out)["rating_estimate"], "posterior");
}

// `human-train --epochs 0 --play-mix` sets the levels' lambda at the named knots (no game
// record needed), keeps the fit and the weights, says what it played, and refuses a
// rating that is no knot, a lambda outside 0..1, a malformed item and --epochs above 0;
// `model-info` shows both lambdas and human-eval --as-played scores with the played one.
TEST_F(HumanEval, HumanTrainSetsTheLevelsPlayedLambda) {
  const std::string shipped = test::source_dir() + "/models/togyz-human.pt";
  auto human_train = [&](const std::string& args, std::string* output) {
    return test::run_command(
        test::bin("kumalak") + " human-train --init " + shipped + " " + args + " 2>&1", output);
  };
  const std::string out = dir_ + "/played.pt";
  std::string said;
  ASSERT_EQ(human_train("--epochs 0 --play-mix 1400:0.2,2200:0.9 --out " + out, &said), 0) << said;
  EXPECT_NE(said.find("1400: 0.2000"), std::string::npos) << said;
  const json a = model_metadata(out), s = model_metadata(shipped);
  EXPECT_EQ(a["weights_checksum"], s["weights_checksum"]);
  EXPECT_EQ(a["human"]["search_mix"]["weights"], s["human"]["search_mix"]["weights"]);
  std::string info;
  ASSERT_EQ(test::run_command(test::bin("kumalak") + " model-info " + out, &info), 0) << info;
  const json mix = json::parse(info)["human"]["search_mix"];
  const auto ratings = mix["ratings"].get<std::vector<int>>();
  const auto played = mix["play_lambda"].get<std::vector<double>>();
  ASSERT_EQ(ratings.size(), 8u);
  // The knots not named keep the shipped model's played lambda (its fit where it has none).
  std::string shipped_info;
  ASSERT_EQ(test::run_command(test::bin("kumalak") + " model-info " + shipped, &shipped_info), 0);
  const json shipped_mix = json::parse(shipped_info)["human"]["search_mix"];
  const auto before =
      shipped_mix.value("play_lambda", shipped_mix["lambda"]).get<std::vector<double>>();
  EXPECT_EQ(mix["lambda"], shipped_mix["lambda"]);
  for (size_t k = 0; k < ratings.size(); ++k) {
    const double want = ratings[k] == 1400 ? 0.2 : ratings[k] == 2200 ? 0.9 : before[k];
    EXPECT_NEAR(played[k], want, 1e-4) << ratings[k];
  }
  for (const std::string bad : {"--epochs 0 --play-mix 1500:0.2", "--epochs 0 --play-mix 1400:1.5",
                                "--epochs 0 --play-mix 1400", "--epochs 1 --play-mix 1400:0.2"}) {
    std::string why;
    EXPECT_EQ(human_train(bad + " --out " + dir_ + "/bad.pt", &why), 2) << bad;
    EXPECT_NE(why.find("play-mix"), std::string::npos) << bad << ": " << why;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/bad.pt"));

  std::string text;
  for (int i = 0; i < 4; ++i) text += game(std::to_string(i), "1400", "1450", kFourPlies);
  const std::string pgn = write("played.pgn", text);
  const CliRun fit = run("--json --fold all --human-model " + out + " " + pgn);
  const CliRun as_played = run("--json --fold all --as-played --human-model " + out + " " + pgn);
  ASSERT_EQ(fit.status, 0) << fit.err;
  ASSERT_EQ(as_played.status, 0) << as_played.err;
  EXPECT_EQ(json::parse(fit.out)["human_columns_lambda"], "fitted");
  // A model with a search filter plays (and --as-played scores) the filter instead.
  const bool filter = shipped_mix.contains("play_filter");
  EXPECT_EQ(json::parse(as_played.out)["human_columns_lambda"], filter ? "filter" : "played");
  EXPECT_NE(json::parse(fit.out)["bins"][0]["human_loglik"],
            json::parse(as_played.out)["bins"][0]["human_loglik"]);

  // --play-filter: tau at the knots named, the others keep theirs (0 where none was set).
  const std::string filtered = dir_ + "/filtered.pt";
  ASSERT_EQ(test::run_command(test::bin("kumalak") + " human-train --init " + out +
                                  " --epochs 0 --play-filter 1000:0,2200:0.75 --out " + filtered +
                                  " 2>&1",
                              &said),
            0)
      << said;
  EXPECT_NE(said.find("tau"), std::string::npos) << said;
  std::string filtered_info;
  ASSERT_EQ(test::run_command(test::bin("kumalak") + " model-info " + filtered, &filtered_info), 0)
      << filtered_info;
  const json filter_mix = json::parse(filtered_info)["human"]["search_mix"];
  const auto taus = filter_mix["play_filter"].get<std::vector<double>>();
  const auto taus_before = shipped_mix.value("play_filter", std::vector<double>(8, 0.0));
  ASSERT_EQ(taus.size(), 8u);
  for (size_t k = 0; k < ratings.size(); ++k) {
    const double want = ratings[k] == 1000 ? 0.0 : ratings[k] == 2200 ? 0.75 : taus_before[k];
    EXPECT_NEAR(taus[k], want, 1e-4) << ratings[k];
  }
  EXPECT_EQ(filter_mix["play_lambda"], mix["play_lambda"]);  // the mixture's stays
  const CliRun as_filtered =
      run("--json --fold all --as-played --human-model " + filtered + " " + pgn);
  ASSERT_EQ(as_filtered.status, 0) << as_filtered.err;
  EXPECT_EQ(json::parse(as_filtered.out)["human_columns_lambda"], "filter");
  for (const std::string bad : {"--play-filter 1400:-0.1", "--play-filter x:0.2"}) {
    std::string why;
    EXPECT_EQ(human_train("--epochs 0 " + bad + " --out " + dir_ + "/bad.pt", &why), 2) << bad;
    EXPECT_NE(why.find("play-filter"), std::string::npos) << bad << ": " << why;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/bad.pt"));
}

}  // namespace
}  // namespace kz
