#include "nn/human_head.h"

#include <algorithm>
#include <cmath>

#include "nn/features.h"
#include "nn/network_evaluator.h"
#include "nn/network_layout.h"

namespace kz {

namespace {

const std::vector<float>& values_of(const PlainModel& model, const std::string& name) {
  const PlainTensor* t = find_tensor(model.tensors, name);
  if (!t) throw ModelError("the model's weights have no tensor '" + name + "'");
  return t->f32;
}

float dot(const float* a, const float* b, int64_t n) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

int top_human_move(const std::array<float, kMaxPits>& probabilities, const Position& pos) {
  int best = -1;
  for (uint32_t mm = pos.legal_mask(); mm; mm &= mm - 1) {
    const int k = __builtin_ctz(mm);
    if (best < 0 || probabilities[size_t(k)] > probabilities[size_t(best)]) best = k;
  }
  return best;
}

HumanHead::HumanHead(const PlainModel& model) : info_(model.meta.human), game_(model.meta.game) {
  const NetConfig& c = model.meta.network;
  if (!c.human_policy_head)
    throw ModelError("this model has no human policy head (train one with kumalak human-train)");
  const FoldedWeights folded = fold_network_weights(model.tensors, c);
  tower_ = std::make_shared<const PortableNetwork>(folded);
  value_net_ = make_folded_network(folded, InferencePrecision::kFp32, ConvolutionKernels::kAuto);
  channels_ = c.channels;
  head_channels_ = c.policy_channels;
  const auto& conv = values_of(model, "human_conv.weight");         // [P][C][1]
  const auto& rating = values_of(model, "human_rating_fc.weight");  // [P][R]
  const auto& gamma = values_of(model, "human_bn.weight");
  const auto& beta = values_of(model, "human_bn.bias");
  const auto& mean = values_of(model, "human_bn.running_mean");
  const auto& var = values_of(model, "human_bn.running_var");
  const int64_t P = head_channels_, C = channels_, R = kHumanRatingInputs;
  conv_.resize(size_t(P * C));
  rating_.resize(size_t(P * R));
  bias_.resize(size_t(P));
  for (int64_t p = 0; p < P; ++p) {
    const double s = double(gamma[p]) / std::sqrt(double(var[p]) + kBatchNormEps);
    for (int64_t k = 0; k < C; ++k) conv_[size_t(p * C + k)] = float(double(conv[p * C + k]) * s);
    for (int64_t j = 0; j < R; ++j)
      rating_[size_t(p * R + j)] = float(double(rating[p * R + j]) * s);
    bias_[size_t(p)] = float(double(beta[p]) - double(mean[p]) * s);
  }
  out_w_ = values_of(model, "human_out.weight");
  out_b_ = values_of(model, "human_out.bias").at(0);
  if (c.human_rating_temperature) temperature_ = values_of(model, "human_temperature_fc.weight");
}

std::vector<float> HumanHead::convolved(std::span<const Position> positions) const {
  const int64_t P = head_channels_, C = channels_;
  const int m = positions[0].npits;
  const int L = 2 * m;
  std::vector<float> out(positions.size() * size_t(m) * size_t(P));
  std::vector<float> features(size_t(kNumPlanes) * size_t(L)), trunk(size_t(L * C));
  for (size_t i = 0; i < positions.size(); ++i) {
    encode_features_cells_major(positions[i], features);
    tower_->trunk(features.data(), L, trunk.data());
    float* row = out.data() + i * size_t(m) * size_t(P);
    for (int k = 0; k < m; ++k)
      for (int64_t p = 0; p < P; ++p)
        row[k * P + p] = dot(conv_.data() + p * C, trunk.data() + k * C, C);
  }
  return out;
}

std::vector<float> HumanHead::logits(std::span<const Position> positions,
                                     const std::vector<float>& convolved,
                                     std::span<const std::array<float, kHumanRatingInputs>> inputs,
                                     const std::vector<std::array<float, kMaxPits>>& values) const {
  const int64_t P = head_channels_;
  const int m = positions[0].npits;
  std::vector<float> out(positions.size() * size_t(m));
  std::vector<float> bias(static_cast<size_t>(P));
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& pos = positions[i];
    const float* row = convolved.data() + i * size_t(m) * size_t(P);
    const float* r = inputs[i].data();
    for (int64_t p = 0; p < P; ++p)
      bias[size_t(p)] =
          bias_[size_t(p)] + dot(rating_.data() + p * kHumanRatingInputs, r, kHumanRatingInputs);
    const float scale =
        temperature_.empty() ? 1.f : std::exp(dot(temperature_.data(), r, kHumanRatingInputs));
    const float beta =
        info_.value_weights.empty() ? 0.f : dot(info_.value_weights.data(), r, kHumanRatingInputs);
    for (int k = 0; k < m; ++k) {
      float logit = out_b_;
      for (int64_t p = 0; p < P; ++p)
        logit += out_w_[size_t(p)] * std::max(row[k * P + p] + bias[size_t(p)], 0.f);
      logit *= scale;
      if (!values.empty()) logit += beta * values[i][size_t(k)];
      out[i * size_t(m) + size_t(k)] = pos.legal_mask() >> k & 1 ? logit : -1e30f;
    }
  }
  return out;
}

std::vector<std::array<float, kMaxPits>> HumanHead::probabilities(
    std::span<const Position> positions, int rating, bool titled) const {
  const std::vector<int> ratings(positions.size(), rating);
  const std::vector<char> titles(positions.size(), char(titled));
  return probabilities(positions, ratings, titles);
}

std::vector<std::array<float, kMaxPits>> HumanHead::probabilities(
    std::span<const Position> positions, std::span<const int> ratings,
    std::span<const char> titled) const {
  std::vector<std::array<float, kMaxPits>> out(positions.size());
  if (positions.empty()) return out;
  const int m = positions[0].npits;
  std::vector<std::array<float, kHumanRatingInputs>> inputs;
  for (size_t i = 0; i < positions.size(); ++i)
    inputs.push_back(human_rating_inputs(info_, ratings[i], !titled.empty() && titled[i]));
  const auto values = info_.value_weights.empty() ? std::vector<std::array<float, kMaxPits>>{}
                                                  : move_values(positions);
  const std::vector<float> z = logits(positions, convolved(positions), inputs, values);
  for (size_t i = 0; i < positions.size(); ++i) {
    const float* row = z.data() + i * size_t(m);
    const float top = *std::max_element(row, row + m);
    float sum = 0;
    for (int k = 0; k < m; ++k) sum += std::exp(row[k] - top);
    for (int k = 0; k < m; ++k)
      out[i][size_t(k)] = positions[i].legal_mask() >> k & 1 ? std::exp(row[k] - top) / sum : 0.f;
  }
  return out;
}

std::vector<std::vector<double>> HumanHead::move_logprobs(std::span<const Position> positions,
                                                          std::span<const int> moves,
                                                          const std::vector<int>& ratings) const {
  std::vector<std::vector<double>> out(ratings.size(), std::vector<double>(positions.size()));
  if (positions.empty() || ratings.empty()) return out;
  const int m = positions[0].npits;
  const auto values = info_.value_weights.empty() ? std::vector<std::array<float, kMaxPits>>{}
                                                  : move_values(positions);
  // The tower and the head's convolution once for every rating of the grid.
  const std::vector<float> head = convolved(positions);
  for (size_t g = 0; g < ratings.size(); ++g) {
    const std::vector<std::array<float, kHumanRatingInputs>> inputs(
        positions.size(), human_rating_inputs(info_, ratings[g], false));
    const std::vector<float> z = logits(positions, head, inputs, values);
    for (size_t b = 0; b < positions.size(); ++b) {
      const float* row = z.data() + b * size_t(m);
      const float top = *std::max_element(row, row + m);
      double sum = 0;
      for (int k = 0; k < m; ++k) sum += std::exp(double(row[k] - top));
      out[g][b] = double(row[moves[b]] - top) - std::log(sum);
    }
  }
  return out;
}

std::vector<std::array<float, kMaxPits>> HumanHead::move_values(
    std::span<const Position> positions) const {
  std::vector<std::array<float, kMaxPits>> out(positions.size());
  // Every child the network must judge; a finished or decided one is scored exactly.
  std::vector<Position> children;
  std::vector<std::pair<size_t, int>> where;  // (row, pit) of each child asked
  std::vector<char> flip;                     // the child's mover is the opponent
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& pos = positions[i];
    out[i].fill(0.f);
    for (uint32_t mm = pos.legal_mask(); mm; mm &= mm - 1) {
      const int k = __builtin_ctz(mm);
      Position child = pos;
      child.play(k);
      if (child.is_over() || child.is_decided()) {
        out[i][size_t(k)] = float(outcome_score(child.outcome(), pos.to_move));
        continue;
      }
      children.push_back(child);
      where.emplace_back(i, k);
      flip.push_back(child.to_move != pos.to_move);
    }
  }
  if (children.empty()) return out;
  std::vector<EvalOutput> e(children.size());
  evaluate_with_network(*value_net_, children, e);
  for (size_t c = 0; c < children.size(); ++c) {
    const float v = e[c].win - e[c].loss;  // the child's mover's view
    out[where[c].first][size_t(where[c].second)] = flip[c] ? -v : v;
  }
  return out;
}

}  // namespace kz
