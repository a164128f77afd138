#include "nn/network_evaluator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "nn/features.h"

namespace kz {

void set_policy_from_logits(const Position& pos, const float* logits, EvalOutput& e) {
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

// Features, forward and the heads' softmaxes on plain memory, so that a batch of 16 pays
// for no tensor library's operators (each costs microseconds, and a search makes
// thousands of such calls a second).
void evaluate_with_network(const FoldedNetwork& net, std::span<const Position> positions,
                           std::span<EvalOutput> out, const float* features) {
  if (positions.empty()) return;
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
      throw std::invalid_argument("the network's evaluator: a batch mixes board sizes");
  if (!features) {
    encoded.resize(per * B);
    // Channels last, as the first convolution reads them: no transpose in the forward.
    for (int64_t i = 0; i < B; ++i)
      encode_features_cells_major(positions[i], std::span<float>(encoded).subspan(per * i, per));
    features = encoded.data();
  }
  net.forward(features, B, L, m, policy.data(), head.data(), FeatureLayout::kCellsMajor);
  const bool distribution = heads > 4;
  const int64_t margins = heads - 4;  // the score distribution's 2M+1 logits
  for (int64_t i = 0; i < B; ++i) {
    const Position& pos = positions[i];
    EvalOutput& e = out[i];
    set_policy_from_logits(pos, policy.data() + i * m, e);
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

NetworkEvaluator::NetworkEvaluator(std::shared_ptr<const FoldedNetwork> net,
                                   std::string description)
    : net_(std::move(net)), description_(std::move(description)) {}

void NetworkEvaluator::evaluate(std::span<const Position> positions, std::span<EvalOutput> out) {
  evaluate_with_network(*net_, positions, out);
}

size_t NetworkEvaluator::prepared_floats(const Position& pos) const {
  return size_t(kNumPlanes) * size_t(2 * pos.npits);
}

void NetworkEvaluator::prepare(const Position& pos, float* out) const {
  encode_features_cells_major(pos, std::span<float>(out, prepared_floats(pos)));
}

void NetworkEvaluator::evaluate_prepared(std::span<const Position> positions, const float* inputs,
                                         std::span<EvalOutput> out) {
  evaluate_with_network(*net_, positions, out, inputs);
}

}  // namespace kz
