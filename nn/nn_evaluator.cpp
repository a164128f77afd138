#include "nn/nn_evaluator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "nn/features.h"

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
    set_policy(pos, lp + i * m, e);
    e.win = wp[i * 3 + 0];
    e.draw = wp[i * 3 + 1];
    e.loss = wp[i * 3 + 2];
    e.margin = distribution ? mp[i] : mp[i] * float(pos.total_stones()) / 2.f;
  }
}

void NnEvaluator::set_policy(const Position& pos, const float* logits, EvalOutput& e) {
  e.policy.fill(0.f);
  const uint32_t legal = pos.legal_mask();
  float mx = -1e30f;
  for (uint32_t mm = legal; mm; mm &= mm - 1) mx = std::max(mx, logits[__builtin_ctz(mm)]);
  float sum = 0;
  for (uint32_t mm = legal; mm; mm &= mm - 1) {
    const int k = __builtin_ctz(mm);
    sum += (e.policy[k] = std::exp(logits[k] - mx));
  }
  if (sum > 0)
    for (auto& p : e.policy) p /= sum;
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

// The CPU's oneDNN path: features, forward and the heads' softmaxes on plain memory, so
// that a batch of 16 pays for no LibTorch operator (each costs microseconds, and a
// search makes thousands of such calls a second).
void NnEvaluator::evaluate_onednn(const OnednnNetwork& net, std::span<const Position> positions,
                                  std::span<EvalOutput> out, const float* features) {
  const int m = positions[0].npits;
  const int L = 2 * m;
  const int64_t B = int64_t(positions.size());
  const size_t per = size_t(kNumPlanes) * L;
  const int64_t heads = net.head_outputs();
  thread_local std::vector<float> encoded, policy, head;
  policy.resize(size_t(B) * m);
  head.resize(size_t(B * heads));
  for (int64_t i = 0; i < B; ++i)
    if (positions[i].npits != m)
      throw std::invalid_argument("NnEvaluator: a batch mixes board sizes");
  if (!features) {
    encoded.resize(per * B);
    // Channels last, as the first convolution reads them: no transpose in the forward.
    for (int64_t i = 0; i < B; ++i)
      encode_features_cells_major(positions[i], std::span<float>(encoded).subspan(per * i, per));
    features = encoded.data();
  }
  net.forward(features, B, L, m, policy.data(), head.data(), FeatureLayout::kCellsMajor);
  const bool distribution = score_margins_.defined();
  const int64_t margins = heads - 4;  // the score distribution's 2M+1 logits
  for (int64_t i = 0; i < B; ++i) {
    const Position& pos = positions[i];
    EvalOutput& e = out[i];
    set_policy(pos, policy.data() + i * m, e);
    const float* h = head.data() + i * heads;
    const float mx = std::max({h[0], h[1], h[2]});
    const float w = std::exp(h[0] - mx), d = std::exp(h[1] - mx), l = std::exp(h[2] - mx);
    const float sum = w + d + l;
    e.win = w / sum;
    e.draw = d / sum;
    e.loss = l / sum;
    if (distribution) {
      // The expectation of the margin under the softmax of its logits.
      const float* s = h + 4;
      float top = s[0];
      for (int64_t k = 1; k < margins; ++k) top = std::max(top, s[k]);
      const int64_t max_margin = (margins - 1) / 2;
      double weight = 0, expectation = 0;
      for (int64_t k = 0; k < margins; ++k) {
        const double p = std::exp(double(s[k] - top));
        weight += p;
        expectation += p * double(k - max_margin);
      }
      e.margin = float(expectation / weight);
    } else {
      e.margin = h[3] * float(pos.total_stones()) / 2.f;
    }
  }
}

}  // namespace kz
