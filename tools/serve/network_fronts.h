// The network side of `kumalak serve`: every search of every session evaluates its
// leaves through one BatchingFront per network (mcts/batching_front.h), as the game
// runner's search threads do in self-play, so that 32 sessions asking for a hint at once
// make batches of hundreds of positions instead of 32 searches each making its own
// batches of 16 (lc0's multiplexing backend, KataGo's NN server threads). The network is
// loaded once per game and model, and only the front's collector thread calls it.
//
// A search takes part only while it thinks: its first network request of a think()
// joins the front, the end of the think() leaves it, so the collector
// waits for the searches that are running and for nobody else; a stopped search leaves
// at once and holds nobody up.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mcts/batching_front.h"
#include "mcts/levels.h"
#include "tools/serve/engine_queue.h"

namespace kz::cli::serve {

// One network and the front that batches every session's requests to it.
class SharedNetwork {
 public:
  SharedNetwork(std::shared_ptr<Evaluator> network, int max_batch,
                std::chrono::microseconds max_wait)
      : network_(std::move(network)), front_(*network_, max_batch, 0, max_wait) {}
  BatchingFront& front() { return front_; }

 private:
  std::shared_ptr<Evaluator> network_;
  BatchingFront front_;  // after network_: stopped before the network is released
};

// One search's way to a shared network: joins the front at its first request.
class FrontClient : public Evaluator {
 public:
  explicit FrontClient(std::shared_ptr<SharedNetwork> network) : network_(std::move(network)) {}
  ~FrontClient() override { leave(); }
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override;
  std::string describe() const override { return network_->front().describe(); }
  // The search is over: the front no longer waits for it.
  void leave();

 private:
  std::shared_ptr<SharedNetwork> network_;
  bool joined_ = false;
};

// What the fronts did so far, all networks together.
struct FrontStats {
  int networks = 0;
  uint64_t batches = 0;    // network calls
  uint64_t evaluated = 0;  // positions
};

// The levels' players for the server (mcts/levels.h). The network MCTS of a level that
// searches alone (Togyz hard and expert, Kalah hard's moves: the network's level_spec
// rows, where the game has a model) is made here, as make_mcts_level_player() makes it
// (mcts_level_options(), one search thread, the level's time when the caller gives no
// limit), but evaluating through its network's shared front and with a small evaluation
// cache, since the queue keeps one per session: `cache_entries` (64 bytes each; the
// levels' own 2^18 would be 16 MiB a session, and fresh memory is slow to touch on a
// loaded VM). Every other player (alpha-beta, and Kalah's levels that try the solver
// first) is make_level_player()'s or make_analysis_player()'s, with its own network.
class LevelEngines {
 public:
  // `max_wait`: how long a front holds a request for more (BatchingFront). 0: the
  // network takes what is queued as soon as it is free. Searches come and go and share
  // the cores with the network; waiting for the slowest of them (a thread the OS has
  // not run yet) cost more than the smaller batch: 32 hints at once took 1.0-2.1 s with
  // 2 ms, 0.7 s with 0 on the loaded 2-core VM (docs/performance.md).
  // `shared_fronts` false: a host without threads (the page's one-thread engine), where a
  // front's collector thread cannot start and only one search runs at a time: the same
  // players evaluate through their game's network directly, loaded once and shared.
  static constexpr int kMaxBatch = 512;                     // `max_batch`'s default
  static constexpr size_t kCacheEntries = size_t(1) << 14;  // `cache_entries`' default
  explicit LevelEngines(EvaluatorFactory network, int max_batch = kMaxBatch,
                        size_t cache_entries = kCacheEntries,
                        std::chrono::microseconds max_wait = std::chrono::microseconds(0),
                        bool shared_fronts = true);

  // Loads the shipped network of each game in `games` that has one, and runs it once at
  // every batch size up to 64 (its kernels are made on first use of a size), so that the
  // first searches do not wait for either.
  void preload(const std::vector<GameSpec>& games);
  // The players.
  PlayerFactory factory();
  // Whether the player for `task` at `level` is the network MCTS through a shared front
  // (then its job runs on a search slot, EngineQueueOptions::network_jobs).
  bool uses_network(Task task, const GameSpec& spec, Level level) const;
  FrontStats stats() const;

 private:
  std::shared_ptr<SharedNetwork> network_for(const GameSpec& spec, const std::string& model_path);
  // Without shared fronts: the game's network itself.
  std::shared_ptr<Evaluator> direct_network(const GameSpec& spec, const std::string& model_path);

  EvaluatorFactory network_;
  int max_batch_;
  size_t cache_entries_;
  std::chrono::microseconds max_wait_;
  bool shared_fronts_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<SharedNetwork>> networks_;  // by game and model
  std::map<std::string, std::shared_ptr<Evaluator>> direct_;        // the same, no fronts
};

}  // namespace kz::cli::serve
