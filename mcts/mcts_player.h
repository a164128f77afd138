// The MCTS engine as a Player: one Search with tree reuse across moves, driven by a
// SearchDriver that gathers `params.leaves_per_batch` leaves per network call.
#pragma once

#include <functional>
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
  // Threads of one search (the protocol's Threads). 1: one thread gathers a batch,
  // waits for the network, backs it up. T >= 2 with an evaluator that allows concurrent
  // calls (the network, rollouts): T threads share the tree; each gathers its own batch
  // under the tree's lock (virtual loss keeps the batches apart) and evaluates it
  // outside, so up to T network calls run at once, each on a core of its own. With any
  // other evaluator, T >= 2 is the two-batch pipeline (SearchDriver::run_pipelined with
  // this search in both halves): the tree works while the network evaluates.
  int threads = 1;
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
  // The options' visits.
  ThinkLimits budget() const override;
  // Every half second of thinking (the first after 0.1 s), the result so far.
  void set_progress_callback(ProgressCallback cb) override { progress_ = std::move(cb); }

  const DriverStats& driver_stats() const { return driver_.stats(); }
  // Network calls made by the concurrent threads (threads >= 2); the driver counts the rest.
  uint64_t concurrent_batches() const { return concurrent_batches_; }
  Search& search() { return search_; }

 private:
  std::shared_ptr<Evaluator> evaluator_;
  MctsPlayerOptions options_;
  EvalCache cache_;
  SearchDriver driver_;
  Search search_;
  std::mt19937_64 rng_;
  ProgressCallback progress_;
  uint64_t concurrent_batches_ = 0;

  // threads >= 2 with an evaluator that allows concurrent calls: runs until `finished()`
  // (checked under the tree's lock) says so; `report()` is called from thread 0 between
  // its batches, under the lock.
  void search_concurrently(int64_t target, const std::function<bool()>& finished,
                           const std::function<void()>& report);
};

}  // namespace kz
