// A game on a clock through the API (POST /api/new's `clock`, the state's `clock`):
// the person's time, the engine's time charged only while it thinks and capped by the
// time manager, the increment, a flag's fall by the flag rule, a move refused after it,
// and the clock switched off by an undo. Time is a counter the test moves (the API's
// `now`), so nothing sleeps but the wait for the engine's thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tools/serve/api.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {
namespace {

// Thinks `think_ms` of the test's time (moves the counter), then answers the first legal
// move; keeps the limits it was given. Its own budget is `budget_s` seconds.
class TimedPlayer : public Player {
 public:
  TimedPlayer(std::atomic<int64_t>* now, int64_t think_ms, double budget_s,
              std::atomic<double>* movetime)
      : now_(now), think_ms_(think_ms), budget_s_(budget_s), movetime_(movetime) {}
  std::string name() const override { return "timed"; }
  ThinkLimits budget() const override {
    ThinkLimits l;
    l.movetime_s = budget_s_;
    return l;
  }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    movetime_->store(limits.movetime_s);
    *now_ += think_ms_;
    ThinkResult r;
    r.best_move = __builtin_ctz(pos.legal_mask());
    r.depth = 1;
    r.nodes = 1;
    return r;
  }

 private:
  std::atomic<int64_t>* now_;
  int64_t think_ms_;
  double budget_s_;
  std::atomic<double>* movetime_;
};

// The API answering through its router, on a clock that reads `now`.
class ClockApi {
 public:
  explicit ClockApi(int64_t think_ms = 0, double budget_s = 5) {
    ServeApiOptions o;
    o.max_sessions = 4;
    o.engine.max_think_s = 30;
    o.now = [this] { return now.load(); };
    api_ = std::make_unique<ServeApi>(o, [this, think_ms, budget_s](Task, const GameSpec&, Level) {
      return std::make_unique<TimedPlayer>(&now, think_ms, budget_s, &movetime);
    });
    api_->routes(router_);
    api_->start();
  }
  ~ClockApi() { api_->stop(); }

  std::pair<int, json> post(const std::string& path, const json& body,
                            const std::string& lang = "") const {
    const ApiResponse r = router_.answer({"POST", path, "", json::object(), body.dump(), lang});
    return {r.status, json::parse(r.body)};
  }
  json state(const std::string& session, const std::string& lang = "") const {
    const ApiResponse r =
        router_.answer({"GET", "/api/state", "", {{"session", session}}, "", lang});
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body);
  }
  ApiResponse record(const std::string& session) const {
    return router_.answer({"GET", "/api/record", "", {{"session", session}}, "", ""});
  }
  // The state once the engine's task has ended (its thread is real).
  json settled(const std::string& session) const {
    json s;
    for (int i = 0; i < 1000; ++i) {
      s = state(session);
      if (s["engine"]["task"] == "") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return s;
  }

  std::atomic<int64_t> now{1'000'000};
  std::atomic<double> movetime{-1};

 private:
  ApiRouter router_;
  std::unique_ptr<ServeApi> api_;
};

TEST(ServeClock, TheMoversTimeRunsAndGetsTheIncrementThenTheFlagFalls) {
  ClockApi api;
  auto [status, s] =
      api.post("/api/new", {{"game", "togyz"}, {"human", "both"}, {"clock", "10s+2"}});
  ASSERT_EQ(status, 200) << s.dump();
  const std::string id = s["session"];
  EXPECT_EQ(s["clock"]["control"], "10s+2");
  EXPECT_EQ(s["clock"]["running"], 0);
  EXPECT_EQ(s["clock"]["remaining_ms"], json({10000, 10000}));

  api.now += 3000;
  EXPECT_EQ(api.state(id)["clock"]["remaining_ms"], json({7000, 10000}));
  std::tie(status, s) = api.post("/api/move", {{"session", id}, {"move", 1}});
  ASSERT_EQ(status, 200) << s.dump();
  EXPECT_EQ(s["clock"]["remaining_ms"], json({9000, 10000}));  // 7 s left + 2 s
  EXPECT_EQ(s["clock"]["running"], 1);

  api.now += 10000;  // exactly all of Black's time: not yet fallen
  s = api.state(id);
  EXPECT_EQ(s["clock"]["flagged"], -1);
  EXPECT_FALSE(s["over"].get<bool>());
  api.now += 1;
  s = api.state(id, "en");
  EXPECT_EQ(s["clock"]["flagged"], 1);
  EXPECT_EQ(s["clock"]["running"], -1);
  EXPECT_EQ(s["clock"]["result"], "1-0");
  EXPECT_EQ(s["clock"]["remaining_ms"], json({9000, 0}));
  EXPECT_TRUE(s["over"].get<bool>());
  EXPECT_EQ(s["clock"]["reason"], "Black's time ran out: 1-0, White wins on time.");

  // The record says the clock and how the game ended.
  const ApiResponse record = api.record(id);
  EXPECT_NE(record.body.find("[TimeControl \"10+2\"]"), std::string::npos) << record.body;
  EXPECT_NE(record.body.find("[Result \"1-0\"]"), std::string::npos);
  EXPECT_NE(record.body.find("[Termination \"time forfeit\"]"), std::string::npos);

  std::tie(status, s) = api.post("/api/move", {{"session", id}, {"move", 1}}, "ru");
  EXPECT_EQ(status, 409);
  EXPECT_NE(s["error"].get<std::string>().find("врем"), std::string::npos) << s.dump();
}

