// kumalak serve's network searches (tools/serve/network_fronts.h): every session's
// search evaluates through one batching front per network, and a session keeps its
// players (its search tree) between moves. A stub network answers from each position's
// hash alone, so searches are deterministic and need no model.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "mcts/levels.h"
#include "mcts/mcts_player.h"
#include "tests/serve_api_call.h"
#include "tests/serve_test_util.h"
#include "tools/serve/api.h"
#include "tools/serve/network_fronts.h"

namespace kz::cli::serve {
namespace {

// Priors and values from the position's hash only (what a network's answer depends
// on), after an optional pause per call that lets other searches' requests queue up.
class HashNetwork : public Evaluator {
 public:
  explicit HashNetwork(std::chrono::microseconds pause = {}) : pause_(pause) {}
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override {
    if (std::this_thread::get_id() != caller_) other_threads_ = true;
    ++calls_;
    evaluated_ += positions.size();
    for (size_t seen = largest_.load();
         positions.size() > seen && !largest_.compare_exchange_weak(seen, positions.size());) {
    }
    if (pause_.count() > 0) std::this_thread::sleep_for(pause_);
    for (size_t i = 0; i < positions.size(); ++i) {
      const uint64_t h = positions[i].hash() * 0x9E3779B97F4A7C15ull;
      EvalOutput& e = out[i];
      e = EvalOutput{};
      float sum = 0;
      for (uint32_t m = positions[i].legal_mask(); m; m &= m - 1) {
        const int move = __builtin_ctz(m);
        e.policy[size_t(move)] = 1.0f + float((h >> (move * 5)) & 31);
        sum += e.policy[size_t(move)];
      }
      if (sum > 0)
        for (float& p : e.policy) p /= sum;
      e.win = 0.8f * float((h >> 48) & 255) / 255.0f;
      e.draw = 0.2f;
      e.loss = 0.8f - e.win;
      e.margin = 10.0f * (e.win - e.loss);
    }
  }
  std::string describe() const override { return "hash network"; }
  uint64_t calls() const { return calls_; }
  uint64_t evaluated() const { return evaluated_; }
  size_t largest() const { return largest_; }
  // Whether a thread other than the one that made the network called it.
  bool called_from_other_threads() const { return other_threads_; }

 private:
  std::chrono::microseconds pause_;
  std::thread::id caller_ = std::this_thread::get_id();
  std::atomic<bool> other_threads_{false};
  std::atomic<uint64_t> calls_{0}, evaluated_{0};
  std::atomic<size_t> largest_{0};
};

// A few random plies from the start: positions no two searches share.
std::vector<Position> spread_positions(int count) {
  std::vector<Position> out;
  std::mt19937_64 rng(7);
  for (int i = 0; i < count; ++i) {
    Position p = Position::start(GameSpec::togyz());
    for (int ply = 0; ply < 6 && !p.is_over(); ++ply) {
      std::vector<int> legal;
      for (uint32_t m = p.legal_mask(); m; m &= m - 1) legal.push_back(__builtin_ctz(m));
      p.play(legal[rng() % legal.size()]);
    }
    out.push_back(p);
  }
  return out;
}

MctsPlayerOptions search_options() {
  MctsPlayerOptions o = mcts_level_options(GameSpec::togyz(), Level::kHard, 1.0, 3);
  o.visits = 400;
  return o;
}

TEST(ServeSharedFront, ConcurrentSearchesFindWhatEachFindsAlone) {
  const auto positions = spread_positions(8);
  // Alone: each search with the network to itself.
  std::vector<ThinkResult> alone;
  for (const Position& p : positions) {
    MctsPlayer player(std::make_shared<HashNetwork>(), search_options());
    alone.push_back(player.think(p, {}));
  }
  // Together: eight searches on eight threads through one front.
  auto network = std::make_shared<HashNetwork>(std::chrono::microseconds(300));
  auto shared = std::make_shared<SharedNetwork>(network, 512, std::chrono::microseconds(2000));
  std::vector<ThinkResult> together(positions.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < positions.size(); ++i)
    threads.emplace_back([&, i] {
      auto client = std::make_shared<FrontClient>(shared);
      MctsPlayer player(client, search_options());
      together[i] = player.think(positions[i], {});
      client->leave();
    });
  for (auto& t : threads) t.join();

  for (size_t i = 0; i < positions.size(); ++i) {
    EXPECT_EQ(together[i].best_move, alone[i].best_move) << i;
    EXPECT_EQ(together[i].nodes, alone[i].nodes) << i;
    ASSERT_EQ(together[i].moves.size(), alone[i].moves.size()) << i;
    for (size_t k = 0; k < alone[i].moves.size(); ++k) {
      EXPECT_EQ(together[i].moves[k].move, alone[i].moves[k].move) << i;
      EXPECT_EQ(together[i].moves[k].visits, alone[i].moves[k].visits) << i;
    }
  }
  // One search asks for 16 leaves at a time; the front put several searches' together.
  const int leaves = search_options().params.leaves_per_batch;
  EXPECT_GT(network->largest(), size_t(2 * leaves));
  EXPECT_GT(double(network->evaluated()) / double(network->calls()), double(leaves));
  EXPECT_EQ(shared->front().evaluated(), network->evaluated());
}

TEST(ServeSharedFront, ASearchThatLeftIsNotWaitedFor) {
  auto network = std::make_shared<HashNetwork>();
  auto shared = std::make_shared<SharedNetwork>(network, 512, std::chrono::microseconds(2000));
  const auto positions = spread_positions(1);
  std::vector<EvalOutput> out(1);
  FrontClient stopped(shared), running(shared);
  stopped.evaluate(positions, out);
  stopped.leave();  // as a stopped search's NetworkPlayer does when its think() ends
  // Were the stopped search still counted, the collector would wait its 2 ms for it on
  // every one of these requests: 200 ms at least.
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) running.evaluate(positions, out);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 150.0);
}

