// The MCTS engine as a Player: one Search with tree reuse across moves, driven by a
// SearchDriver that gathers `params.leaves_per_batch` leaves per network call.
#pragma once

#include <memory>
#include <random>

#include "mcts/driver.h"
#include "mcts/player.h"
#include "mcts/search.h"

namespace kz {

struct MctsPlayerOptions {
  SearchParams params;
  // Visits per move when the caller gives no node or time limit.
  int64_t visits = 800;
  // Most positions per evaluator call.
  int max_batch = 256;
  // 0 plays the most visited move; > 0 samples (for variety at low levels / openings).
  float temperature = 0.0f;
  // Keep the subtree of the position actually reached between moves.
  bool reuse_tree = true;
  // Two batches of the one tree in flight (SearchDriver::run_pipelined with this
  // search in both halves): the calling thread descends and backs up while the
  // network evaluates the other batch on a thread of its own. Costs a little search
  // quality (more virtual loss) and gains up to 2x visits when tree and network take
  // similar time. Needs an evaluator that may be called from another thread (all do).
  // The protocol's `Threads 2` and more turn it on (nn/mcts_engine.cpp).
  bool pipelined = false;
  // Evaluation cache entries (64 bytes each).
  size_t cache_entries = 1 << 16;
  uint64_t seed = 1;
  std::string label = "mcts";
};

class MctsPlayer : public Player {
 public:
  MctsPlayer(std::shared_ptr<Evaluator> evaluator, const MctsPlayerOptions& options);
  std::string name() const override;
  void new_game() override;
  ThinkResult think(const Position& pos, const ThinkLimits& limits) override;
  // Every half second of thinking (the first after 0.1 s), the result so far.
  void set_progress_callback(ProgressCallback cb) override { progress_ = std::move(cb); }

  const DriverStats& driver_stats() const { return driver_.stats(); }
  Search& search() { return search_; }

 private:
  std::shared_ptr<Evaluator> evaluator_;
  MctsPlayerOptions options_;
  EvalCache cache_;
  SearchDriver driver_;
  Search search_;
  std::mt19937_64 rng_;
  ProgressCallback progress_;
};

}  // namespace kz
