#include "mcts/mcts_player.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

namespace kz {

MctsPlayer::MctsPlayer(std::shared_ptr<Evaluator> evaluator, const MctsPlayerOptions& options)
    : evaluator_(std::move(evaluator)),
      options_(options),
      cache_(options.cache_entries),
      driver_(*evaluator_, &cache_, options.max_batch),
      search_(options.params, options.seed),
      rng_(options.seed ^ 0x5DEECE66Dull) {}

std::string MctsPlayer::name() const {
  return options_.label + " (" + evaluator_->describe() + ")";
}

void MctsPlayer::new_game() {
  search_.clear();
}

ThinkLimits MctsPlayer::budget() const {
  ThinkLimits l;
  l.nodes = options_.visits;
  return l;
}

ThinkResult MctsPlayer::think(const Position& pos, const ThinkLimits& limits) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!options_.reuse_tree) search_.clear();
  search_.set_root(pos);
  // With only a time limit, visits are unbounded; otherwise the node limit (or the
  // default) is the number of visits at the root, reused ones included.
  int64_t target = limits.nodes > 0 ? limits.nodes : options_.visits;
  if (limits.nodes <= 0 && limits.movetime_s > 0) target = int64_t(1) << 40;
  Search* searches[1] = {&search_};
  const int64_t targets[1] = {target};
  // The search runs in slices that end at the next progress report (if anyone listens)
  // or at the time limit (if any); without either it is one slice to the visit target.
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  constexpr double kNever = std::numeric_limits<double>::infinity();
  double next_report = progress_ ? 0.1 : kNever;
  const double deadline = limits.movetime_s > 0 ? limits.movetime_s : kNever;
  auto report_if_due = [&] {
    if (elapsed() < next_report) return;
    ThinkResult progress = search_.result();
    progress.seconds = elapsed();
    progress_(progress);
    next_report = elapsed() + 0.5;
  };
  auto stopped = [&] { return limits.stop && limits.stop->load(std::memory_order_relaxed); };
  if (options_.threads >= 2 && evaluator_->allows_concurrent_calls()) {
    search_concurrently(
        target, [&] { return search_.done(target) || stopped() || elapsed() >= deadline; },
        report_if_due);
  } else if (options_.threads >= 2) {
    // One search in both halves: while one batch is in the network the other is
    // delivered and the next gathered. The checks run after every half round (a few
    // milliseconds), so time limits and `stop` are as prompt as in the serial loop.
    driver_.run_pipelined(
        [&](int, std::vector<Search*>& list, std::vector<int64_t>& list_targets) {
          list.push_back(&search_);
          list_targets.push_back(target);
        },
        [&](int) {
          if (search_.done(target) || stopped() || elapsed() >= deadline) return false;
          report_if_due();
          return true;
        });
  } else {
    while (true) {
      const double slice = std::min(next_report, deadline) - elapsed();
      if (slice > 0) driver_.run(searches, targets, slice == kNever ? 0 : slice, limits.stop);
      const bool done = search_.done(target) || stopped() || elapsed() >= deadline;
      if (done) break;
      report_if_due();
    }
  }
  ThinkResult r = search_.result();
  if (!pos.is_over()) r.best_move = search_.pick_move(options_.temperature, rng_);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void MctsPlayer::search_concurrently(int64_t target, const std::function<bool()>& finished,
                                     const std::function<void()>& report) {
  const int threads = std::min(options_.threads, Search::kMaxInFlight);
  std::mutex tree_mutex;  // guards search_, cache_ and everything below
  std::condition_variable delivered;
  bool stop = false;
  int batches_out = 0;  // batches being evaluated right now
  std::exception_ptr error;
  // Thread `slot` uses the search's batch slot of the same number.
  auto worker = [&](int slot) {
    std::vector<Position> leaves, misses;
    std::vector<EvalOutput> outputs, miss_outputs;
    std::vector<uint64_t> hashes;
    std::vector<int> miss_of_leaf;
    std::unique_lock<std::mutex> lock(tree_mutex);
    while (!stop) {
      if (finished()) {
        stop = true;
        delivered.notify_all();
        break;
      }
      if (slot == 0) report();
      leaves.clear();
      const int64_t need = std::max<int64_t>(1, target - search_.root_visits());
      const int want = int(std::min<int64_t>(need, std::max(1, search_.params().leaves_per_batch)));
      search_.gather(slot, want, leaves);
      if (leaves.empty()) {
        // Every descent ended on a leaf another thread is evaluating (or was backed up at
        // once): wait for an answer to land, then look again.
        if (batches_out > 0) delivered.wait(lock);
        continue;
      }
      // The cache first (under the lock, like the tree), then the misses, deduplicated
      // only by the cache: a repeat within one batch is rare in one search.
      const size_t n = leaves.size();
      outputs.resize(n);
      hashes.resize(n);
      miss_of_leaf.assign(n, -1);
      misses.clear();
      for (size_t k = 0; k < n; ++k) {
        hashes[k] = leaves[k].hash();
        if (cache_.lookup(hashes[k], outputs[k])) continue;
        miss_of_leaf[k] = int(misses.size());
        misses.push_back(leaves[k]);
      }
      ++batches_out;
      lock.unlock();
      // The network call, outside the lock: the other threads descend, back up and call
      // the network meanwhile.
      miss_outputs.resize(misses.size());
      std::exception_ptr failed;
      try {
        if (!misses.empty()) evaluator_->evaluate(misses, miss_outputs);
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      --batches_out;
      if (failed) {
        // Answer the pending leaves anyway (uniform priors, a draw) so that the tree is
        // left consistent, then stop every thread and rethrow to the caller.
        for (size_t k = 0; k < n; ++k) {
          if (miss_of_leaf[k] < 0) continue;
          EvalOutput& e = outputs[k];
          e = EvalOutput{};
          const uint32_t legal = leaves[k].legal_mask();
          const int count = __builtin_popcount(legal);
          for (uint32_t m = legal; m; m &= m - 1) e.policy[__builtin_ctz(m)] = 1.f / float(count);
          e.draw = 1;
        }
        if (!error) error = failed;
        stop = true;
      } else {
        ++concurrent_batches_;
        for (size_t k = 0; k < n; ++k) {
          if (miss_of_leaf[k] < 0) continue;
          outputs[k] = miss_outputs[size_t(miss_of_leaf[k])];
          cache_.insert(hashes[k], outputs[k]);
        }
      }
      search_.deliver(slot, outputs);
      delivered.notify_all();
    }
  };
  std::vector<std::thread> helpers;
  for (int slot = 1; slot < threads; ++slot) helpers.emplace_back(worker, slot);
  worker(0);
  for (auto& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace kz
