// Runs many searches against one evaluator, batching their leaves: the piece that keeps
// the network busy. See the concurrency notes in mcts/search.h.
//
// Each step asks every unfinished search for up to its `leaves_per_batch` leaves, looks
// each leaf up in the EvalCache, evaluates the misses (deduplicated) in chunks of at
// most `max_batch`, stores them in the cache and hands every search its answers.
#pragma once

#include <atomic>
#include <span>
#include <vector>

#include "mcts/search.h"

namespace kz {

struct DriverStats {
  uint64_t leaves = 0;       // leaves gathered from the searches
  uint64_t cache_hits = 0;   // answered by the cache
  uint64_t evaluated = 0;    // positions sent to the evaluator
  uint64_t batches = 0;      // evaluator calls
  double eval_seconds = 0;   // time inside the evaluator
  double total_seconds = 0;  // time inside step()
  double cache_hit_rate() const { return leaves ? double(cache_hits) / double(leaves) : 0.0; }
};

class SearchDriver {
 public:
  // `cache` may be null (no caching). The driver does not own either.
  SearchDriver(Evaluator& evaluator, EvalCache* cache, int max_batch = 256);

  // One round over `searches`; search i stops gathering once its root has
  // `target_visits[i]` visits (or is proven or finished). Returns false when no search
  // needed anything (all done).
  bool step(std::span<Search* const> searches, std::span<const int64_t> target_visits);

  // Steps until every search is done, `max_seconds` (> 0) have passed, or *stop is set.
  void run(std::span<Search* const> searches, std::span<const int64_t> target_visits,
           double max_seconds = 0, const std::atomic<bool>* stop = nullptr);

  const DriverStats& stats() const { return stats_; }
  void reset_stats() { stats_ = {}; }
  int max_batch() const { return max_batch_; }

 private:
  Evaluator& evaluator_;
  EvalCache* cache_;
  int max_batch_;
  DriverStats stats_;
  // Reused buffers, so a step does not allocate once warmed up.
  std::vector<Position> leaves_;
  std::vector<int> owner_count_;
  std::vector<EvalOutput> outputs_;
  std::vector<uint64_t> hashes_;
  std::vector<int> miss_index_;    // leaf index of each miss (deduplicated)
  std::vector<int> miss_of_leaf_;  // for each leaf: -1 (hit) or its miss slot
  std::vector<Position> batch_;
  std::vector<EvalOutput> batch_out_;
};

}  // namespace kz
