// The network's side of the levels' narrow interface (mcts/levels.h EvaluatorFactory):
// a model file, checked against the game, loaded as an Evaluator without LibTorch
// (nn/plain_model.h, nn/network_evaluator.h). The executables pass load_model_evaluator
// in LevelPlayerOptions::network; mcts/ never sees a network library.
#pragma once

#include <memory>
#include <string>

#include "core/position.h"
#include "mcts/evaluator.h"

namespace kz {

// Loads `model_path` (its game must be `spec`'s; ModelError otherwise) on the CPU. More
// threads than cores only slows every network call (at Threads 255 on two cores one batch
// took seconds), so `threads` is capped at the core count; <= 0 leaves the setting
// (inference_threads(), nn/folded_network.h) alone. With KUMALAK_BACKEND=libtorch or
// reference, the LibTorch loader installed by a full build runs instead (refused
// without one); with KUMALAK_BACKEND=portable, PortableNetwork (the WebAssembly build's
// forward, fp32 or KUMALAK_PRECISION=int8) even where oneDNN is compiled in.
std::shared_ptr<Evaluator> load_model_evaluator(const GameSpec& spec, const std::string& model_path,
                                                int threads);

// The loader of LibTorch's own forwards (nn/model_file.h install_libtorch_model_support).
using LibTorchEvaluatorLoader = std::shared_ptr<Evaluator> (*)(const GameSpec& spec,
                                                               const std::string& model_path);
void set_libtorch_evaluator_loader(LibTorchEvaluatorLoader loader);

}  // namespace kz
