// The network as an Evaluator: features for a whole batch in one buffer, one forward
// pass without autograd, masked softmax over the legal moves.
#pragma once

#include <vector>

#include "mcts/evaluator.h"
#include "nn/model_file.h"

namespace kz {

class NnEvaluator : public Evaluator {
 public:
  // The model is used in eval mode on `device` (its weights are moved there).
  NnEvaluator(Model model, const torch::Device& device = torch::kCPU);
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override;
  std::string describe() const override;
  // Inference only reads the weights, and the feature buffer is per thread.
  bool allows_concurrent_calls() const override { return true; }
  const Model& model() const { return model_; }

 private:
  Model model_;
  torch::Device device_;
  // With a score distribution head: the margins -M..+M in stones, on the device, that
  // its expectation weighs; undefined without.
  torch::Tensor score_margins_;
};

}  // namespace kz
