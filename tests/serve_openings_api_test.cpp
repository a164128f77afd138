// The opening explorer's call (tools/serve/openings_api.h) through the API's call table:
// an explorer file built here with core's OpeningTreeBuilder, read through KZ_MODELS_DIR,
// its moves, counts and sources as the page asks for them, and the refusals.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/opening_explorer.h"
#include "core/position.h"
#include "tests/serve_api_call.h"
#include "tests/test_util.h"
#include "tools/serve/api_router.h"
#include "tools/serve/openings_api.h"

namespace kz::cli::serve {
namespace {

// Three games from the start: 1. pit 7 (rated 1600 vs 1300, White wins), 1. pit 7
// (titled players, drawn), 1. pit 1 (the engine, Black wins), two plies each.
std::string explorer_dir() {
  const std::string dir = test::temp_dir("serve-openings");
  std::filesystem::create_directories(dir + "/openings");
  const GameSpec togyz = GameSpec::togyz();
  OpeningTreeBuilder builder(togyz, 4, 1);
  const Position start = Position::start(togyz);
  const std::vector<int> a = {6, 8}, b = {6, 4}, c = {0, 0};
  builder.add_game(start, a, Outcome::kWhiteWins,
                   {ExplorerBucket::kRated1500, ExplorerBucket::kRated1200}, {1600, 1300});
  builder.add_game(start, b, Outcome::kDraw, {ExplorerBucket::kTitled, ExplorerBucket::kTitled},
                   {0, 0});
  builder.add_game(start, c, Outcome::kBlackWins,
                   {ExplorerBucket::kEngine, ExplorerBucket::kEngine}, {0, 0});
  builder
      .finish(
          R"({"created_utc":"2026-12-06T00:00:00Z","sources":[)"
          R"({"file":"p.pgn","label":"auto","used":1},{"file":"t.pgn","label":"titled","used":1},)"
          R"({"file":"s.kzshard","label":"engine","used":1}]})")
      .write(dir + "/openings/togyz.kzo");
  return dir;
}

// The openings route alone, reading the explorer above while it lives.
class OpeningsRouter {
 public:
  OpeningsRouter() {
    setenv("KZ_MODELS_DIR", dir_.c_str(), 1);
    add_openings_routes(router_);
  }
  ~OpeningsRouter() { unsetenv("KZ_MODELS_DIR"); }
  std::pair<int, json> get(const json& params, const std::string& lang = "") {
    return answer_json(router_, "GET", "/api/openings", params, lang);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_ = explorer_dir();
  ApiRouter router_;
};

const char* kStart = "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 w";

TEST(ServeOpenings, TheStartsMovesByGamesWithTheMoversResults) {
  OpeningsRouter api;
  auto [status, j] = api.get({{"game", "togyz"}});
  ASSERT_EQ(status, 200) << j.dump();
  EXPECT_EQ(j["position"], kStart);
  EXPECT_EQ(j["to_move"], "white");
  EXPECT_TRUE(j["known"]);
  EXPECT_EQ(j["games"], 3);
  EXPECT_EQ(j["board"]["pits"][0][0], 9);
  ASSERT_EQ(j["moves"].size(), 2u);
  const json& first = j["moves"][0];  // most played first
  EXPECT_EQ(first["move"], 7);
  EXPECT_EQ(first["games"], 2);
  EXPECT_EQ(first["wins"], 1);
  EXPECT_EQ(first["draws"], 1);
  EXPECT_EQ(first["losses"], 0);
  EXPECT_DOUBLE_EQ(first["score"].get<double>(), 0.75);
  EXPECT_EQ(first["mean_rating"], 1600);  // White's own rating: only the mover's counts
  EXPECT_EQ(first["by_source"]["rated-1500-1799"]["wins"], 1);
  EXPECT_EQ(first["by_source"]["titled"]["draws"], 1);
  EXPECT_FALSE(first["by_source"].contains("engine"));
  Position after = Position::start(GameSpec::togyz());
  after.play(6);
  EXPECT_EQ(first["after"], after.to_string());
  EXPECT_EQ(j["moves"][1]["move"], 1);
  EXPECT_EQ(j["moves"][1]["losses"], 1);
  EXPECT_TRUE(j["moves"][1]["mean_rating"].is_null());
  EXPECT_EQ(j["games_by_source"]["engine"], 1);
  EXPECT_EQ(j["games_by_source"]["titled"], 1);
  EXPECT_EQ(j["about"]["online"], 1);
  EXPECT_EQ(j["about"]["titled"], 1);
  EXPECT_EQ(j["about"]["engine"], 1);
}

TEST(ServeOpenings, ASourceAndABandKeepTheirOwnGames) {
  OpeningsRouter api;
  auto [status, players] = api.get({{"source", "players"}});
  ASSERT_EQ(status, 200) << players.dump();
  EXPECT_EQ(players["games"], 2);  // the engine's game left out
  ASSERT_EQ(players["moves"].size(), 1u);
  EXPECT_EQ(players["moves"][0]["move"], 7);

  auto [s2, band] = api.get({{"source", "rated"}, {"band", "1500-1799"}});
  ASSERT_EQ(s2, 200) << band.dump();
  EXPECT_EQ(band["selection"]["rating_band"], "1500-1799");
  ASSERT_EQ(band["moves"].size(), 1u);
  EXPECT_EQ(band["moves"][0]["wins"], 1);
  EXPECT_EQ(band["moves"][0]["games"], 1);

  auto [s3, engine] = api.get({{"source", "engine"}});
  ASSERT_EQ(s3, 200);
  ASSERT_EQ(engine["moves"].size(), 1u);
  EXPECT_EQ(engine["moves"][0]["move"], 1);

  // Black's reply after 1. pit 7, from Black's view: the 1300 player lost, titled drew.
  Position after = Position::start(GameSpec::togyz());
  after.play(6);
  auto [s4, reply] = api.get({{"position", after.to_string()}});
  ASSERT_EQ(s4, 200) << reply.dump();
  EXPECT_EQ(reply["to_move"], "black");
  ASSERT_EQ(reply["moves"].size(), 2u);
  for (const json& m : reply["moves"]) {
    if (m["move"] == 9) {
      EXPECT_EQ(m["losses"], 1);
      EXPECT_EQ(m["mean_rating"], 1300);
    } else {
      EXPECT_EQ(m["move"], 5);
      EXPECT_EQ(m["draws"], 1);
    }
  }
}

TEST(ServeOpenings, APositionNoGameReachedHasNoMoves) {
  OpeningsRouter api;
  auto [status, j] = api.get({{"position", "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 b"}});
  ASSERT_EQ(status, 200) << j.dump();
  EXPECT_FALSE(j["known"]);
  EXPECT_EQ(j["games"], 0);
  EXPECT_TRUE(j["moves"].empty());
  EXPECT_EQ(j["board"]["to_move"], 1);
}

TEST(ServeOpenings, MalformedRequestsAre400) {
  OpeningsRouter api;
  for (const json& params :
       {json{{"position", "9,9,9/9,9,9 0 0 w"}}, json{{"position", "not a position"}},
        json{{"position", "9,9,9,9,9,9,9,9,9/9,9,9,9,9,9,9,9,9 0 0 q"}},
        json{{"source", "friends"}}, json{{"source", "titled"}, {"band", "1500-1799"}},
        json{{"source", "players"}, {"band", "1500-1799"}}, json{{"band", "2000-up"}},
        json{{"game", "chess"}}, json{{"position", std::string(300, '9')}}}) {
    auto [status, j] = api.get(params);
    EXPECT_EQ(status, 400) << params.dump() << " -> " << j.dump();
    ASSERT_TRUE(j.contains("error")) << j.dump();
    EXPECT_FALSE(j["error"].get<std::string>().empty());
  }
}

TEST(ServeOpenings, AGameWithoutAnExplorerIs404InPlayersWords) {
  OpeningsRouter api;
  for (const char* game : {"kalah", "bantumi"}) {
    auto [status, j] = api.get({{"game", game}});
    EXPECT_EQ(status, 404) << j.dump();
    EXPECT_EQ(j["error"], "Opening statistics exist for Togyz Kumalak only.");
  }
  auto [status, j] = api.get({{"game", "kalah"}}, "ru");
  EXPECT_EQ(status, 404);
  EXPECT_NE(j["error"], "Opening statistics exist for Togyz Kumalak only.") << "not translated";
}

TEST(ServeOpenings, TheFileIsReadOnceAndKept) {
  OpeningsRouter api;
  ASSERT_EQ(api.get(json::object()).first, 200);
  // Gone from the disk, the explorer still answers from memory.
  std::filesystem::remove(api.dir() + "/openings/togyz.kzo");
  auto [status, j] = api.get(json::object());
  EXPECT_EQ(status, 200) << j.dump();
  EXPECT_EQ(j["games"], 3);
}

TEST(ServeOpenings, ADamagedFileIsAnErrorNotACrash) {
  OpeningsRouter api;
  test::write_bytes(api.dir() + "/openings/togyz.kzo", "KZOPENS\0 truncated");
  auto [status, j] = api.get(json::object());
  EXPECT_EQ(status, 500) << j.dump();
  EXPECT_NE(j["error"].get<std::string>().find("damaged"), std::string::npos) << j.dump();
}

// The shipped explorer, where the checkout has it: the start's most played move is
// among the legal moves and the counts add up.
TEST(ServeOpenings, TheShippedExplorerAnswersTheStart) {
  const std::string models = test::source_dir() + "/models";
  if (!std::filesystem::exists(models + "/openings/togyz.kzo"))
    GTEST_SKIP() << "no shipped explorer";
  setenv("KZ_MODELS_DIR", models.c_str(), 1);
  ApiRouter router;
  add_openings_routes(router);
  const auto [status, j] =
      answer_json(router, "GET", "/api/openings", {{"game", "togyz"}, {"source", "players"}});
  unsetenv("KZ_MODELS_DIR");
  ASSERT_EQ(status, 200) << j.dump();
  ASSERT_FALSE(j["moves"].empty());
  uint64_t sum = 0;
  for (const json& m : j["moves"]) {
    sum += m["games"].get<uint64_t>();
    EXPECT_EQ(m["games"].get<uint64_t>(), m["wins"].get<uint64_t>() + m["draws"].get<uint64_t>() +
                                              m["losses"].get<uint64_t>() +
                                              m["no_result"].get<uint64_t>());
  }
  EXPECT_EQ(sum, j["games"].get<uint64_t>());
  EXPECT_GT(j["about"]["online"].get<int64_t>(), 0);
  EXPECT_GT(j["about"]["titled"].get<int64_t>(), 0);
}

}  // namespace
}  // namespace kz::cli::serve
