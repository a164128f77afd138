// The page's one-thread engine's jobs that pause (tools/wasm/worker_yield.h), played
// natively: the API without threads (the host runs each job, ServeApi::work) and a search
// hook (mcts/search_yield.h) standing for the worker's event loop, which answers the
// page's calls while the job's search pauses. A state call is answered then, a stop ends
// a hint at the next poll, and the watchdog's check (ServeApi::stop_overdue_jobs) ends an
// engine's move that runs past its time with its best move so far.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "mcts/search_yield.h"
#include "tests/serve_api_call.h"
#include "tools/serve/api.h"
#include "tools/serve/api_router.h"

namespace kz::cli::serve {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Searches until stopped, polling as the engines do (the hook, then the flag, every
// millisecond), and answers the first legal move with what it "found" so far.
class EndlessPlayer : public Player {
 public:
  std::string name() const override { return "endless"; }
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override {
    int64_t polls = 0;
    while (true) {
      yield_search();
      if (limits.stop && limits.stop->load()) break;
      ++polls;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ThinkResult r;
    r.best_move = __builtin_ctz(pos.legal_mask());
    r.nodes = polls;
    r.depth = 1;
    for (int m = 0; m < pos.npits; ++m)
      if (pos.is_legal(m)) r.moves.push_back(MoveEval{.move = m});
    return r;
  }
};

// What the hook does on each pause (the worker's event loop, in the test).
std::function<void()> on_pause;

void pause_hook() {
  if (on_pause) on_pause();
}

class ServePausedJob : public ::testing::Test {
 protected:
  void SetUp() override {
    ServeApiOptions o;
    o.engine.no_threads = true;
    o.engine.max_think_s = 0.2;
    api_ = std::make_unique<ServeApi>(
        o, [](Task, const GameSpec&, Level) { return std::make_unique<EndlessPlayer>(); });
    api_->routes(router_);
    api_->start();
    set_search_yield_hook(&pause_hook);
  }
  void TearDown() override {
    set_search_yield_hook(nullptr);
    on_pause = nullptr;
  }
  json call(const std::string& method, const std::string& path, const json& body) {
    const auto [status, answer] = answer_json(router_, method, path, body);
    EXPECT_EQ(status, 200) << path << ": " << answer.dump();
    return answer;
  }

  std::unique_ptr<ServeApi> api_;
  ApiRouter router_;
};

TEST_F(ServePausedJob, CallsAreAnsweredWhileAHintPausesAndAStopEndsIt) {
  const std::string id =
      call("POST", "/api/new", {{"game", "togyz"}, {"human", "both"}})["session"];
  call("POST", "/api/hint", {{"session", id}});
  int pauses = 0;
  json during;
  on_pause = [&] {
    if (++pauses != 20) return;
    during = call("GET", "/api/state", {{"session", id}});
    call("POST", "/api/stop", {{"session", id}});
  };
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(api_->work());
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 0.15);  // not 0.2 s
  EXPECT_EQ(pauses, 20);  // the poll right after the stop saw it
  EXPECT_EQ(during["engine"]["task"], "hint") << during.dump();
  EXPECT_EQ(during["engine"]["running"], true);
  const json after = call("GET", "/api/state", {{"session", id}});
  EXPECT_EQ(after["engine"]["task"], "");
  EXPECT_EQ(after["message"], "stopped");
  EXPECT_TRUE(after["hint"].is_null());  // a stopped hint is dropped, as with threads
  EXPECT_FALSE(api_->work());
}

TEST_F(ServePausedJob, TheWatchdogsCheckEndsAMovePastItsTimeWithItsBestMove) {
  const std::string id =
      call("POST", "/api/new", {{"game", "togyz"}, {"human", "black"}})["session"];
  on_pause = [&] { api_->stop_overdue_jobs(); };
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(api_->work());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_GE(seconds, 0.2);  // max_think_s
  EXPECT_LT(seconds, 1.0);
  const json state = call("GET", "/api/state", {{"session", id}});
  EXPECT_EQ(state["moves"].size(), 1u) << state.dump();  // the engine played white's move
  EXPECT_EQ(state["engine"]["task"], "");
}

}  // namespace
}  // namespace kz::cli::serve
