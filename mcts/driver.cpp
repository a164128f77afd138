#include "mcts/driver.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

namespace kz {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

SearchDriver::SearchDriver(Evaluator& evaluator, EvalCache* cache, int max_batch)
    : evaluator_(evaluator), cache_(cache), max_batch_(std::max(1, max_batch)) {}

bool SearchDriver::step(std::span<Search* const> searches, std::span<const int64_t> target_visits) {
  const auto t0 = Clock::now();
  leaves_.clear();
  owner_count_.assign(searches.size(), 0);
  for (size_t i = 0; i < searches.size(); ++i) {
    Search& s = *searches[i];
    const int64_t need = target_visits[i] - s.root_visits();
    if (need <= 0 || s.root_proven() || s.root_is_terminal()) continue;
    const int want = int(std::min<int64_t>(need, std::max(1, s.params().leaves_per_batch)));
    const size_t before = leaves_.size();
    s.gather(want, leaves_);
    owner_count_[i] = int(leaves_.size() - before);
  }
  bool any = false;
  for (size_t i = 0; i < searches.size(); ++i) {
    const int64_t need = target_visits[i] - searches[i]->root_visits();
    if (owner_count_[i] > 0 ||
        (need > 0 && !searches[i]->root_proven() && !searches[i]->root_is_terminal()))
      any = true;
  }

  // Cache lookups, then deduplicate the misses (transpositions within one batch).
  const size_t n = leaves_.size();
  outputs_.resize(n);
  hashes_.resize(n);
  miss_of_leaf_.assign(n, -1);
  miss_index_.clear();
  std::unordered_map<uint64_t, int> slot_of_hash;
  for (size_t k = 0; k < n; ++k) {
    hashes_[k] = leaves_[k].hash();
    if (cache_ && cache_->lookup(hashes_[k], outputs_[k])) {
      ++stats_.cache_hits;
      continue;
    }
    auto [it, inserted] = slot_of_hash.try_emplace(hashes_[k], int(miss_index_.size()));
    if (inserted) miss_index_.push_back(int(k));
    miss_of_leaf_[k] = it->second;
  }
  stats_.leaves += n;

  // Evaluate the misses in chunks of at most max_batch.
  batch_out_.resize(miss_index_.size());
  for (size_t start = 0; start < miss_index_.size(); start += size_t(max_batch_)) {
    const size_t count = std::min(miss_index_.size() - start, size_t(max_batch_));
    batch_.clear();
    for (size_t j = 0; j < count; ++j) batch_.push_back(leaves_[miss_index_[start + j]]);
    const auto te = Clock::now();
    evaluator_.evaluate(batch_, std::span<EvalOutput>(batch_out_).subspan(start, count));
    stats_.eval_seconds += since(te);
    stats_.evaluated += count;
    ++stats_.batches;
  }
  for (size_t k = 0; k < n; ++k) {
    if (miss_of_leaf_[k] < 0) continue;
    outputs_[k] = batch_out_[miss_of_leaf_[k]];
  }
  if (cache_)
    for (int k : miss_index_) cache_->insert(hashes_[k], outputs_[k]);

  // Hand each search its answers, in the order it gathered them.
  size_t offset = 0;
  for (size_t i = 0; i < searches.size(); ++i) {
    if (owner_count_[i] == 0) continue;
    searches[i]->deliver(std::span<const EvalOutput>(outputs_).subspan(offset, owner_count_[i]));
    offset += size_t(owner_count_[i]);
  }
  stats_.total_seconds += since(t0);
  return any;
}

void SearchDriver::run(std::span<Search* const> searches, std::span<const int64_t> target_visits,
                       double max_seconds, const std::atomic<bool>* stop) {
  const auto t0 = Clock::now();
  while (true) {
    if (stop && stop->load(std::memory_order_relaxed)) break;
    if (max_seconds > 0 && since(t0) >= max_seconds) break;
    if (!step(searches, target_visits)) break;
  }
}

}  // namespace kz
