// The network side of `kumalak serve`: every search of every session evaluates its
// leaves through one BatchingFront per network (mcts/batching_front.h), as the game
// runner's search threads do in self-play, so that 32 sessions asking for a hint at once
// make batches of hundreds of positions instead of 32 searches each making its own
// batches of 16 (lc0's multiplexing backend, KataGo's NN server threads). The network is
// loaded once per game and model, and only the front's collector thread calls it.
//
// A search takes part only while it thinks: its first network request of a think()
// joins the front, the end of the think() leaves it (NetworkPlayer), so the collector
// waits for the searches that are running and for nobody else; a stopped search leaves
// at once and holds nobody up.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "mcts/batching_front.h"
#include "mcts/levels.h"
#include "tools/serve/engine_queue.h"

namespace kz::cli::serve {

// One network and the front that batches every session's requests to it.
class SharedNetwork {
 public:
  SharedNetwork(std::shared_ptr<Evaluator> network, int max_batch)
      : network_(std::move(network)), front_(*network_, max_batch, 0) {}
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

// The levels' players for the server (mcts/levels.h). hard and expert play the network
// MCTS through a shared front; such a player is kept per session (EngineQueue), so its
// evaluation cache is small: `cache_entries` (64 bytes each).
class LevelEngines {
 public:
  explicit LevelEngines(EvaluatorFactory network, int max_batch = 512,
                        size_t cache_entries = size_t(1) << 15);

  // The players; an MCTS one is a NetworkPlayer.
  PlayerFactory factory();
  // Whether the player for `task` at `level` searches with the network (then its job
  // runs on a search slot, EngineQueueOptions).
  bool uses_network(Task task, const GameSpec& spec, Level level) const;
  FrontStats stats() const;

 private:
  std::shared_ptr<SharedNetwork> network_for(const GameSpec& spec, const std::string& model_path);

  EvaluatorFactory network_;
  int max_batch_;
  size_t cache_entries_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<SharedNetwork>> networks_;  // by game and model
};

}  // namespace kz::cli::serve