// A models folder with an (empty) togyz.pt: the level engines play the network MCTS at
// hard, with the stub network in place of the file.
class ServeSearchSlots : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kz-serve-fronts-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "togyz.pt") << "";
    if (const char* old = std::getenv("KZ_MODELS_DIR")) old_models_ = old;
    setenv("KZ_MODELS_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (old_models_)
      setenv("KZ_MODELS_DIR", old_models_->c_str(), 1);
    else
      unsetenv("KZ_MODELS_DIR");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
  std::optional<std::string> old_models_;
};

// The API in-process over LevelEngines with `network`, `slots` search slots.
class Server {
 public:
  Server(std::shared_ptr<HashNetwork> network, int slots, size_t cache_entries = size_t(1) << 14)
      : engines_([network](const GameSpec&, const std::string&,
                           int) -> std::shared_ptr<Evaluator> { return network; },
                 512, cache_entries) {
    ServeApiOptions o;
    o.max_sessions = 32;
    o.engine.workers = 1;
    o.engine.max_think_s = 30;
    o.engine.search_slots = slots;
    o.engine.network_jobs = [this](Task t, const GameSpec& s, Level l) {
      return engines_.uses_network(t, s, l);
    };
    server_ = std::make_unique<InProcessApi>(o, engines_.factory(), 16);
  }
  const LevelEngines& engines() const { return engines_; }

