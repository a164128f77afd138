// Helpers for the network tests: positions to evaluate and one batched evaluation.
#pragma once

#include <random>
#include <vector>

#include "core/position.h"
#include "nn/model_file.h"
#include "nn/nn_evaluator.h"

namespace kz::test {

// `n` undecided positions, each after up to 29 random plies from the start (seeded).
inline std::vector<Position> random_positions(const GameSpec& spec, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  while (int(out.size()) < n) {
    Position p = Position::start(spec);
    const int plies = int(rng() % 30);
    for (int i = 0; i < plies && !p.is_decided(); ++i) p.play(random_legal_move(p, rng));
    if (!p.is_decided()) out.push_back(p);
  }
  return out;
}

// The evaluator's outputs for `positions`, in one batch.
inline std::vector<EvalOutput> evaluate(Model model, const std::vector<Position>& positions) {
  NnEvaluator eval(std::move(model));
  std::vector<EvalOutput> out(positions.size());
  eval.evaluate(positions, out);
  return out;
}

}  // namespace kz::test
