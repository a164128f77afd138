// A player's own games as the page keeps them: the game list's records and openings
// (tools/serve/record_api.h with texts), one game's rating evidence and the rating over
// many (tools/serve/games_api.h) with the shipped human model, checked against
// nn/player_rating.h's estimate on the same evidence.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "mcts/alphabeta.h"
#include "nn/human_rating.h"
#include "nn/player_rating.h"
#include "tests/test_util.h"
#include "tools/human_level.h"
#include "tools/serve/api_router.h"
#include "tools/serve/games_api.h"
#include "tools/serve/record_api.h"

namespace kz::cli::serve {
namespace {

// Game 2 plays an illegal move (pit 10 of 9), game 3 has no result, game 4's ratings are
// unknown ("?") and it is kept.
const char* kFourGames =
    "[White \"Ann\"]\n[Black \"Bob\"]\n[WhiteElo \"1530\"]\n[BlackElo \"1410\"]\n"
    "[Date \"2025.03.01\"]\n[Result \"1-0\"]\n\n1. 76(10) 87(2) 2. 99 91 3. 78 91(14) 1-0\n\n"
    "[White \"Bob\"]\n[Black \"Ann\"]\n[Result \"0-1\"]\n\n1. 98(10) 10 0-1\n\n"
    "[White \"Ann\"]\n[Black \"Cem\"]\n\n1. 76(10) 87(2) 2. 99\n\n"
    "[White \"Dana\"]\n[Black \"Ann\"]\n[WhiteElo \"?\"]\n[BlackElo \"?\"]\n"
    "[Result \"1/2-1/2\"]\n\n1. 98(10) 98(10) 1/2-1/2\n";

// The API's JSON calls on a router, as the page's engine and `kumalak serve` answer them.
class GamesRouter {
 public:
  explicit GamesRouter(std::shared_ptr<RatingLevels> ratings, PlayerFactory players = nullptr) {
    add_record_routes(router_);
    add_games_routes(router_, std::move(ratings), std::move(players));
  }
  std::pair<int, json> post(const std::string& path, const json& body) const {
    ApiRequest r;
    r.method = "POST";
    r.path = path;
    r.body = body.dump();
    const ApiResponse a = router_.answer(r);
    return {a.status, json::parse(a.body)};
  }

 private:
  ApiRouter router_;
};

TEST(ServeGamesApi, TheListGivesEachGamesRecordOpeningAndRatingsAndSaysWhyOthersAreLeftOut) {
  const GamesRouter api(nullptr);
  const auto [status, body] = api.post("/api/record/games", {{"pgn", kFourGames}, {"texts", true}});
  ASSERT_EQ(status, 200) << body;
  const json& list = body["games"];
  ASSERT_EQ(list.size(), 4u);
  EXPECT_FALSE(list[0].contains("error")) << list[0];
  EXPECT_EQ(list[0]["opening"], "76 87 99 91");
  EXPECT_EQ(list[0]["white_rating"], 1530);
  const std::string text = list[0]["text"];
  EXPECT_NE(text.find("[White \"Ann\"]"), std::string::npos) << text;
  EXPECT_NE(text.find("1-0"), std::string::npos) << text;
  // The record as written replays as the original: the list of that text is the same game.
  const json again = record_games_json(text, "togyz", true)["games"];
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0]["plies"], 6);
  EXPECT_EQ(again[0]["opening"], list[0]["opening"]);

  ASSERT_TRUE(list[1].contains("error"));
  const std::string illegal = list[1]["error"];
  EXPECT_NE(illegal.find("game 2"), std::string::npos) << illegal;
  EXPECT_FALSE(list[1].contains("text"));
  ASSERT_TRUE(list[2].contains("error"));
  const std::string no_result = list[2]["error"];
  EXPECT_NE(no_result.find("game 3"), std::string::npos) << no_result;
  EXPECT_NE(no_result.find("no result"), std::string::npos) << no_result;
  EXPECT_FALSE(list[3].contains("error")) << list[3];
  EXPECT_TRUE(list[3]["white_rating"].is_null());
  EXPECT_TRUE(list[3]["black_rating"].is_null());
  // Without "texts" the chooser's list stays as it was: a game without a result is listed.
  EXPECT_FALSE(record_games_json(kFourGames, "togyz")["games"][2].contains("error"));
}

TEST(ServeGamesApi, ANonRecordOrATruncatedFileIsRefusedWithWhere) {
  const GamesRouter api(nullptr);
  auto [status, body] = api.post("/api/record/games",
                                 {{"pgn", "[White \"Ann\"\n[Black \"Bob\"]\n"}, {"texts", true}});
  EXPECT_EQ(status, 400) << body;
  EXPECT_NE(body["error"].get<std::string>().find("record:1:"), std::string::npos) << body;
  // A file cut in its last game's moves: the games before it are whole, the last one has
  // no result and says so.
  const std::string cut = std::string(kFourGames).substr(0, std::string(kFourGames).size() - 12);
  std::tie(status, body) = api.post("/api/record/games", {{"pgn", cut}, {"texts", true}});
  ASSERT_EQ(status, 200) << body;
  ASSERT_EQ(body["games"].size(), 4u);
  EXPECT_FALSE(body["games"][0].contains("error"));
  EXPECT_TRUE(body["games"][3].contains("error")) << body["games"][3];
}