  json call(const std::string& method, const std::string& path, const json& body = {}) {
    auto [status, answer] = server_->call(method, path, body, 30);
    EXPECT_EQ(status, 200) << method << " " << path << ": " << answer.dump();
    return answer;
  }
  std::string new_game() {
    return call("POST", "/api/new", {{"game", "togyz"}, {"human", "both"}})["session"]
        .get<std::string>();
  }
  // The state once the session's engine is idle.
  json wait_idle(const std::string& session) {
    for (int i = 0; i < 6000; ++i) {
      json s = call("GET", "/api/state?session=" + session);
      if (s["engine"]["task"] == "") return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the engine never finished";
    return json();
  }

 private:
  LevelEngines engines_;
  std::unique_ptr<InProcessApi> server_;
};

TEST_F(ServeSearchSlots, AGameKeepsItsSearchTreeBetweenMoves) {
  auto network = std::make_shared<HashNetwork>();
  // A one-entry evaluation cache: what the second search does not evaluate again it
  // kept in its tree, not in the cache.
  Server server(network, 4, 1);
  const std::string a = server.new_game();
  server.call("POST", "/api/hint", {{"session", a}, {"level", "hard"}});
  json state = server.wait_idle(a);
  ASSERT_TRUE(state["hint"].is_object());
  EXPECT_EQ(state["hint"]["nodes"], 1000);
  const int best = state["hint"]["moves"][0]["move"].get<int>();
  server.call("POST", "/api/move", {{"session", a}, {"move", best}});

  uint64_t before = network->evaluated();
  server.call("POST", "/api/hint", {{"session", a}, {"level", "hard"}});
  state = server.wait_idle(a);
  ASSERT_TRUE(state["hint"].is_object());
  const uint64_t kept_tree = network->evaluated() - before;

  // The same position in a fresh game: its search starts from nothing.
  const std::string b = server.new_game();
  server.call("POST", "/api/move", {{"session", b}, {"move", best}});
  before = network->evaluated();
  server.call("POST", "/api/hint", {{"session", b}, {"level", "hard"}});
  json fresh = server.wait_idle(b);
  const uint64_t from_nothing = network->evaluated() - before;
  EXPECT_EQ(fresh["hint"]["position"], state["hint"]["position"]);
  // The move played had the most visits of 9 moves in a search of 1000: at least 111
  // of them were kept.
  EXPECT_LE(kept_tree + 100, from_nothing) << kept_tree << " against " << from_nothing;
  EXPECT_EQ(server.engines().stats().networks, 1);
}

TEST_F(ServeSearchSlots, SessionsShareBatchesAndAStoppedHintHoldsNobodyUp) {
  // 2 ms a network call: the searches are waiting on the network most of the time.
  auto network = std::make_shared<HashNetwork>(std::chrono::microseconds(2000));
  Server server(network, 8);
  std::vector<std::string> sessions;
  for (int i = 0; i < 8; ++i) {
    sessions.push_back(server.new_game());
    server.call("POST", "/api/move", {{"session", sessions.back()}, {"move", 1 + i % 9}});
  }
  for (const auto& s : sessions)
    server.call("POST", "/api/hint", {{"session", s}, {"level", "hard"}});
  // Stopped, and asked again at once: the new hint waits for the stopped search to end
  // (the session's players run one search at a time), the others go on meanwhile.
  server.call("POST", "/api/stop", {{"session", sessions[0]}});
  server.call("POST", "/api/hint", {{"session", sessions[0]}, {"level", "hard"}});
  for (size_t i = 0; i < sessions.size(); ++i) {
    json s = server.wait_idle(sessions[i]);
    ASSERT_TRUE(s["hint"].is_object()) << i;
    EXPECT_EQ(s["hint"]["nodes"], 1000) << i;
  }
  // Eight searches of 16 leaves each went to the network together.
  EXPECT_GT(network->largest(), size_t(32));
  const FrontStats stats = server.engines().stats();
  EXPECT_EQ(stats.evaluated, network->evaluated());
  EXPECT_GT(double(stats.evaluated) / double(stats.batches), 16.0);
}

TEST_F(ServeSearchSlots, AnAnalysisIsOneSlotJobPerPly) {
  auto network = std::make_shared<HashNetwork>();
  Server server(network, 2);
  const std::string a = server.new_game();
  for (int pit : {1, 5, 9, 3}) server.call("POST", "/api/move", {{"session", a}, {"move", pit}});
  server.call("POST", "/api/analyze", {{"session", a}, {"level", "hard"}});
  json state = server.wait_idle(a);
  ASSERT_TRUE(state["analysis"].is_object()) << state.dump();
  EXPECT_EQ(state["analysis"]["done"], 4);
  EXPECT_EQ(state["analysis"]["total"], 4);
  EXPECT_EQ(state["analysis"]["complete"], true);
  // Four plies of 1000 visits each, through the shared front; the tree is kept from ply
  // to ply with its cache, so fewer than 4000 positions are evaluated.
  const FrontStats stats = server.engines().stats();
  EXPECT_GT(stats.evaluated, 0u);
  EXPECT_LT(stats.evaluated, 4000u);
}

// The page's one-thread engine (tools/wasm/page_api.cpp without threads): the API
// answers at once, nothing runs until the host calls work(), which runs one job on its
// own thread; no front is made, a game keeps its search tree between searches as on a
// search slot, and the Openings view's column is searched in its call.
TEST_F(ServeSearchSlots, WithoutThreadsTheHostRunsEachJobOnItsOwnThread) {
  auto network = std::make_shared<HashNetwork>();
  LevelEngines engines([network](const GameSpec&, const std::string&,
                                 int) -> std::shared_ptr<Evaluator> { return network; },
                       LevelEngines::kMaxBatch, /*cache_entries=*/1, std::chrono::microseconds(0),
                       /*shared_fronts=*/false);
  ServeApiOptions o;
  o.engine.workers = 3;
  o.engine.search_slots = 4;
  o.engine.no_threads = true;
  o.engine.network_jobs = [&](Task t, const GameSpec& s, Level l) {
    return engines.uses_network(t, s, l);
  };
  ServeApi api(o, engines.factory());
  ApiRouter router;
  api.routes(router);
  api.start();
  EXPECT_EQ(api.workers(), 1);
  EXPECT_EQ(api.search_slots(), 0);
  auto call = [&](const std::string& method, const std::string& path, const json& body) {
    const auto [status, answer] = answer_json(router, method, path, body);
    EXPECT_EQ(status, 200) << path << ": " << answer.dump();
    return answer;
  };

  const std::string id = call(
      "POST", "/api/new", {{"game", "togyz"}, {"human", "white"}, {"level", "hard"}})["session"];
  call("POST", "/api/move", {{"session", id}, {"move", 5}});
  // Nothing thinks until the host says so.
  EXPECT_EQ(call("GET", "/api/state", {{"session", id}})["engine"]["task"], "move");
  EXPECT_EQ(network->calls(), 0u);
  EXPECT_TRUE(api.work());
  EXPECT_FALSE(api.work());
  json state = call("GET", "/api/state", {{"session", id}});
  EXPECT_EQ(state["engine"]["task"], "");
  EXPECT_EQ(state["moves"].size(), 2u) << state.dump();

  call("POST", "/api/hint", {{"session", id}, {"level", "hard"}});
  EXPECT_TRUE(api.work());
  state = call("GET", "/api/state", {{"session", id}});
  ASSERT_TRUE(state["hint"].is_object()) << state.dump();
  EXPECT_EQ(state["hint"]["nodes"], 1000);

  // The tree kept: after the hint's best move, the next hint evaluates at least the
  // visits of that move fewer positions than the same hint in a fresh game (the
  // one-entry evaluation cache keeps nothing).
  auto hint_cost = [&](const std::string& session) {
    const uint64_t before = network->evaluated();
    call("POST", "/api/hint", {{"session", session}, {"level", "hard"}});
    EXPECT_TRUE(api.work());
    return network->evaluated() - before;
  };
  const std::string a = call("POST", "/api/new", {{"game", "togyz"}, {"human", "both"}})["session"];
  hint_cost(a);
  const int best = call("GET", "/api/state", {{"session", a}})["hint"]["moves"][0]["move"];
  call("POST", "/api/move", {{"session", a}, {"move", best}});
  const uint64_t kept_tree = hint_cost(a);
  const std::string b = call("POST", "/api/new", {{"game", "togyz"}, {"human", "both"}})["session"];
  call("POST", "/api/move", {{"session", b}, {"move", best}});
  const uint64_t from_nothing = hint_cost(b);
  EXPECT_LE(kept_tree + 100, from_nothing) << kept_tree << " against " << from_nothing;

  const json column = call("GET", "/api/openings/engine", {{"game", "togyz"}});
  EXPECT_EQ(column["pending"], false);
  EXPECT_TRUE(column["engine"].is_object()) << column.dump();

  EXPECT_GT(network->calls(), 0u);
  EXPECT_FALSE(network->called_from_other_threads());
  EXPECT_EQ(engines.stats().networks, 0);  // no front, so no collector thread
  api.stop();
}

}  // namespace
}  // namespace kz::cli::serve
