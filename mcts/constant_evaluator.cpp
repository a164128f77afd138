#include "mcts/constant_evaluator.h"

namespace kz {

void ConstantEvaluator::evaluate(std::span<const Position> positions, std::span<EvalOutput> out) {
  for (size_t i = 0; i < positions.size(); ++i) {
    EvalOutput& o = out[i];
    o = EvalOutput{};
    const uint32_t mask = positions[i].legal_mask();
    const float p = mask ? 1.f / float(__builtin_popcount(mask)) : 0.f;
    for (uint32_t m = mask; m; m &= m - 1) o.policy[size_t(__builtin_ctz(m))] = p;
    o.draw = 1;
  }
}

}  // namespace kz
