// Helpers for the MCTS tests: the ways one search can run on several threads, shared by
// every threaded suite (tools/tsan.sh runs them under ThreadSanitizer).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <span>
#include <string>

#include "mcts/rollout_evaluator.h"

namespace kz::test {

// The rollout evaluator for one thread at a time: a search with threads >= 2 then runs
// the two-batch pipeline instead of concurrent network calls.
class OneCallAtATimeRollouts : public RolloutEvaluator {
 public:
  using RolloutEvaluator::RolloutEvaluator;
  bool allows_concurrent_calls() const override { return false; }
};

// Rollouts that take inputs made ahead (Evaluator::prepare), two floats a position drawn
// from its hash, and count the batches whose inputs were not those of their positions.
class PreparingRollouts : public RolloutEvaluator {
 public:
  PreparingRollouts() : RolloutEvaluator(2) {}
  static float part(const Position& pos, int i) {
    return float((pos.hash() >> (24 * i)) & 0xFFFFFF);  // exact in a float
  }
  size_t prepared_floats(const Position&) const override { return 2; }
  void prepare(const Position& pos, float* out) const override {
    out[0] = part(pos, 0);
    out[1] = part(pos, 1);
  }
  void evaluate_prepared(std::span<const Position> positions, const float* inputs,
                         std::span<EvalOutput> out) override {
    ++prepared_calls;
    for (size_t i = 0; i < positions.size(); ++i)
      if (inputs[2 * i] != part(positions[i], 0) || inputs[2 * i + 1] != part(positions[i], 1))
        ++mismatched;
    evaluate(positions, out);
  }
  std::atomic<int> prepared_calls{0}, mismatched{0};
};

// The ways one search can run: threads 1; T threads with concurrent calls; the pipeline.
struct SearchMode {
  int threads = 1;
  bool concurrent_evaluator = true;
};

inline std::shared_ptr<Evaluator> rollouts(int playouts, const SearchMode& mode) {
  if (mode.concurrent_evaluator) return std::make_shared<RolloutEvaluator>(playouts);
  return std::make_shared<OneCallAtATimeRollouts>(playouts);
}

// The modes each threaded suite is instantiated with, and their test names.
inline auto threaded_search_modes() {
  return ::testing::Values(SearchMode{1, true}, SearchMode{2, true}, SearchMode{4, true},
                           SearchMode{2, false});
}
inline std::string search_mode_name(const ::testing::TestParamInfo<SearchMode>& info) {
  return std::to_string(info.param.threads) + "Threads" +
         (info.param.concurrent_evaluator ? "Concurrent" : "Pipelined");
}

}  // namespace kz::test
