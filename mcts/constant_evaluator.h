// The evaluator that costs nothing: uniform priors over the legal moves, an even game,
// no margin, for every position. A search driven by it measures the tree's own work
// (`kumalak bench --tree-only`, the allocation tests).
#pragma once

#include "mcts/evaluator.h"

namespace kz {

class ConstantEvaluator : public Evaluator {
 public:
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override;
  std::string describe() const override { return "constant"; }
  bool allows_concurrent_calls() const override { return true; }  // no state
};

}  // namespace kz
