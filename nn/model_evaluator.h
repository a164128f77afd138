// The network's side of the levels' narrow interface (mcts/levels.h EvaluatorFactory):
// a model file, checked against the game, loaded as an Evaluator. The executables pass
// load_model_evaluator in LevelPlayerOptions::network; mcts/ never sees LibTorch.
#pragma once

#include <memory>
#include <string>

#include "core/position.h"
#include "mcts/evaluator.h"

namespace kz {

// Loads `model_path` (its game must be `spec`'s; ModelError otherwise) on the CPU. More
// LibTorch threads than cores only slows every network call (at Threads 255 on two cores
// one batch took seconds), so `threads` is capped at the core count; <= 0 leaves
// LibTorch's setting alone.
std::shared_ptr<Evaluator> load_model_evaluator(const GameSpec& spec, const std::string& model_path,
                                                int threads);

}  // namespace kz
