// Helpers for the MCTS tests: the ways one search can run on several threads, shared by
// every threaded suite (tools/tsan.sh runs them under ThreadSanitizer).
#pragma once

#include <gtest/gtest.h>

#include <memory>
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
