// A player's own games as the page keeps them: the game list's records and openings
// (tools/serve/record_api.h with texts), one game's rating evidence worked out in the
// engine queue (tools/serve/game_evidence.h) and the rating over many
// (tools/serve/games_api.h) with the shipped human model, checked against the evidence
// judged at once and nn/player_rating.h's estimate on the same evidence.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "core/notation.h"
#include "mcts/mcts_player.h"
#include "mcts/rollout_evaluator.h"
#include "nn/human_rating.h"
#include "nn/player_rating.h"
#include "tests/serve_api_call.h"
#include "tests/serve_test_util.h"
#include "tests/test_util.h"
#include "tools/human_level.h"
#include "tools/serve/api.h"
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
  explicit GamesRouter(std::shared_ptr<RatingLevels> ratings) {
    add_record_routes(router_);
    add_games_routes(router_, std::move(ratings));
  }
  std::pair<int, json> post(const std::string& path, const json& body) const {
    return answer_json(router_, "POST", path, body);
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

// The whole API (tools/serve/api.h) with `ratings`, its engine's jobs run by the test
// (host_runs_jobs: ServeApi::work, as the page's one-thread engine) or by two workers.
class EvidenceApi {
 public:
  // `players`: the engine's (empty: rollout_player()).
  EvidenceApi(std::shared_ptr<RatingLevels> ratings, bool host_runs_jobs,
              PlayerFactory players = {}) {
    ServeApiOptions o;
    o.max_sessions = 4;
    o.engine.workers = 2;
    o.engine.no_threads = host_runs_jobs;
    o.engine.ratings = std::move(ratings);
    if (!players) players = [](Task, const GameSpec&, Level) { return rollout_player(); };
    api_ = std::make_unique<ServeApi>(o, std::move(players));
    api_->routes(router_);
    api_->start();
  }
  ~EvidenceApi() { api_->stop(); }

  std::pair<int, json> call(const std::string& method, const std::string& path,
                            const json& body) const {
    return answer_json(router_, method, path, body);
  }
  bool work() { return api_->work(); }
  // POST /api/games/evidence's `request`, then its session polled (the queue's jobs run
  // in between) until the answer or an error comes.
  std::pair<int, json> evidence(const json& request) {
    auto r = call("POST", "/api/games/evidence", request);
    while (r.first == 200 && !r.second["done"].get<bool>()) {
      if (!work()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      r = call("GET", "/api/games/evidence", {{"session", r.second["session"]}});
    }
    return r;
  }

 private:
  std::unique_ptr<ServeApi> api_;
  ApiRouter router_;
};

// A game of `plies` moves between Ann (White) and Bob, each move picked by a fixed rule.
std::string long_game(int plies) {
  const GameSpec spec = GameSpec::togyz();
  Position p = Position::start(spec);
  std::vector<int> moves;
  for (int i = 0; i < plies && !p.is_over(); ++i) {
    std::vector<int> legal;
    for (uint32_t m = p.legal_mask(); m; m &= m - 1) legal.push_back(__builtin_ctz(m));
    moves.push_back(legal[size_t(i * 7) % legal.size()]);
    p.play(moves.back());
  }
  return write_pgn({{"White", "Ann"}, {"Black", "Bob"}}, Position::start(spec), moves);
}

TEST(ServeGamesApi, WithoutAHumanModelTheRatingCallsSaySo) {
  EvidenceApi api(nullptr, true);
  auto [status, body] =
      api.call("POST", "/api/games/evidence", {{"pgn", kFourGames}, {"player", "Ann"}});
  EXPECT_EQ(status, 503) << body;
  EXPECT_FALSE(api.work());  // nothing queued
  std::tie(status, body) =
      GamesRouter(nullptr).post("/api/games/rating", {{"games", json::array()}});
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
  EvidenceApi api(ratings, false);  // the moves judged on the queue's own workers
  // Ann's two whole games of kFourGames, as White and as Black.
  const json list = record_games_json(kFourGames, "togyz", true)["games"];
  json games = json::array();
  std::vector<GameRatingEvidence> evidence;
  std::vector<int> grid;
  for (int i : {0, 3}) {
    const auto [status, e] = api.evidence({{"pgn", list[i]["text"]}, {"player", "Ann"}});
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
  const auto [status, r] = GamesRouter(ratings).post("/api/games/rating", {{"games", games}});
  ASSERT_EQ(status, 200) << r;
  const auto model = load_human_policy(GameSpec::togyz(), "");
  const PlayerRatingEstimate direct = estimate_player_rating(grid, evidence, model->info());
  EXPECT_EQ(r["games"], direct.games);
  EXPECT_EQ(r["rating"], int(std::lround(direct.estimate.rating)));
  EXPECT_EQ(r["low"], int(std::lround(direct.estimate.low)));
  EXPECT_EQ(r["high"], int(std::lround(direct.estimate.high)));
  EXPECT_LT(r["low"].get<int>(), r["high"].get<int>());

  // Bad input: vectors of the wrong length or not numbers.
  auto [bad, why] = GamesRouter(ratings).post(
      "/api/games/rating", {{"games", json::array({{{"player", json::array({1.0, 2.0})}}})}});
  EXPECT_EQ(bad, 400) << why;
  std::tie(bad, why) = GamesRouter(ratings).post("/api/games/rating",
                                                 {{"games", json::array({{{"player", "1450"}}})}});
  EXPECT_EQ(bad, 400) << why;
  EXPECT_NE(why["error"].get<std::string>().find("game 1"), std::string::npos) << why;
}

// The evidence worked out one move per job, with other jobs in between, is the evidence
// judged at once by a fresh player of the same kind (game_evidence_json's analyze_game).
TEST_F(ServeGamesApiShippedModel, TheQueuedEvidenceIsTheEvidenceJudgedAtOnce) {
  auto ratings = std::make_shared<ShippedRatingLevels>();
  if (!ratings->range(GameSpec::togyz())) GTEST_SKIP() << "no shipped Togyz human model";
  const std::string text = long_game(20);
  const json direct =
      game_evidence_json(ratings.get(), rollout_player().get(), 30, text, "", "Bob");
  ASSERT_TRUE(direct["accuracy"].is_number()) << direct;
  EvidenceApi api(ratings, true);
  // A game where the engine moves first: its move job goes between two moves' jobs.
  const std::string game = api.call("POST", "/api/new", {{"human", "black"}}).second["session"];
  auto [status, queued] = api.evidence({{"pgn", text}, {"player", "Bob"}, {"visits", 30}});
  ASSERT_EQ(status, 200) << queued;
  EXPECT_TRUE(queued["done"].get<bool>());
  const json id = queued["session"];
  queued.erase("session");
  queued.erase("done");
  EXPECT_EQ(queued, direct);
  EXPECT_EQ(api.call("GET", "/api/state", {{"session", game}}).second["moves"].size(), 1u);
  // The answer is given once: its session is closed with it.
  EXPECT_EQ(api.call("GET", "/api/games/evidence", {{"session", id}}).first, 404);
  // Without visits, no move is judged and no accuracy said; one job makes the answer.
  std::tie(status, queued) = api.evidence({{"pgn", text}, {"player", "Ann"}, {"visits", 0}});
  ASSERT_EQ(status, 200) << queued;
  EXPECT_TRUE(queued["accuracy"].is_null()) << queued;
  EXPECT_EQ(queued["colour"], "white");
}

// Between two moves of a game's evidence, a game's move waits for at most one move's job:
// the next goes to the back of the queue.
TEST_F(ServeGamesApiShippedModel, AGamesMoveGoesBetweenTwoMovesOfTheEvidence) {
  auto ratings = std::make_shared<ShippedRatingLevels>();
  if (!ratings->range(GameSpec::togyz())) GTEST_SKIP() << "no shipped Togyz human model";
  EvidenceApi api(ratings, true);
  auto [status, started] =
      api.call("POST", "/api/games/evidence", {{"pgn", long_game(20)}, {"player", "Ann"}});
  ASSERT_EQ(status, 200) << started;
  EXPECT_EQ(started["moves"], 20);
  const json id = started["session"];
  // The engine's move in a game, asked for while the evidence's first move is queued.
  const std::string game = api.call("POST", "/api/new", {{"human", "black"}}).second["session"];
  EXPECT_TRUE(api.work());  // the evidence's first move judged: its second goes to the back
  EXPECT_TRUE(api.work());  // the game's move, before the evidence's second move
  EXPECT_EQ(api.call("GET", "/api/state", {{"session", game}}).second["moves"].size(), 1u);
  const json polled = api.call("GET", "/api/games/evidence", {{"session", id}}).second;
  EXPECT_FALSE(polled["done"].get<bool>()) << polled;
  EXPECT_EQ(polled["judged"], 1);
}

// Thinks until its search is stopped, counting its searches and the stops it saw.
class UntilStoppedPlayer : public Player {
 public:
  UntilStoppedPlayer(std::atomic<int>* searches, std::atomic<int>* stopped)
      : searches_(searches), stopped_(stopped) {}
  std::string name() const override { return "until stopped"; }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    ++*searches_;
    for (int i = 0; i < 2000 && !(limits.stop && limits.stop->load()); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (limits.stop && limits.stop->load()) ++*stopped_;
    ThinkResult r;
    r.best_move = __builtin_ctz(pos.legal_mask());
    // Every move scored, so that judging a move takes this one search.
    for (uint32_t m = pos.legal_mask(); m; m &= m - 1)
      r.moves.push_back({.move = __builtin_ctz(m)});
    return r;
  }

 private:
  std::atomic<int>* searches_;
  std::atomic<int>* stopped_;
};

// On the queue's own threads, closing the evidence's session stops the move being judged
// and nothing more of it runs.
TEST_F(ServeGamesApiShippedModel, ClosingTheSessionStopsTheMoveBeingJudged) {
  auto ratings = std::make_shared<ShippedRatingLevels>();
  if (!ratings->range(GameSpec::togyz())) GTEST_SKIP() << "no shipped Togyz human model";
  std::atomic<int> searches = 0, stopped = 0;
  EvidenceApi api(ratings, false, [&](Task, const GameSpec&, Level) {
    return std::make_unique<UntilStoppedPlayer>(&searches, &stopped);
  });
  const json id =
      api.call("POST", "/api/games/evidence", {{"pgn", long_game(20)}, {"player", "Ann"}})
          .second["session"];
  for (int i = 0; i < 2000 && searches == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(searches, 1);
  EXPECT_EQ(api.call("POST", "/api/close", {{"session", id}}).first, 200);
  for (int i = 0; i < 2000 && stopped == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(stopped, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(searches, 1);  // no move after it
}

// Closing the evidence's session drops its queued job; bad requests are refused before
// anything is queued, with the players' words.
TEST_F(ServeGamesApiShippedModel, TheEvidenceStopsWithItsSessionAndBadRequestsAreRefused) {
  auto ratings = std::make_shared<ShippedRatingLevels>();
  if (!ratings->range(GameSpec::togyz())) GTEST_SKIP() << "no shipped Togyz human model";
  EvidenceApi api(ratings, true);
  const json id =
      api.call("POST", "/api/games/evidence", {{"pgn", long_game(20)}, {"player", "Ann"}})
          .second["session"];
  EXPECT_TRUE(api.work());
  EXPECT_EQ(api.call("POST", "/api/close", {{"session", id}}).first, 200);
  EXPECT_FALSE(api.work());  // its next move's job is gone
  EXPECT_EQ(api.call("GET", "/api/games/evidence", {{"session", id}}).first, 404);

  const json list = record_games_json(kFourGames, "togyz", true)["games"];
  auto [bad, why] =
      api.call("POST", "/api/games/evidence", {{"pgn", list[0]["text"]}, {"player", "Zed"}});
  EXPECT_EQ(bad, 400) << why;
  EXPECT_NE(why["error"].get<std::string>().find("Zed"), std::string::npos) << why;
  std::tie(bad, why) =
      api.call("POST", "/api/games/evidence",
               {{"pgn", "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. 98 10 *\n"}, {"player", "Ann"}});
  EXPECT_EQ(bad, 400) << why;
  std::tie(bad, why) = api.call("POST", "/api/games/evidence",
                                {{"pgn", list[0]["text"]}, {"player", "Ann"}, {"visits", 5000}});
  EXPECT_EQ(bad, 400) << why;
  std::tie(bad, why) = api.call("POST", "/api/games/evidence", {{"player", "Ann"}});
  EXPECT_EQ(bad, 400) << why;
  EXPECT_FALSE(api.work());
  // A game's session is not an evidence's.
  const std::string game = api.call("POST", "/api/new", {{"human", "white"}}).second["session"];
  EXPECT_EQ(api.call("GET", "/api/games/evidence", {{"session", game}}).first, 409);
}

}  // namespace
}  // namespace kz::cli::serve
