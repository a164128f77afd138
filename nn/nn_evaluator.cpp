#include "nn/nn_evaluator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "nn/features.h"
#include "nn/network_evaluator.h"

namespace kz {

namespace {
// The model's network in eval mode on `device`, as InferenceNetwork reads it.
Network prepared(Model& model, const torch::Device& device) {
  model.net->eval();
  model.net->to(device);
  return model.net;
}
}  // namespace

NnEvaluator::NnEvaluator(Model model, const torch::Device& device, bool fold_batch_norm)
    : NnEvaluator(std::move(model), device,
                  InferenceOptions{fold_batch_norm ? default_inference_backend()
                                                   : InferenceBackend::kReference}) {}

NnEvaluator::NnEvaluator(Model model, const torch::Device& device, const InferenceOptions& options)
    : model_(std::move(model)),
      device_(device),
      inference_(prepared(model_, device_), device_, options) {
  if (const NetConfig& c = model_.meta.network; c.score_distribution_head)
    score_margins_ = torch::arange(-c.score_max_margin, c.score_max_margin + 1,
                                   torch::TensorOptions().dtype(torch::kFloat32))
                         .to(device_);
}

std::string NnEvaluator::describe() const {
  const auto& c = model_.meta.network;
  return "net " + std::to_string(c.channels) + "x" + std::to_string(c.blocks) + " gen " +
         std::to_string(model_.meta.generation) + " " + device_.str() +
         (inference_.folded() ? "" : " unfolded") +
         (inference_.precision() == InferencePrecision::kBf16   ? " bf16"
          : inference_.precision() == InferencePrecision::kInt8 ? " int8"
                                                                : "");
}

void NnEvaluator::evaluate(std::span<const Position> positions, std::span<EvalOutput> out) {
  if (positions.empty()) return;
  const int m = positions[0].npits;
  const int L = 2 * m;
  const int64_t B = int64_t(positions.size());
  const size_t per = size_t(kNumPlanes) * L;
  // The oneDNN path encodes its own features, channels last.
  if (const OnednnNetwork* onednn = inference_.onednn()) {
    evaluate_onednn(*onednn, positions, out);
    return;
  }
  // One buffer per calling thread, reused between calls: several threads may evaluate
  // at once (allows_concurrent_calls), and a batch allocates nothing once warmed up.
  thread_local std::vector<float> features_;
  features_.resize(per * B);
  for (int64_t i = 0; i < B; ++i) {
    if (positions[i].npits != m)
      throw std::invalid_argument("NnEvaluator: a batch mixes board sizes");
    encode_features(positions[i], std::span<float>(features_).subspan(per * i, per));
  }
  c10::InferenceMode guard;
  auto input = torch::from_blob(features_.data(), {B, kNumPlanes, L}, torch::kFloat32);
  if (device_ != torch::kCPU) input = input.to(device_);
  NetOutput o = inference_.forward(input, m);
  auto logits = o.policy_logits.to(torch::kCPU, torch::kFloat32).contiguous();
  auto wdl = torch::softmax(o.wdl_logits, 1).to(torch::kCPU, torch::kFloat32).contiguous();
  // The search's margin in stones: the score distribution's expectation when the model
  // has one, else the scalar margin head (scaled below).
  const bool distribution = score_margins_.defined();
  auto margin =
      (distribution ? (torch::softmax(o.score_logits, 1) * score_margins_).sum(1) : o.margin)
          .to(torch::kCPU, torch::kFloat32)
          .contiguous();
  const float* lp = logits.data_ptr<float>();
  const float* wp = wdl.data_ptr<float>();
  const float* mp = margin.data_ptr<float>();
  for (int64_t i = 0; i < B; ++i) {
    const Position& pos = positions[i];
    EvalOutput& e = out[i];
    set_policy_from_logits(pos, lp + i * m, e);
    e.win = wp[i * 3 + 0];
    e.draw = wp[i * 3 + 1];
    e.loss = wp[i * 3 + 2];
    e.margin = distribution ? mp[i] : mp[i] * float(pos.total_stones()) / 2.f;
  }
}

size_t NnEvaluator::prepared_floats(const Position& pos) const {
  return inference_.onednn() ? size_t(kNumPlanes) * size_t(2 * pos.npits) : 0;
}

void NnEvaluator::prepare(const Position& pos, float* out) const {
  encode_features_cells_major(pos, std::span<float>(out, prepared_floats(pos)));
}

void NnEvaluator::evaluate_prepared(std::span<const Position> positions, const float* inputs,
                                    std::span<EvalOutput> out) {
  const OnednnNetwork* onednn = inference_.onednn();
  if (positions.empty() || !onednn) return evaluate(positions, out);
  evaluate_onednn(*onednn, positions, out, inputs);
}

// The CPU's oneDNN path: features, forward and the heads' softmaxes on plain memory, the
// code every evaluator without LibTorch runs too (nn/network_evaluator.h).
void NnEvaluator::evaluate_onednn(const OnednnNetwork& net, std::span<const Position> positions,
                                  std::span<EvalOutput> out, const float* features) {
  evaluate_with_network(net, positions, out, features);
}

}  // namespace kz
