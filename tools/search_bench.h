// The search half of `kumalak bench`, without LibTorch (tools/cmd_bench.cpp keeps the
// options, the model and the order of the measurements; nn/network_peak.h times the
// network): random positions to search from, games that search until a time is up
// through the game runner (mcts/game_runner.h), one round at a time or pipelined, what
// they did, `bench --tree-only`'s figures, and bench's JSON object from what was measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

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

// What the network did alone, on a thread of its own.
struct NetFigures {
  int64_t evals = 0;       // positions evaluated
  double seconds = 0;      // wall time
  double cpu_seconds = 0;  // its thread's CPU time
};

// What bench's JSON object says of the network that ran, read off it by the command.
struct BenchNetwork {
  std::string evaluator;           // the evaluator's own description
  std::string inference;           // the forward that ran: backend, precision, kernel
  std::string precision;           // the precision that ran: "fp32", "bf16" or "int8"
  bool folded = false;             // its batch norms folded into the convolutions
  int64_t parameters = 0;          // the network's parameter count
  int64_t flops_per_position = 0;  // FLOPs of one position's forward (nn/network_flops.h)
};

// How bench ran its searches.
struct BenchRun {
  SearchBenchSettings settings;  // the searching games
  int threads = 1;               // LibTorch's threads (--threads)
  int search_threads = 1;        // the pipelined search's threads
  bool score_bounds = true;      // exact margins in the search
};

// bench's JSON object (--peak's keys aside, which the command adds) from what was
// measured: the network alone (`net`), the search one round at a time (`serial`) and
// pipelined (`piped`). Its keys, after game, evaluator, parameters, batch, threads,
// search_threads, games_in_parallel, leaves_per_search and score_bounds:
//   net_evals_per_s     forward passes per second at batch B on pre-computed features
//                       (the network alone, nothing else)
//   search_evals_per_s  positions the network evaluated per second of wall time while
//                       many games searched at once, batch B (features, tree work, cache
//                       and move making included), with the two-half pipeline of
//                       SearchDriver::run_pipelined, as self-play runs
//   search_visits_per_s tree visits per second in that search (cache hits and proven
//                       nodes make it higher than search_evals_per_s)
//   busy_ratio          search_evals_per_s / net_evals_per_s
//   net_evals_per_cpu_s, search_evals_per_cpu_s, search_cpu_share  the same per CPU
//                       second (the network thread's; the whole process's during the
//                       pipelined search) and the search's CPU seconds per wall second:
//                       on a machine loaded by other work these measure the code, the
//                       wall-clock rates the share of the cores it got
//   search_threads      threads of that search (--search-threads): each plays its share
//                       of the games, one batching front forms the network's batches
//   serial_*            the same search one round at a time (SearchDriver::step): the
//                       network waits while the tree works
//   eval_time_share     share of the search's wall time spent inside the network
//   avg_batch           average positions per network call during the search
//   cache_hit_rate      share of leaves answered by the evaluation cache
//   bytes_per_node      size of one tree node; bytes_per_visit = tree bytes / visits
//   fold_batch_norm     whether the network ran with its batch norms folded into the
//                       convolutions (nn/inference_network.h; --no-fold: unfolded)
//   inference           the forward that ran: backend, precision and oneDNN's kernel
//                       ("onednn bf16 (jit:avx512_core_bf16)"; --backend, --precision)
//   precision           the precision that ran, auto resolved: "fp32", "bf16" or "int8"
//   net_flops_per_position  FLOPs of one position's forward (nn/network_flops.h)
//   net_gflops          net_evals_per_s x net_flops_per_position / 1e9
nlohmann::ordered_json bench_json(const GameSpec& spec, const BenchRun& run,
                                  const BenchNetwork& network, const NetFigures& net,
                                  const SearchFigures& serial, const SearchFigures& piped);

// `bench --tree-only`: `seconds` of searches one round at a time against a constant
// evaluator, no network, as one JSON object (game, evaluator, batch, leaves_per_search,
// visits, score_bounds, tree_visits_per_s, tree_ns_per_visit, tree_leaves_per_s,
// cache_hit_rate, tree_eval_time_share, bytes_per_node).
nlohmann::ordered_json tree_bench(const GameSpec& spec, const SearchBenchSettings& settings,
                                  bool score_bounds, double seconds);

}  // namespace kz::cli
