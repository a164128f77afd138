#include "nn/inference_network.h"

namespace kz {

namespace {
torch::Tensor on(const torch::Tensor& t, const torch::Device& device) {
  return t.detach().to(device, torch::kFloat32).contiguous();
}
// Every convolution of the network pads kernel / 2 cells of zeros on each side
// (nn/network.cpp), so that the ring keeps its length.
int64_t same_padding(const torch::nn::Conv1d& conv) {
  return conv->weight.size(2) / 2;
}
}  // namespace

InferenceNetwork::Conv InferenceNetwork::copy(const torch::nn::Conv1d& conv,
                                              const torch::Device& device) {
  Conv c;
  c.weight = on(conv->weight, device);
  if (conv->bias.defined()) c.bias = on(conv->bias, device);
  c.padding = same_padding(conv);
  return c;
}

InferenceNetwork::Conv InferenceNetwork::fold(const torch::nn::Conv1d& conv,
                                              const torch::nn::BatchNorm1d& bn,
                                              const torch::Device& device) {
  TORCH_CHECK(bn->options.track_running_stats(),
              "a batch norm without running statistics cannot be folded");
  torch::NoGradGuard no_grad;
  const auto dbl = torch::TensorOptions().dtype(torch::kFloat64);
  const torch::Tensor mean = bn->running_mean.detach().to(torch::kCPU, torch::kFloat64);
  const torch::Tensor var = bn->running_var.detach().to(torch::kCPU, torch::kFloat64);
  const int64_t out = mean.size(0);
  const torch::Tensor gamma = bn->options.affine()
                                  ? bn->weight.detach().to(torch::kCPU, torch::kFloat64)
                                  : torch::ones({out}, dbl);
  const torch::Tensor beta = bn->options.affine()
                                 ? bn->bias.detach().to(torch::kCPU, torch::kFloat64)
                                 : torch::zeros({out}, dbl);
  const torch::Tensor scale = gamma / torch::sqrt(var + bn->options.eps());
  const torch::Tensor weight = conv->weight.detach().to(torch::kCPU, torch::kFloat64);
  const torch::Tensor bias = conv->bias.defined()
                                 ? conv->bias.detach().to(torch::kCPU, torch::kFloat64)
                                 : torch::zeros({out}, dbl);
  Conv c;
  c.weight = on(weight * scale.view({out, 1, 1}), device);
  c.bias = on((bias - mean) * scale + beta, device);
  c.padding = same_padding(conv);
  return c;
}

InferenceNetwork::InferenceNetwork(Network net, const torch::Device& device, bool fold_bn)
    : net_(std::move(net)), folded_(fold_bn) {
  if (!folded_) return;
  NetworkImpl& n = *net_;
  input_ = fold(n.input_conv, n.input_bn, device);
  for (auto& module : *n.tower) {
    const auto& b = *module->as<ResidualBlock>();
    tower_.push_back({fold(b.conv1, b.bn1, device), fold(b.conv2, b.bn2, device),
                      on(b.pool_fc->weight, device), on(b.pool_fc->bias, device)});
  }
  policy_ = fold(n.policy_conv, n.policy_bn, device);
  policy_out_ = copy(n.policy_out, device);
  value_ = fold(n.value_conv, n.value_bn, device);
  value_fc_weight_ = on(n.value_fc->weight, device);
  value_fc_bias_ = on(n.value_fc->bias, device);
  wdl_weight_ = on(n.wdl_out->weight, device);
  wdl_bias_ = on(n.wdl_out->bias, device);
  margin_weight_ = on(n.margin_out->weight, device);
  margin_bias_ = on(n.margin_out->bias, device);
  if (n.config.score_distribution_head) {
    score_weight_ = on(n.score_out->weight, device);
    score_bias_ = on(n.score_out->bias, device);
  }
  // The model's modules are not needed any more: the folded tensors are its own.
  net_ = Network(nullptr);
}

NetOutput InferenceNetwork::forward(const torch::Tensor& features, int pits) const {
  if (!folded_) {
    Network net = net_;  // (the holder's const access gives a const module)
    return net->forward(features, pits);
  }
  auto conv = [](const torch::Tensor& x, const Conv& c) {
    return torch::conv1d(x, c.weight, c.bias, 1, c.padding);
  };
  torch::Tensor x = conv(features, input_).relu_();
  for (const Block& b : tower_) {
    torch::Tensor y = conv(x, b.conv1).relu_();
    // The global pooling bias (nn/network.h), added in place.
    y.add_(torch::linear(y.mean(2), b.pool_weight, b.pool_bias).unsqueeze(2));
    x = conv(y, b.conv2).add_(x).relu_();
  }
  torch::Tensor p = conv(x, policy_).relu_();
  p = conv(p, policy_out_).squeeze(1).narrow(1, 0, pits);

  torch::Tensor v = conv(x, value_).relu_();
  v = torch::cat({v.mean(2), std::get<0>(v.max(2))}, 1);
  v = torch::linear(v, value_fc_weight_, value_fc_bias_).relu_();
  NetOutput out{p,
                torch::linear(v, wdl_weight_, wdl_bias_),
                torch::linear(v, margin_weight_, margin_bias_).squeeze(1),
                {},
                {}};
  if (score_weight_.defined()) out.score_logits = torch::linear(v, score_weight_, score_bias_);
  return out;
}

}  // namespace kz
