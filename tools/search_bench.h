// The search half of `kumalak bench`, without LibTorch (tools/cmd_bench.cpp keeps the
// network's measurements and the printing): random positions to search from, games that
// search until a time is up through the game runner (mcts/game_runner.h), one round at a
// time or pipelined, what they did, and `bench --tree-only`'s figures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>

#include "core/position.h"
#include "mcts/driver.h"
#include "mcts/evaluator.h"
#include "mcts/search.h"

namespace kz::cli {

// The CPU seconds of this process so far (every thread's).
double process_cpu_seconds();

// A position 0..40 random plies from the start of `spec`'s game, not decided.
Position random_bench_position(const GameSpec& spec, std::mt19937_64& rng);

// How the searching games are set up.
struct SearchBenchSettings {
  int batch = 256;            // positions per network call: the games fill one batch
  int leaves_per_search = 8;  // leaves each game adds to a batch
  int visits = 200;           // visits per move; a game plays on when its search has them
};

// What a measured search did.
struct SearchFigures {
  DriverStats stats;       // the driver's counts (evaluations, batches, cache hits)
  double seconds = 0;      // wall time
  double cpu_seconds = 0;  // of the whole process while it searched
  int64_t visits = 0;      // tree visits
  size_t peak_nodes = 0, visits_at_peak = 0;  // the largest tree and its root's visits
};

// Enough games that their leaves fill one batch search for `seconds` with `evaluator`,
// each playing on when its search reaches the visit target, as in self-play: one round
// at a time (the network waits while the tree works), or `pipelined` (two halves of twice
// the games taking turns, on `search_threads` threads). `rng` draws the positions and moves.
SearchFigures measure_search(const GameSpec& spec, Evaluator& evaluator, const SearchParams& params,
                             const SearchBenchSettings& settings, bool pipelined, double seconds,
                             int search_threads, std::mt19937_64& rng);

// `bench --tree-only`: `seconds` of searches one round at a time against a constant
// evaluator, no network, as one JSON object (game, evaluator, batch, leaves_per_search,
// visits, score_bounds, tree_visits_per_s, tree_ns_per_visit, tree_leaves_per_s,
// cache_hit_rate, tree_eval_time_share, bytes_per_node).
nlohmann::ordered_json tree_bench(const GameSpec& spec, const SearchBenchSettings& settings,
                                  bool score_bounds, double seconds);

}  // namespace kz::cli
