#include "mcts/evaluator.h"

namespace kz {

EvalCache::EvalCache(size_t entries) : entries_(std::max<size_t>(entries, 1)) {}

bool EvalCache::lookup(uint64_t key, EvalOutput& out) {
  const Entry& e = entries_[key % entries_.size()];
  if (key == 0 || e.key != key) return false;
  out = e.value;
  return true;
}

void EvalCache::insert(uint64_t key, const EvalOutput& value) {
  if (key == 0) return;
  Entry& e = entries_[key % entries_.size()];
  e.key = key;
  e.value = value;
}

void EvalCache::clear() {
  for (auto& e : entries_) e.key = 0;
}

}  // namespace kz
