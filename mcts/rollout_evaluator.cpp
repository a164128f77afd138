#include "mcts/rollout_evaluator.h"

#include <random>

namespace kz {

void RolloutEvaluator::evaluate(std::span<const Position> positions, std::span<EvalOutput> out) {
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& pos = positions[i];
    EvalOutput& e = out[i];
    e = EvalOutput{};
    const uint32_t legal = pos.legal_mask();
    const int count = __builtin_popcount(legal);
    for (uint32_t m = legal; m; m &= m - 1) e.policy[__builtin_ctz(m)] = 1.f / float(count);
    std::mt19937_64 rng(pos.hash());
    int wins = 0, draws = 0, losses = 0;
    long margin = 0;
    const int me = pos.to_move;
    for (int k = 0; k < playouts_; ++k) {
      Position p = pos;
      while (!p.is_decided()) {
        p.play(random_legal_move(p, rng));
      }
      const int mine = outcome_score(p.outcome(), me);
      wins += mine > 0;
      draws += mine == 0;
      losses += mine < 0;
      margin += me == 0 ? p.margin() : -p.margin();
    }
    e.win = float(wins) / float(playouts_);
    e.draw = float(draws) / float(playouts_);
    e.loss = float(losses) / float(playouts_);
    e.margin = float(margin) / float(playouts_);
  }
}

}  // namespace kz
