// kumalak serve's levels named by a PlayOK rating, in-process with stub rating levels in
// place of the human model (tools/rating_levels.h): the level field's range, a Kalah
// game refused, the engine's move at a rating, the hint's "most players at R play ..."
// and each side's estimated rating in the analysis. The real human model in the real
// page: tools/web_test.py (ServeBrowser).
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <memory>
#include <thread>

#include "tests/serve_test_util.h"
#include "tools/serve/api.h"

namespace kz::cli::serve {
namespace {

// Plays hole `move` + 1 when legal, else the first legal one; named as it was made.
class NamedPlayer : public Player {
 public:
  NamedPlayer(std::string name, int move) : name_(std::move(name)), move_(move) {}
  std::string name() const override { return name_; }
  ThinkResult think(const Position& pos, const ThinkLimits&) override {
    ThinkResult r;
    r.best_move = pos.is_legal(move_) ? move_ : __builtin_ctz(pos.legal_mask());
    r.depth = 1;
    r.nodes = 1;
    MoveEval e;
    e.move = r.best_move;
    r.moves.push_back(e);
    r.pv = {r.best_move};
    return r;
  }

 private:
  std::string name_;
  int move_;
};

// Togyz has ratings 800..2200; players of every rating play hole 7 first, then hole 3.
class StubRatings : public RatingLevels {
 public:
  std::optional<RatingRange> range(const GameSpec& spec) override {
    if (!spec.is_togyz()) return std::nullopt;
    return RatingRange{800, 2200};
  }
  std::string expected_model(const GameSpec&) override { return "stub"; }
  std::unique_ptr<Player> player(const GameSpec&, int rating, uint64_t) override {
    return std::make_unique<NamedPlayer>("human-" + std::to_string(rating), 6);
  }
  std::vector<HumanMove> moves(const GameSpec&, const Position& pos, int) override {
    std::vector<HumanMove> out;
    for (int m : {6, 2})
      if (pos.is_legal(m)) out.push_back({m, m == 6 ? 0.6f : 0.3f});
    return out;
  }
  std::array<std::optional<PlayedLike>, 2> played_like(const GameSpec&, const Position&,
                                                       std::span<const int> moves) override {
    std::array<std::optional<PlayedLike>, 2> out;
    for (int side = 0; side < 2 && side < int(moves.size()); ++side) {
      PlayedLike like;
      like.rating = side == 0 ? 1450 : 1700;
      like.low = like.rating - 150;
      like.high = like.rating + 150;
      like.moves.push_back({side + 1, moves[size_t(side)], 0.5f});
      out[size_t(side)] = like;
    }
    return out;
  }
};

// The API with stub players and stub rating levels (800..2200 in Togyz, none in Kalah).
class RatedServer {
 public:
  std::pair<int, json> call(const std::string& method, const std::string& path,
                            const json& body = json::object()) {
    return server_.call(method, path, body);
  }
  // The state once the engine's task has ended.
  json settled(const std::string& id) {
    const auto [status, state] = server_.settled_state(id);
    EXPECT_EQ(status, 200) << state.dump();
    return state;
  }

