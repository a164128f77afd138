// The folded network (nn/folded_network.h) as an Evaluator, without LibTorch: features
// for a whole batch encoded channels last, one forward on plain memory, the masked
// softmax over the legal moves, the W/D/L softmax and the margin (the score
// distribution's expectation where the network has that head). Every evaluator of play,
// self-play and gating runs this code, with or without LibTorch in the build.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "mcts/evaluator.h"
#include "nn/folded_network.h"

namespace kz {

// The evaluation of `positions` by `net`, their cells-major features given in
// `features` (encode_features_cells_major, one after the other) or, when null, encoded
// here. Throws std::invalid_argument when the batch mixes board sizes.
void evaluate_with_network(const FoldedNetwork& net, std::span<const Position> positions,
                           std::span<EvalOutput> out, const float* features = nullptr);

// The policy over `pos`'s legal moves: the softmax of their `logits` (by pit), zero
// elsewhere.
void set_policy_from_logits(const Position& pos, const float* logits, EvalOutput& e);

class NetworkEvaluator : public Evaluator {
 public:
  // `description` is what describe() says ("net 32x4 gen 88 cpu bf16").
  NetworkEvaluator(std::shared_ptr<const FoldedNetwork> net, std::string description);
  void evaluate(std::span<const Position> positions, std::span<EvalOutput> out) override;
  std::string describe() const override { return description_; }
  // The forward only reads the weights, and its buffers are per thread.
  bool allows_concurrent_calls() const override { return true; }
  size_t prepared_floats(const Position& pos) const override;
  void prepare(const Position& pos, float* out) const override;
  void evaluate_prepared(std::span<const Position> positions, const float* inputs,
                         std::span<EvalOutput> out) override;
  const FoldedNetwork& network() const { return *net_; }

 private:
  std::shared_ptr<const FoldedNetwork> net_;
  std::string description_;
};

}  // namespace kz
