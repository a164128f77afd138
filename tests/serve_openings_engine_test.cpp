// The Openings view's engine columns (GET /api/openings/engine, tools/serve/openings_api.h)
// through the API's call table: a real alpha-beta search for the engine and a made-up
// human model whose probabilities are known, so that every number can be checked.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/position.h"
#include "mcts/levels.h"
#include "tests/serve_api_call.h"
#include "tools/serve/api_router.h"
#include "tools/serve/openings_api.h"

namespace kz::cli::serve {
namespace {

// A human model that gives each legal move a probability proportional to its pit number,
// over the ratings 1000..2000, and counts its calls.
class MadeUpHumanModel : public RatingLevels {
 public:
  std::atomic<int> calls = 0;
  std::optional<RatingRange> range(const GameSpec&) override { return RatingRange{1000, 2000}; }
  std::string expected_model(const GameSpec&) override { return "none"; }
  std::unique_ptr<Player> player(const GameSpec&, int, uint64_t) override { return nullptr; }
  std::vector<HumanMove> moves(const GameSpec&, const Position& pos, int) override {
    ++calls;
    std::vector<HumanMove> out;
    float sum = 0;
    for (int m = 0; m < pos.npits; ++m)
      if (pos.is_legal(m)) sum += float(m + 1);
    for (int m = pos.npits - 1; m >= 0; --m)
      if (pos.is_legal(m)) out.push_back({m, float(m + 1) / sum});
    return out;
  }
  std::array<std::optional<PlayedLike>, 2> played_like(const GameSpec&, const Position&,
                                                       std::span<const int>) override {
    return {};
  }
};

class EngineColumnsApi {
 public:
  explicit EngineColumnsApi(bool with_engine = true) {
    OpeningsEngine engine;
    if (with_engine)
      engine.search = [this](const GameSpec& spec, const Position& pos) {
        ++searches;
        // The alpha-beta engine scores every root move (multipv 0): a real search.
        auto player = make_analysis_player(spec, Level::kEasy, "", 0);
        ThinkLimits limits;
        limits.depth = 2;
        return player->think(pos, limits);
      };
    engine.ratings = human;
    add_openings_routes(router_, engine);
  }
  std::pair<int, json> get(const json& params, const std::string& lang = "") {
    return answer_json(router_, "GET", "/api/openings/engine", params, lang);
  }
  // The answer once the columns are computed (the first ones say `pending`).
  std::pair<int, json> settled(const json& params) {
    for (int i = 0; i < 5000; ++i) {
      auto got = get(params);
      if (got.first != 200 || !got.second["pending"]) return got;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return {0, json()};
  }
  std::shared_ptr<MadeUpHumanModel> human = std::make_shared<MadeUpHumanModel>();
  std::atomic<int> searches = 0;

 private:
  ApiRouter router_;
};

TEST(ServeOpeningsEngine, EveryLegalMoveWithTheEnginesBestMarkedAndTheRatingsShare) {
  EngineColumnsApi api;
  auto [first_status, first] = api.get({{"game", "togyz"}, {"rating", "1200"}});
  ASSERT_EQ(first_status, 200) << first.dump();
  EXPECT_TRUE(first["pending"]);  // the counts' page shows the moves meanwhile
  EXPECT_EQ(first["moves"].size(), 9u);
  auto [status, j] = api.settled({{"game", "togyz"}, {"rating", "1200"}});
  ASSERT_EQ(status, 200) << j.dump();
  const Position start = Position::start(GameSpec::togyz());
  EXPECT_EQ(j["position"], start.to_string());
  EXPECT_EQ(j["rating"], 1200);
  EXPECT_TRUE(j["human_model"]);
  EXPECT_EQ(j["rating_range"], json({{"min", 1000}, {"max", 2000}}));
  ASSERT_EQ(j["moves"].size(), 9u);
  ASSERT_TRUE(j["best_move"].is_number_integer()) << j.dump();
  const int best = j["best_move"];
  EXPECT_TRUE(start.is_legal(best - 1));
  int marked = 0;
  double total = 0;
  for (const json& m : j["moves"]) {
    const int pit = m["move"];
    if (m["best"]) {
      ++marked;
      EXPECT_EQ(pit, best);
    }
    ASSERT_FALSE(m["engine"].is_null()) << m.dump();  // alpha-beta scores every move
    const double win = m["engine"]["win"], draw = m["engine"]["draw"], loss = m["engine"]["loss"];
    EXPECT_NEAR(win + draw + loss, 1.0, 1e-4);
    EXPECT_NEAR(double(m["engine"]["score"]), win + draw / 2, 1e-6);
    EXPECT_NEAR(double(m["human"]), pit / 45.0, 1e-6);  // 1 + 2 + ... + 9 = 45
    total += double(m["human"]);
    Position after = start;
    after.play(pit - 1);
    EXPECT_EQ(m["after"], after.to_string());
  }
  EXPECT_EQ(marked, 1);
  EXPECT_NEAR(total, 1.0, 1e-5);
}

TEST(ServeOpeningsEngine, APositionIsSearchedOnceAndEachRatingAskedOnce) {
  EngineColumnsApi api;
  EXPECT_EQ(api.settled({{"rating", "1500"}}).first, 200);
  auto [status, j] = api.get({{"rating", "1500"}});
  EXPECT_EQ(status, 200);
  EXPECT_FALSE(j["pending"]);
  EXPECT_EQ(api.searches, 1);
  EXPECT_EQ(api.human->calls, 1);
  auto [s2, other] = api.settled({{"rating", "1800"}});  // another rating: the same search
  EXPECT_EQ(s2, 200);
  EXPECT_EQ(other["best_move"], j["best_move"]);
  EXPECT_EQ(api.searches, 1);
  EXPECT_EQ(api.human->calls, 2);
  EXPECT_EQ(api.get(json::object()).second["rating"], kOpeningsDefaultRating);
}

TEST(ServeOpeningsEngine, WithoutAnEngineTheColumnIsEmptyNotAnError) {
  EngineColumnsApi api(/*with_engine=*/false);
  auto [status, j] = api.settled(json::object());
  ASSERT_EQ(status, 200) << j.dump();
  EXPECT_TRUE(j["best_move"].is_null());
  EXPECT_TRUE(j["engine"].is_null());
  for (const json& m : j["moves"]) {
    EXPECT_TRUE(m["engine"].is_null());
    EXPECT_FALSE(m["best"]);
  }
}

TEST(ServeOpeningsEngine, BadPositionsAndRatingsAreRefusedInPlayersWords) {
  EngineColumnsApi api;
  auto [s1, j1] = api.get({{"position", "9,9,9/9,9,9 0 0 w"}});
  EXPECT_EQ(s1, 400);
  EXPECT_FALSE(j1["error"].get<std::string>().empty());
  auto [s2, j2] = api.get({{"rating", "2500"}});
  EXPECT_EQ(s2, 400);
  EXPECT_NE(j2["error"].get<std::string>().find("1000..2000"), std::string::npos) << j2.dump();
  auto [s3, j3] = api.get({{"rating", "strong"}});
  EXPECT_EQ(s3, 400);
  EXPECT_NE(j3["error"].get<std::string>().find("rating"), std::string::npos) << j3.dump();
  // A finished game has no move to judge.
  auto [s4, j4] = api.get({{"game", "kalah"}, {"position", "0,0,0,0,0,0/0,0,0,0,0,0 30 18 s"}});
  EXPECT_EQ(s4, 400) << j4.dump();
  EXPECT_NE(j4["error"].get<std::string>().find("over"), std::string::npos) << j4.dump();
  // In Russian, as the page asks.
  auto [s5, j5] = api.get({{"rating", "2500"}}, "ru");
  EXPECT_EQ(s5, 400);
  EXPECT_EQ(j5["error"].get<std::string>().find("rating level must lie"), std::string::npos)
      << j5.dump();
  EXPECT_EQ(api.searches, 0);
}

}  // namespace
}  // namespace kz::cli::serve
