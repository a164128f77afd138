#include "nn/inference_network.h"

#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "nn/features.h"

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

InferenceNetwork::Dense InferenceNetwork::copy(const torch::nn::Linear& fc,
                                               const torch::Device& device) {
  Dense d;
  d.weight = on(fc->weight, device);
  d.bias = on(fc->bias, device);
  // On the CPU, oneDNN's convolution beats the reference BLAS from about 16 outputs
  // (measured: 32 -> 32 twice as fast, 64 -> 64 six times); below, the BLAS call's
  // smaller overhead wins (64 -> 3: 16 us against 42 us).
  // Only while oneDNN runs the convolutions: where nn/convolution_check.h turned it off,
  // a convolution takes LibTorch's own slower kernels.
  d.as_convolution =
      device.is_cpu() && d.weight.size(0) >= 16 && at::globalContext().userEnabledMkldnn();
  if (d.as_convolution) d.weight = d.weight.unsqueeze(2).contiguous();
  return d;
}

torch::Tensor InferenceNetwork::Dense::operator()(const torch::Tensor& x) const {
  if (!as_convolution) return torch::linear(x, weight, bias);
  return torch::conv1d(x.unsqueeze(2), weight, bias).squeeze(2);
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

std::string to_string(InferenceBackend backend) {
  switch (backend) {
    case InferenceBackend::kOneDnn:
      return "onednn";
    case InferenceBackend::kLibTorch:
      return "libtorch";
    case InferenceBackend::kReference:
      return "reference";
  }
  return "?";
}

InferenceBackend parse_inference_backend(const std::string& text) {
  if (text == "onednn") return InferenceBackend::kOneDnn;
  if (text == "libtorch") return InferenceBackend::kLibTorch;
  if (text == "reference") return InferenceBackend::kReference;
  throw std::invalid_argument("inference backend '" + text +
                              "': expected onednn, libtorch or reference");
}

namespace {
// The forwards' thread count is LibTorch's wherever this file is linked in (any
// LibTorch evaluator): one setting for both, as torch::set_num_threads always set it.
const bool threads_follow_libtorch = [] {
  set_inference_threads_source([] { return at::get_num_threads(); },
                               [](int n) { at::set_num_threads(n); });
  return true;
}();

std::mutex default_backend_mutex;
std::optional<InferenceBackend> default_backend;
}  // namespace

InferenceBackend default_inference_backend() {
  std::lock_guard lock(default_backend_mutex);
  if (!default_backend) {
    const char* env = std::getenv("KUMALAK_BACKEND");
    default_backend = env && *env ? parse_inference_backend(env) : InferenceBackend::kOneDnn;
  }
  return *default_backend;
}

void set_default_inference_backend(InferenceBackend backend) {
  std::lock_guard lock(default_backend_mutex);
  default_backend = backend;
}

InferenceNetwork::InferenceNetwork(Network net, const torch::Device& device, bool fold_bn)
    : InferenceNetwork(
          std::move(net), device,
          InferenceOptions{fold_bn ? default_inference_backend() : InferenceBackend::kReference}) {}

InferenceNetwork::InferenceNetwork(Network net, const torch::Device& device,
                                   const InferenceOptions& options)
    : net_(std::move(net)),
      folded_(options.backend != InferenceBackend::kReference),
      backend_(options.backend) {
  // oneDNN runs on the CPU, and only where the convolution check left it on
  // (nn/convolution_check.h).
  if (backend_ == InferenceBackend::kOneDnn &&
      (!onednn_compiled() || !device.is_cpu() || !at::globalContext().userEnabledMkldnn()))
    backend_ = InferenceBackend::kLibTorch;
  if (!folded_) return;
  NetworkImpl& n = *net_;
  input_ = fold(n.input_conv, n.input_bn, device);
  for (auto& module : *n.tower) {
    const auto& b = *module->as<ResidualBlock>();
    tower_.push_back(
        {fold(b.conv1, b.bn1, device), fold(b.conv2, b.bn2, device), copy(b.pool_fc, device)});
  }
  policy_ = fold(n.policy_conv, n.policy_bn, device);
  policy_out_ = copy(n.policy_out, device);
  value_ = fold(n.value_conv, n.value_bn, device);
  value_fc_ = copy(n.value_fc, device);
  wdl_ = copy(n.wdl_out, device);
  margin_ = copy(n.margin_out, device);
  if (n.config.score_distribution_head) score_ = copy(n.score_out, device);
  // The model's modules are not needed any more: the folded tensors are its own.
  net_ = Network(nullptr);
  if (backend_ == InferenceBackend::kOneDnn)
    onednn_ =
        std::make_shared<const OnednnNetwork>(folded_weights(), options.precision, options.kernels);
}

namespace {
PlainTensor plain(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  const float* data = c.data_ptr<float>();
  return PlainTensor(c.sizes().vec(), std::vector<float>(data, data + c.numel()));
}
}  // namespace

FoldedWeights InferenceNetwork::folded_weights() const {
  auto conv = [](const Conv& c) { return FoldedLayer{plain(c.weight), plain(c.bias)}; };
  // A dense layer held as a 1-wide convolution goes back to [out, in].
  auto dense = [](const Dense& d) {
    return FoldedLayer{plain(d.as_convolution ? d.weight.squeeze(2) : d.weight), plain(d.bias)};
  };
  FoldedWeights w;
  w.input = conv(input_);
  for (const Block& b : tower_) w.tower.push_back({conv(b.conv1), conv(b.conv2), dense(b.pool)});
  w.policy = conv(policy_);
  w.policy_out = conv(policy_out_);
  w.value = conv(value_);
  w.value_fc = dense(value_fc_);
  w.wdl = dense(wdl_);
  w.margin = dense(margin_);
  if (score_.weight.defined()) w.score = dense(score_);
  return w;
}

InferencePrecision InferenceNetwork::precision() const {
  return onednn_ ? onednn_->precision() : InferencePrecision::kFp32;
}

std::string InferenceNetwork::describe() const {
  std::string s = to_string(backend_) + " " + to_string(precision());
  if (onednn_ && !onednn_->implementation().empty()) s += " (" + onednn_->implementation() + ")";
  return s;
}

NetOutput InferenceNetwork::forward(const torch::Tensor& features, int pits) const {
  if (!folded_) {
    Network net = net_;  // (the holder's const access gives a const module)
    return net->forward(features, pits);
  }
  if (onednn_) {
    TORCH_CHECK(features.dim() == 3 && features.size(1) == kNumPlanes && features.device().is_cpu(),
                "InferenceNetwork::forward: features must be [B, kNumPlanes, L] on the CPU");
    const int64_t batch = features.size(0), L = features.size(2);
    const torch::Tensor input = features.to(torch::kFloat32).contiguous();
    const auto options = torch::TensorOptions().dtype(torch::kFloat32);
    torch::Tensor policy = torch::empty({batch, pits}, options);
    torch::Tensor heads = torch::empty({batch, onednn_->head_outputs()}, options);
    onednn_->forward(input.data_ptr<float>(), batch, L, pits, policy.data_ptr<float>(),
                     heads.data_ptr<float>());
    NetOutput out{policy, heads.narrow(1, 0, 3), heads.select(1, 3), {}, {}};
    if (onednn_->head_outputs() > 4)
      out.score_logits = heads.narrow(1, 4, onednn_->head_outputs() - 4);
    return out;
  }
  auto conv = [](const torch::Tensor& x, const Conv& c) {
    return torch::conv1d(x, c.weight, c.bias, 1, c.padding);
  };
  torch::Tensor x = conv(features, input_).relu_();
  for (const Block& b : tower_) {
    torch::Tensor y = conv(x, b.conv1).relu_();
    // The global pooling bias (nn/network.h), added in place.
    y.add_(b.pool(y.mean(2)).unsqueeze(2));
    x = conv(y, b.conv2).add_(x).relu_();
  }
  torch::Tensor p = conv(x, policy_).relu_();
  p = conv(p, policy_out_).squeeze(1).narrow(1, 0, pits);

  torch::Tensor v = conv(x, value_).relu_();
  v = torch::cat({v.mean(2), std::get<0>(v.max(2))}, 1);
  v = value_fc_(v).relu_();
  NetOutput out{p, wdl_(v), margin_(v).squeeze(1), {}, {}};
  if (score_.weight.defined()) out.score_logits = score_(v);
  return out;
}

}  // namespace kz
