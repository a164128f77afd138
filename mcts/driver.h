// Runs many searches against one evaluator, batching their leaves: the piece that keeps
// the network busy. See the concurrency notes in mcts/search.h.
//
// A round asks every unfinished search for up to its `leaves_per_batch` leaves, looks
// each leaf up in the EvalCache, evaluates the misses (deduplicated) in chunks of at
// most `max_batch`, stores them in the cache and hands every search its answers.
//
// step() does one round on the calling thread: while the network runs, the tree waits,
// and while the tree works (descents, backups, move making) the network waits. That
// costs 10-25 % of the network's throughput on a small CPU net. run_pipelined() removes
// the wait: the searches are split into two halves that take turns, and while one
// half's batch is in the network (on a worker thread), the calling thread delivers the
// other half's answers and gathers its next leaves. Two rounds are then in flight at
// once; the cache sees a half's results one round later, which only costs a few hits.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "mcts/search.h"
#include "mcts/task_thread.h"

namespace kz {

struct DriverStats {
  uint64_t leaves = 0;       // leaves gathered from the searches
  uint64_t cache_hits = 0;   // answered by the cache
  uint64_t evaluated = 0;    // positions sent to the evaluator
  uint64_t batches = 0;      // evaluator calls
  double eval_seconds = 0;   // time inside the evaluator
  double total_seconds = 0;  // time inside step() / run_pipelined()
  double cache_hit_rate() const { return leaves ? double(cache_hits) / double(leaves) : 0.0; }
};

class SearchDriver {
 public:
  // `cache` may be null (no caching). The driver does not own either.
  SearchDriver(Evaluator& evaluator, EvalCache* cache, int max_batch = 256);
  ~SearchDriver();
  SearchDriver(const SearchDriver&) = delete;
  SearchDriver& operator=(const SearchDriver&) = delete;

  // One round over `searches`; search i stops gathering once its root has
  // `target_visits[i]` visits (or is proven or finished). Returns false when no search
  // needed anything (all done).
  bool step(std::span<Search* const> searches, std::span<const int64_t> target_visits);

  // Steps until every search is done, `max_seconds` (> 0) have passed, or *stop is set.
  void run(std::span<Search* const> searches, std::span<const int64_t> target_visits,
           double max_seconds = 0, const std::atomic<bool>* stop = nullptr);

  // The two-half pipeline (see the top of this file), for callers with many searches.
  // `collect(half, searches, targets)` fills the searches of half 0 or 1 and their visit
  // targets (cleared before the call) each time that half is about to gather; the
  // caller decides which search belongs to which half and may change it between
  // rounds. `after(half)` runs once that half has its answers (play moves, start new
  // games there); it returns false to stop. When it does, the round still in flight is
  // finished and delivered before run_pipelined() returns, so every search is left
  // without pending leaves. `evaluator` must tolerate being called from a thread other
  // than the caller's, one call at a time (NnEvaluator and RolloutEvaluator do).
  using CollectFn = std::function<void(int, std::vector<Search*>&, std::vector<int64_t>&)>;
  using AfterFn = std::function<bool(int)>;
  void run_pipelined(const CollectFn& collect, const AfterFn& after);

  const DriverStats& stats() const { return stats_; }
  void reset_stats() { stats_ = {}; }
  // Folds in the figures of drivers that worked for this one (the game runner's search
  // threads, mcts/game_runner.h).
  void add_stats(const DriverStats& s);
  int max_batch() const { return max_batch_; }
  Evaluator& evaluator() const { return evaluator_; }
  EvalCache* cache() const { return cache_; }

 private:
  // Everything one round needs, reused so that a round does not allocate once warmed up.
  struct Round {
    // The Search batch slot this round's leaves use: round 0 uses slot 0 and round 1
    // slot 1, so one search may take part in both halves of run_pipelined (a single
    // search with two batches in flight; mcts/search.h).
    int slot = 0;
    std::vector<Search*> searches;
    std::vector<int64_t> targets;
    std::vector<Position> leaves;
    std::vector<int> owner_count;
    std::vector<EvalOutput> outputs;
    std::vector<uint64_t> hashes;
    std::vector<int> miss_index;    // leaf index of each miss (deduplicated)
    std::vector<int> miss_of_leaf;  // for each leaf: -1 (hit) or its miss slot
    std::vector<Position> batch;
    std::vector<EvalOutput> batch_out;
    // The misses' inputs made by gather() where the evaluator takes them
    // (Evaluator::prepared_floats; `prepared` floats a position, 0: none).
    std::vector<float> inputs;
    size_t prepared = 0;
    std::unordered_map<uint64_t, int> slot_of_hash;
    // Filled by evaluate() (possibly on the worker thread), folded into stats_ after.
    uint64_t evaluated = 0, batches = 0;
    double eval_seconds = 0;
  };

  // Returns whether any search still needs visits.
  bool gather(std::span<Search* const> searches, std::span<const int64_t> targets, Round& r);
  void evaluate(Round& r);  // touches only `r` and the evaluator
  void deliver(std::span<Search* const> searches, Round& r);

  Evaluator& evaluator_;
  EvalCache* cache_;
  int max_batch_;
  DriverStats stats_;
  Round rounds_[2];                     // rounds_[i].slot == i (set by the constructor)
  std::unique_ptr<TaskThread> worker_;  // runs evaluate() for run_pipelined()
};

}  // namespace kz