TEST(ServeClock, AMoveThatComesAfterTheFlagFellIsRefusedAndEndsTheGame) {
  ClockApi api;
  auto [status, s] = api.post("/api/new", {{"human", "white"}, {"clock", "5s+0"}});
  ASSERT_EQ(status, 200);
  const std::string id = s["session"];
  api.now += 5001;  // no poll in between: the move itself finds the flag fallen
  std::tie(status, s) = api.post("/api/move", {{"session", id}, {"move", 1}});
  EXPECT_EQ(status, 409);
  s = api.state(id, "en");
  EXPECT_EQ(s["moves"].size(), 0u);
  EXPECT_EQ(s["clock"]["flagged"], 0);
  EXPECT_EQ(s["clock"]["reason"], "Your time ran out: 0-1, the engine wins on time.");
  EXPECT_EQ(api.post("/api/hint", {{"session", id}}).first, 409);
}

TEST(ServeClock, TheEnginesTimeIsChargedWhileItThinksAndCappedByTheClock) {
  ClockApi api(/*think_ms=*/1500, /*budget_s=*/5);
  auto [status, s] = api.post("/api/new", {{"human", "white"}, {"clock", "1+0"}});
  ASSERT_EQ(status, 200);
  const std::string id = s["session"];
  api.now += 2000;
  std::tie(status, s) = api.post("/api/move", {{"session", id}, {"move", 1}});
  ASSERT_EQ(status, 200);
  s = api.settled(id);
  ASSERT_EQ(s["moves"].size(), 2u) << s.dump();
  EXPECT_EQ(s["clock"]["remaining_ms"], json({58000, 58500}));
  EXPECT_EQ(s["clock"]["running"], 0);
  // A minute for the game: the move's share is well under the level's 5 s.
  EXPECT_GT(api.movetime.load(), 0.0);
  EXPECT_LT(api.movetime.load(), 5.0);
}

TEST(ServeClock, ALongClockNeverGivesTheLevelMoreThanItsOwnTime) {
  ClockApi api(/*think_ms=*/100, /*budget_s=*/0.5);
  auto [status, s] = api.post("/api/new", {{"human", "black"}, {"clock", "90+30"}});
  ASSERT_EQ(status, 200);
  s = api.settled(s["session"]);
  ASSERT_EQ(s["moves"].size(), 1u);
  EXPECT_DOUBLE_EQ(api.movetime.load(), 0.5);
  // The engine's 100 ms, then its 30 s increment; the person's clock runs from its move.
  EXPECT_EQ(s["clock"]["remaining_ms"][0], 90 * 60000 - 100 + 30000);
  EXPECT_EQ(s["clock"]["running"], 1);
}

TEST(ServeClock, AnEngineThatThinksPastItsFlagLosesOnTime) {
  ClockApi api(/*think_ms=*/1500, /*budget_s=*/5);
  auto [status, s] = api.post("/api/new", {{"human", "black"}, {"clock", "1s+0"}});
  ASSERT_EQ(status, 200);
  s = api.settled(s["session"]);
  EXPECT_EQ(s["moves"].size(), 0u);  // its answer came too late and is not played
  EXPECT_EQ(s["clock"]["flagged"], 0);
  EXPECT_EQ(s["clock"]["result"], "0-1");
  EXPECT_EQ(s["clock"]["reason"], "The engine's time ran out: 0-1, you win on time.");
  EXPECT_TRUE(s["over"].get<bool>());
}

TEST(ServeClock, AnUndoSwitchesTheClockOffAndSaysSo) {
  ClockApi api;
  auto [status, s] = api.post("/api/new", {{"human", "both"}, {"clock", "playok-3"}});
  ASSERT_EQ(status, 200);
  const std::string id = s["session"];
  EXPECT_EQ(s["clock"]["base_ms"], 180000);
  EXPECT_EQ(s["clock_note"], "");
  ASSERT_EQ(api.post("/api/move", {{"session", id}, {"move", 1}}).first, 200);
  std::tie(status, s) = api.post("/api/undo", {{"session", id}}, "kk");
  ASSERT_EQ(status, 200);
  EXPECT_TRUE(s["clock"].is_null());
  EXPECT_FALSE(s["clock_note"].get<std::string>().empty());
  EXPECT_EQ(api.record(id).body.find("TimeControl"), std::string::npos);
  // The next new game without a clock has no note.
  std::tie(status, s) = api.post("/api/new", {{"session", id}});
  EXPECT_TRUE(s["clock"].is_null());
  EXPECT_EQ(s["clock_note"], "");
}

TEST(ServeClock, AClockThatIsNoTimeControlIs400) {
  ClockApi api;
  for (const char* bad : {"abc", "0+3", "5+x", "playok-99"}) {
    const auto [status, s] = api.post("/api/new", {{"clock", bad}});
    EXPECT_EQ(status, 400) << bad;
    EXPECT_NE(s["error"].get<std::string>().find(bad), std::string::npos) << s.dump();
  }
}

}  // namespace
}  // namespace kz::cli::serve