 private:
  static ServeApiOptions options() {
    ServeApiOptions o;
    o.max_sessions = 8;
    o.engine.workers = 1;
    o.engine.max_think_s = 5;
    o.engine.ratings = std::make_shared<StubRatings>();
    return o;
  }
  InProcessApi server_{options(), [](Task, const GameSpec&, Level level) {
                         return std::make_unique<NamedPlayer>(
                             std::string("stub-") + level_name(level), 2);
                       }};
};

TEST(ServeRatingLevels, TheLevelFieldTakesTheRangeEndsAndRefusesPastThem) {
  RatedServer server;
  auto [info_status, info] = server.call("GET", "/api/info");
  ASSERT_EQ(info_status, 200);
  EXPECT_EQ(info["ratings"]["togyz"], json({{"min", 800}, {"max", 2200}})) << info.dump();
  EXPECT_TRUE(info["ratings"]["kalah"].is_null()) << info.dump();
  for (const json& level : {json("800"), json(2200)}) {
    auto [status, s] = server.call("POST", "/api/new", {{"human", "both"}, {"level", level}});
    EXPECT_EQ(status, 200) << level << s.dump();
    EXPECT_EQ(s["level"], level.is_string() ? level.get<std::string>() : level.dump());
  }
  for (const json& level : {json("799"), json(2201)}) {
    auto [status, s] = server.call("POST", "/api/new", {{"human", "both"}, {"level", level}});
    EXPECT_EQ(status, 400) << level << s.dump();
    EXPECT_NE(s.value("error", "").find("range 800..2200"), std::string::npos) << s.dump();
  }
  auto [kalah_status, kalah] =
      server.call("POST", "/api/new", {{"game", "kalah"}, {"human", "both"}, {"level", "1200"}});
  EXPECT_EQ(kalah_status, 400) << kalah.dump();
  EXPECT_NE(kalah.value("error", "").find("needs a human model for kalah:6,4"), std::string::npos)
      << kalah.dump();
  // The named levels stay what they were: 1..5 and names.
  auto [named_status, named] = server.call("POST", "/api/new", {{"human", "both"}, {"level", 2}});
  EXPECT_EQ(named_status, 200) << named.dump();
  EXPECT_EQ(named["level"], "easy");
}

TEST(ServeRatingLevels, TheEngineHintsAndAnalysisSpeakOfTheRating) {
  RatedServer server;
  auto [status, s] = server.call("POST", "/api/new", {{"human", "black"}, {"level", "1300"}});
  ASSERT_EQ(status, 200) << s.dump();
  const std::string id = s["session"];
  json state = server.settled(id);
  ASSERT_EQ(state["moves"].size(), 1u) << state.dump();
  EXPECT_EQ(state["moves"][0]["pit"], 7) << "the rating's player plays hole 7";
  EXPECT_EQ(state["engine"]["name"], "human-1300");
  EXPECT_EQ(state["level"], "1300");

  ASSERT_EQ(server.call("POST", "/api/hint", {{"session", id}, {"level", "medium"}}).first, 200);
  state = server.settled(id);
  ASSERT_TRUE(state["hint"].is_object()) << state.dump();
  EXPECT_EQ(state["hint"]["engine"], "stub-medium");
  const json& human = state["hint"]["human"];
  EXPECT_EQ(human["rating"], 1300) << state["hint"].dump();
  ASSERT_EQ(human["moves"].size(), 2u) << human.dump();
  EXPECT_EQ(human["moves"][0]["move"], 7);
  EXPECT_FLOAT_EQ(human["moves"][0]["probability"].get<float>(), 0.6f);

  ASSERT_EQ(server.call("POST", "/api/move", {{"session", id}, {"move", 1}}).first, 200);
  state = server.settled(id);
  ASSERT_EQ(state["moves"].size(), 3u) << state.dump();
  ASSERT_EQ(server.call("POST", "/api/analyze", {{"session", id}, {"level", "medium"}}).first, 200);
  for (int i = 0;
       i < 500 && !(state["analysis"].is_object() && state["analysis"]["complete"] == true); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    state = server.call("GET", "/api/state?session=" + id).second;
  }
  const json& like = state["analysis"]["played_like"];
  ASSERT_EQ(like.size(), 2u) << state["analysis"].dump();
  EXPECT_EQ(like[0], json({{"rating", 1450},
                           {"low", 1300},
                           {"high", 1600},
                           {"moves", {{{"ply", 1}, {"probability", 0.5}}}}}));
  EXPECT_EQ(like[1]["rating"], 1700);

  // A hint without a rating level has no "human" part.
  auto [plain_status, plain] =
      server.call("POST", "/api/new", {{"session", id}, {"level", "easy"}});
  ASSERT_EQ(plain_status, 200) << plain.dump();
  server.settled(id);
  ASSERT_EQ(server.call("POST", "/api/hint", {{"session", id}, {"level", "medium"}}).first, 200);
  state = server.settled(id);
  ASSERT_TRUE(state["hint"].is_object()) << state.dump();
  EXPECT_FALSE(state["hint"].contains("human")) << state["hint"].dump();
}

}  // namespace
}  // namespace kz::cli::serve
