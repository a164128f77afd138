#include "nn/network_layout.h"

#include <cmath>
#include <string>

#include "core/checksum.h"
#include "nn/features.h"
#include "nn/human_rating.h"
#include "nn/model_header.h"

namespace kz {

namespace {

// The specs of one module kind, as LibTorch registers them.
struct Layout {
  std::vector<TensorSpec> parameters, buffers;

  void add(const std::string& name, std::vector<int64_t> shape) {
    parameters.push_back({name, TensorDtype::kF32, std::move(shape)});
  }
  void conv(const std::string& name, int64_t in, int64_t out, int64_t kernel, bool bias) {
    add(name + ".weight", {out, in, kernel});
    if (bias) add(name + ".bias", {out});
  }
  void linear(const std::string& name, int64_t in, int64_t out, bool bias = true) {
    add(name + ".weight", {out, in});
    if (bias) add(name + ".bias", {out});
  }
  void batch_norm(const std::string& name, int64_t n) {
    add(name + ".weight", {n});
    add(name + ".bias", {n});
    buffers.push_back({name + ".running_mean", TensorDtype::kF32, {n}});
    buffers.push_back({name + ".running_var", TensorDtype::kF32, {n}});
    buffers.push_back({name + ".num_batches_tracked", TensorDtype::kI64, {}});
  }
};

const PlainTensor& tensor(const NamedTensors& tensors, const std::string& name) {
  const PlainTensor* t = find_tensor(tensors, name);
  if (!t || t->dtype != TensorDtype::kF32)
    throw ModelError("the network's weights have no fp32 tensor '" + name + "'");
  return *t;
}

// A convolution (no bias of its own) and the batch norm after it, as one convolution.
FoldedLayer fold(const NamedTensors& tensors, const std::string& conv, const std::string& bn) {
  const PlainTensor& w = tensor(tensors, conv + ".weight");
  const PlainTensor* conv_bias = find_tensor(tensors, conv + ".bias");
  const PlainTensor& gamma = tensor(tensors, bn + ".weight");
  const PlainTensor& beta = tensor(tensors, bn + ".bias");
  const PlainTensor& mean = tensor(tensors, bn + ".running_mean");
  const PlainTensor& var = tensor(tensors, bn + ".running_var");
  const int64_t out = w.size(0), per_out = w.numel() / out;
  FoldedLayer f;
  f.weight.shape = w.shape;
  f.weight.f32.resize(size_t(w.numel()));
  f.bias.shape = {out};
  f.bias.f32.resize(size_t(out));
  for (int64_t o = 0; o < out; ++o) {
    // In double, as LibTorch folded it before (the same rounding to fp32 at the end).
    const double scale = double(gamma.f32[o]) / std::sqrt(double(var.f32[o]) + kBatchNormEps);
    for (int64_t k = 0; k < per_out; ++k) {
      const double v = double(w.f32[size_t(o * per_out + k)]) * scale;
      f.weight.f32[size_t(o * per_out + k)] = float(v);
    }
    const double b = conv_bias ? double(conv_bias->f32[o]) : 0.0;
    const double shifted = (b - double(mean.f32[o])) * scale;
    f.bias.f32[size_t(o)] = float(shifted + double(beta.f32[o]));
  }
  return f;
}

FoldedLayer copy(const NamedTensors& tensors, const std::string& name) {
  return {tensor(tensors, name + ".weight"), tensor(tensors, name + ".bias")};
}

}  // namespace

std::vector<TensorSpec> network_tensor_specs(const NetConfig& c) {
  Layout l;
  l.conv("input_conv", kNumPlanes, c.channels, 3, false);
  l.batch_norm("input_bn", c.channels);
  for (int b = 0; b < c.blocks; ++b) {
    const std::string p = "tower." + std::to_string(b) + ".";
    l.conv(p + "conv1", c.channels, c.channels, 3, false);
    l.batch_norm(p + "bn1", c.channels);
    l.linear(p + "pool_fc", c.channels, c.channels);
    l.conv(p + "conv2", c.channels, c.channels, 3, false);
    l.batch_norm(p + "bn2", c.channels);
  }
  l.conv("policy_conv", c.channels, c.policy_channels, 1, false);
  l.batch_norm("policy_bn", c.policy_channels);
  l.conv("policy_out", c.policy_channels, 1, 1, true);
  l.conv("value_conv", c.channels, c.value_channels, 1, false);
  l.batch_norm("value_bn", c.value_channels);
  l.linear("value_fc", 2 * c.value_channels, c.value_hidden);
  l.linear("wdl_out", c.value_hidden, 3);
  l.linear("margin_out", c.value_hidden, 1);
  if (c.opponent_policy_head) {
    l.conv("opponent_policy_conv", c.channels, c.policy_channels, 1, false);
    l.batch_norm("opponent_policy_bn", c.policy_channels);
    l.conv("opponent_policy_out", c.policy_channels, 1, 1, true);
  }
  if (c.score_distribution_head) l.linear("score_out", c.value_hidden, 2 * c.score_max_margin + 1);
  if (c.human_policy_head) {
    l.conv("human_conv", c.channels, c.policy_channels, 1, false);
    l.linear("human_rating_fc", kHumanRatingInputs, c.policy_channels, false);
    l.batch_norm("human_bn", c.policy_channels);
    l.conv("human_out", c.policy_channels, 1, 1, true);
    if (c.human_rating_temperature) l.linear("human_temperature_fc", kHumanRatingInputs, 1, false);
  }
  std::vector<TensorSpec> all = std::move(l.parameters);
  all.insert(all.end(), l.buffers.begin(), l.buffers.end());
  return all;
}

uint64_t plain_weights_checksum(const NamedTensors& tensors) {
  uint64_t h = kFnv1a64Start;
  for (const auto& [name, t] : tensors)
    h = t.dtype == TensorDtype::kF32 ? fnv1a64(t.f32.data(), t.f32.size() * sizeof(float), h)
                                     : fnv1a64(t.i64.data(), t.i64.size() * sizeof(int64_t), h);
  return h;
}

FoldedWeights fold_network_weights(const NamedTensors& tensors, const NetConfig& c) {
  FoldedWeights w;
  w.input = fold(tensors, "input_conv", "input_bn");
  for (int b = 0; b < c.blocks; ++b) {
    const std::string p = "tower." + std::to_string(b) + ".";
    w.tower.push_back({fold(tensors, p + "conv1", p + "bn1"), fold(tensors, p + "conv2", p + "bn2"),
                       copy(tensors, p + "pool_fc")});
  }
  w.policy = fold(tensors, "policy_conv", "policy_bn");
  w.policy_out = copy(tensors, "policy_out");
  w.value = fold(tensors, "value_conv", "value_bn");
  w.value_fc = copy(tensors, "value_fc");
  w.wdl = copy(tensors, "wdl_out");
  w.margin = copy(tensors, "margin_out");
  if (c.score_distribution_head) w.score = copy(tensors, "score_out");
  return w;
}

}  // namespace kz
