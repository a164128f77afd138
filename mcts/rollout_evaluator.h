// The network-free evaluator: uniform priors over the legal moves and a value from a
// few random playouts to the end of the game. It lets the search (and every tool built
// on it) work before any model exists, and keeps search tests fast and deterministic.
#pragma once

#include "mcts/evaluator.h"

namespace kz {

class RolloutEvaluator : public Evaluator {
 public:
  // `playouts` random games per position. Each playout's generator is seeded from the
  // position's hash, so a position always gets the same answer (as the cache needs).
  explicit RolloutEvaluator(int playouts = 8) : playouts_(playouts < 1 ? 1 : playouts) {}
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override;
  std::string describe() const override { return "rollout x" + std::to_string(playouts_); }
  bool allows_concurrent_calls() const override { return true; }  // no state but playouts_

 private:
  int playouts_;
};

}  // namespace kz