TEST(ServeGamesApi, WithoutAHumanModelTheRatingCallsSaySo) {
  const GamesRouter api(nullptr);
  auto [status, body] = api.post("/api/games/evidence", {{"pgn", kFourGames}, {"player", "Ann"}});
  EXPECT_EQ(status, 503) << body;
  std::tie(status, body) = api.post("/api/games/rating", {{"games", json::array()}});
  EXPECT_EQ(status, 503) << body;
}

// The shipped models folder of the source tree, for ShippedRatingLevels.
class ServeGamesApiShippedModel : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("KZ_MODELS_DIR")) old_ = old;
    setenv("KZ_MODELS_DIR", (test::source_dir() + "/models").c_str(), 1);
  }
  void TearDown() override {
    if (old_)
      setenv("KZ_MODELS_DIR", old_->c_str(), 1);
    else
      unsetenv("KZ_MODELS_DIR");
  }
  std::optional<std::string> old_;
};

TEST_F(ServeGamesApiShippedModel, EachGamesEvidenceAndTheRatingOverAllAreThePlayerRatingEstimates) {
  auto ratings = std::make_shared<ShippedRatingLevels>();
  if (!ratings->range(GameSpec::togyz())) GTEST_SKIP() << "no shipped Togyz human model";
  // The moves judged by a small alpha-beta search (the visits are its nodes).
  const GamesRouter api(ratings, [](Task, const GameSpec&, Level) {
    AlphaBetaOptions options;
    options.depth = 2;
    return std::make_unique<AlphaBetaPlayer>(options);
  });
  // Ann's two whole games of kFourGames, as White and as Black.
  const json list = record_games_json(kFourGames, "togyz", true)["games"];
  json games = json::array();
  std::vector<GameRatingEvidence> evidence;
  std::vector<int> grid;
  for (int i : {0, 3}) {
    const auto [status, e] =
        api.post("/api/games/evidence", {{"pgn", list[i]["text"]}, {"player", "Ann"}});
    ASSERT_EQ(status, 200) << e;
    EXPECT_EQ(e["colour"], i == 0 ? "white" : "black");
    grid = e["grid"].get<std::vector<int>>();
    ASSERT_FALSE(grid.empty());
    ASSERT_EQ(e["player"].size(), grid.size());
    ASSERT_EQ(e["opponent"].size(), grid.size());
    ASSERT_TRUE(e["played_like"].is_object()) << e;
    ASSERT_TRUE(e["accuracy"].is_number()) << e;
    EXPECT_GE(e["accuracy"].get<double>(), 0);
    EXPECT_LE(e["accuracy"].get<double>(), 100);
    EXPECT_LE(e["played_like"]["low"].get<int>(), e["played_like"]["rating"].get<int>());
    EXPECT_LE(e["played_like"]["rating"].get<int>(), e["played_like"]["high"].get<int>());
    games.push_back({{"player", e["player"]}, {"opponent", e["opponent"]}});
    evidence.push_back(
        {e["player"].get<std::vector<double>>(), e["opponent"].get<std::vector<double>>()});
  }
  const auto [status, r] = api.post("/api/games/rating", {{"games", games}});
  ASSERT_EQ(status, 200) << r;
  const auto model = load_human_policy(GameSpec::togyz(), "");
  const PlayerRatingEstimate direct = estimate_player_rating(grid, evidence, model->info());
  EXPECT_EQ(r["games"], direct.games);
  EXPECT_EQ(r["rating"], int(std::lround(direct.estimate.rating)));
  EXPECT_EQ(r["low"], int(std::lround(direct.estimate.low)));
  EXPECT_EQ(r["high"], int(std::lround(direct.estimate.high)));
  EXPECT_LT(r["low"].get<int>(), r["high"].get<int>());

  // Bad input: vectors of the wrong length or not numbers, a player not in the game.
  auto [bad, why] = api.post("/api/games/rating",
                             {{"games", json::array({{{"player", json::array({1.0, 2.0})}}})}});
  EXPECT_EQ(bad, 400) << why;
  std::tie(bad, why) =
      api.post("/api/games/rating", {{"games", json::array({{{"player", "1450"}}})}});
  EXPECT_EQ(bad, 400) << why;
  EXPECT_NE(why["error"].get<std::string>().find("game 1"), std::string::npos) << why;
  const auto [unjudged, plain] =
      api.post("/api/games/evidence", {{"pgn", list[0]["text"]}, {"player", "Ann"}, {"visits", 0}});
  ASSERT_EQ(unjudged, 200) << plain;
  EXPECT_TRUE(plain["accuracy"].is_null()) << plain;
  std::tie(bad, why) =
      api.post("/api/games/evidence", {{"pgn", list[0]["text"]}, {"player", "Zed"}});
  EXPECT_EQ(bad, 400) << why;
  std::tie(bad, why) =
      api.post("/api/games/evidence",
               {{"pgn", "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. 98 10 *\n"}, {"player", "Ann"}});
  EXPECT_EQ(bad, 400) << why;
}

}  // namespace
}  // namespace kz::cli::serve
