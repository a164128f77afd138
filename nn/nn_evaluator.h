// The network as an Evaluator: features for a whole batch in one buffer, one forward
// pass without autograd (batch norms folded into the convolutions:
// nn/inference_network.h), masked softmax over the legal moves.
#pragma once

#include <vector>

#include "mcts/evaluator.h"
#include "nn/inference_network.h"
#include "nn/model_file.h"

namespace kz {

class NnEvaluator : public Evaluator {
 public:
  // The model is used in eval mode on `device` (its weights are moved there).
  // `fold_batch_norm`: evaluate with the batch norms folded into the convolutions (the
  // model's own modules stay as they are); false runs the model's unfolded forward,
  // only to compare the two (`kumalak bench --no-fold`).
  NnEvaluator(Model model, const torch::Device& device = torch::kCPU, bool fold_batch_norm = true);
  // The same with the backend and precision chosen (nn/inference_network.h).
  NnEvaluator(Model model, const torch::Device& device, const InferenceOptions& options);
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override;
  std::string describe() const override;
  // Inference only reads the weights, and the feature buffer is per thread.
  bool allows_concurrent_calls() const override { return true; }
  // On the oneDNN path: the features channels last, as its first convolution reads them.
  size_t prepared_floats(const Position& pos) const override;
  void prepare(const Position& pos, float* out) const override;
  void evaluate_prepared(std::span<const Position> positions, const float* inputs,
                         std::span<EvalOutput> out) override;
  const Model& model() const { return model_; }
  const InferenceNetwork& inference() const { return inference_; }

 private:
  // `features`: the positions' cells-major features (prepare()), or null to encode them.
  void evaluate_onednn(const OnednnNetwork& net, std::span<const Position> positions,
                       std::span<EvalOutput> out, const float* features = nullptr);

  Model model_;
  torch::Device device_;
  InferenceNetwork inference_;
  // With a score distribution head: the margins -M..+M in stones, on the device, that
  // its expectation weighs; undefined without.
  torch::Tensor score_margins_;
};

}  // namespace kz
