#include "mcts/driver.h"

#include <algorithm>
#include <chrono>

#include "mcts/search_yield.h"

namespace kz {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

SearchDriver::SearchDriver(Evaluator& evaluator, EvalCache* cache, int max_batch)
    : evaluator_(evaluator), cache_(cache), max_batch_(std::max(1, max_batch)) {
  rounds_[1].slot = 1;
}

SearchDriver::~SearchDriver() = default;

void SearchDriver::add_stats(const DriverStats& s) {
  stats_.leaves += s.leaves;
  stats_.cache_hits += s.cache_hits;
  stats_.evaluated += s.evaluated;
  stats_.batches += s.batches;
  stats_.eval_seconds += s.eval_seconds;
  stats_.total_seconds += s.total_seconds;
}

bool SearchDriver::gather(std::span<Search* const> searches, std::span<const int64_t> targets,
                          Round& r) {
  r.leaves.clear();
  r.owner_count.assign(searches.size(), 0);
  bool any = false;
  for (size_t i = 0; i < searches.size(); ++i) {
    Search& s = *searches[i];
    if (s.done(targets[i])) continue;
    const int64_t need = targets[i] - s.root_visits();
    any = true;
    const int want = int(std::min<int64_t>(need, std::max(1, s.params().leaves_per_batch)));
    const size_t before = r.leaves.size();
    s.gather(r.slot, want, r.leaves);
    r.owner_count[i] = int(r.leaves.size() - before);
  }

  // Cache lookups, then deduplicate the misses (transpositions within one batch).
  const size_t n = r.leaves.size();
  r.outputs.resize(n);
  r.hashes.resize(n);
  r.miss_of_leaf.assign(n, -1);
  r.miss_index.clear();
  for (size_t k = 0; k < n; ++k) {
    r.hashes[k] = r.leaves[k].hash();
    if (cache_ && cache_->lookup(r.hashes[k], r.outputs[k])) {
      ++stats_.cache_hits;
      continue;
    }
    r.miss_index.push_back(int(k));
  }
  // Deduplicate the misses without allocating (a hash map allocated a node per miss):
  // sorted by hash, then leaf, each leaf points at the first leaf of its hash; then, in
  // leaf order, the first leaves take the miss slots in the order they were gathered
  // (the batch the evaluator sees is the same as before), the others their first's slot.
  std::sort(r.miss_index.begin(), r.miss_index.end(), [&](int a, int b) {
    return r.hashes[size_t(a)] != r.hashes[size_t(b)] ? r.hashes[size_t(a)] < r.hashes[size_t(b)]
                                                      : a < b;
  });
  for (size_t i = 0; i < r.miss_index.size(); ++i) {
    const int k = r.miss_index[i];
    const bool first = i == 0 || r.hashes[size_t(r.miss_index[i - 1])] != r.hashes[size_t(k)];
    r.miss_of_leaf[size_t(k)] = first ? k : r.miss_of_leaf[size_t(r.miss_index[i - 1])];
  }
  r.miss_index.clear();
  for (size_t k = 0; k < n; ++k) {
    const int first = r.miss_of_leaf[k];
    if (first < 0) continue;  // a cache hit
    if (first == int(k)) {
      r.miss_of_leaf[k] = int(r.miss_index.size());
      r.miss_index.push_back(int(k));
    } else {
      r.miss_of_leaf[k] = r.miss_of_leaf[size_t(first)];  // its first leaf came earlier
    }
  }
  // The misses' inputs, made here on the tree's thread where the evaluator takes them
  // (all of one size; a batch mixing games is left to evaluate(), which refuses it).
  r.prepared = r.miss_index.empty() ? 0 : evaluator_.prepared_floats(r.leaves[r.miss_index[0]]);
  for (int k : r.miss_index)
    if (r.prepared > 0 && evaluator_.prepared_floats(r.leaves[size_t(k)]) != r.prepared)
      r.prepared = 0;
  if (r.prepared > 0) {
    r.inputs.resize(r.prepared * r.miss_index.size());
    for (size_t j = 0; j < r.miss_index.size(); ++j)
      evaluator_.prepare(r.leaves[size_t(r.miss_index[j])], r.inputs.data() + j * r.prepared);
  }
  stats_.leaves += n;
  return any;
}

void SearchDriver::evaluate(Round& r) {
  r.evaluated = r.batches = 0;
  r.eval_seconds = 0;
  r.batch_out.resize(r.miss_index.size());
  for (size_t start = 0; start < r.miss_index.size(); start += size_t(max_batch_)) {
    const size_t count = std::min(r.miss_index.size() - start, size_t(max_batch_));
    r.batch.clear();
    for (size_t j = 0; j < count; ++j) r.batch.push_back(r.leaves[r.miss_index[start + j]]);
    const auto te = Clock::now();
    const std::span<EvalOutput> out = std::span<EvalOutput>(r.batch_out).subspan(start, count);
    if (r.prepared > 0)
      evaluator_.evaluate_prepared(r.batch, r.inputs.data() + start * r.prepared, out);
    else
      evaluator_.evaluate(r.batch, out);
    r.eval_seconds += since(te);
    r.evaluated += count;
    ++r.batches;
  }
}

void SearchDriver::deliver(std::span<Search* const> searches, Round& r) {
  stats_.evaluated += r.evaluated;
  stats_.batches += r.batches;
  stats_.eval_seconds += r.eval_seconds;
  const size_t n = r.leaves.size();
  for (size_t k = 0; k < n; ++k)
    if (r.miss_of_leaf[k] >= 0) r.outputs[k] = r.batch_out[r.miss_of_leaf[k]];
  if (cache_)
    for (int k : r.miss_index) cache_->insert(r.hashes[k], r.outputs[k]);

  // Hand each search its answers, in the order it gathered them.
  size_t offset = 0;
  for (size_t i = 0; i < searches.size(); ++i) {
    if (r.owner_count[i] == 0) continue;
    searches[i]->deliver(r.slot,
                         std::span<const EvalOutput>(r.outputs).subspan(offset, r.owner_count[i]));
    offset += size_t(r.owner_count[i]);
  }
}

bool SearchDriver::step(std::span<Search* const> searches, std::span<const int64_t> target_visits) {
  const auto t0 = Clock::now();
  Round& r = rounds_[0];
  const bool any = gather(searches, target_visits, r);
  evaluate(r);
  deliver(searches, r);
  stats_.total_seconds += since(t0);
  return any;
}

void SearchDriver::run(std::span<Search* const> searches, std::span<const int64_t> target_visits,
                       double max_seconds, const std::atomic<bool>* stop) {
  const auto t0 = Clock::now();
  while (true) {
    yield_search();  // the host may stop the search meanwhile (mcts/search_yield.h)
    if (stop && stop->load(std::memory_order_relaxed)) break;
    if (max_seconds > 0 && since(t0) >= max_seconds) break;
    if (!step(searches, target_visits)) break;
  }
}

void SearchDriver::run_pipelined(const CollectFn& collect, const AfterFn& after) {
  const auto t0 = Clock::now();
  if (!worker_) worker_ = std::make_unique<TaskThread>();
  auto prepare = [&](int half) {
    Round& r = rounds_[half];
    r.searches.clear();
    r.targets.clear();
    collect(half, r.searches, r.targets);
    r.targets.resize(r.searches.size(), 0);
    gather(r.searches, r.targets, r);
  };
  // Invariant at the top of the loop: half `cur` is in the network (ticket `in_network`)
  // and half `1 - cur` has gathered and is queued behind it, so the network thread goes
  // on to it without waiting for this thread to hand it over.
  prepare(0);
  uint64_t in_network = worker_->start([this] { evaluate(rounds_[0]); });
  prepare(1);
  uint64_t queued = worker_->start([this] { evaluate(rounds_[1]); });
  int cur = 0;
  bool keep_going = true;
  try {
    while (keep_going) {
      worker_->wait(in_network);
      Round& done = rounds_[cur];
      deliver(done.searches, done);
      keep_going = after(cur);
      if (keep_going) {
        prepare(cur);
        in_network = queued;
        queued = worker_->start([this, &done] { evaluate(done); });
      }
      cur = 1 - cur;
    }
    // Half `cur` is still in the network: let it land, so no search keeps pending leaves.
    worker_->wait();
    deliver(rounds_[cur].searches, rounds_[cur]);
  } catch (...) {
    // The worker may still be running on a round: wait before the buffers can go away.
    try {
      worker_->wait();
    } catch (...) {
    }
    stats_.total_seconds += since(t0);
    throw;
  }
  stats_.total_seconds += since(t0);
}

}  // namespace kz
