// The network as play evaluates it: the model's weights with every BatchNorm folded
// into the convolution before it, so that each layer of the forward is one convolution
// with a bias and a ReLU instead of a convolution, a batch norm and a ReLU.
//
// In eval mode a BatchNorm is an affine map per channel,
//   bn(z) = (z - running_mean) * gamma / sqrt(running_var + eps) + beta,
// and the convolution before it is linear, so the pair is one convolution with
//   W'[o] = W[o] * s[o],   b'[o] = (b[o] - running_mean[o]) * s[o] + beta[o],
//   s[o]  = gamma[o] / sqrt(running_var[o] + eps).
// The fold is computed once, in double precision, when the network is built from a
// model; the model's own Network is only read (training keeps its unfolded modules and
// autograd). The result equals the model's eval-mode forward up to float rounding (the
// tests bound the difference: tests/nn_fold_test.cpp).
//
// The folded forward also applies its ReLUs and the residual add in place on tensors it
// owns, which saves one temporary per layer, and on the CPU runs its wider fully
// connected layers as 1-wide convolutions: Debian's LibTorch 1.13 sends torch::linear
// to the reference BLAS (libblas3, about 7 GFLOP/s here), its convolutions to oneDNN
// (the value FC 64 -> 64 at batch 256: about 300 us as a linear, 45 us as a convolution).
//
// On the CPU, in a build with oneDNN, the folded weights run through oneDNN directly
// (nn/onednn_network.h: fused post-ops, weights packed once, no LibTorch operator per
// layer), in fp32, bf16 or int8; the folded LibTorch forward above serves other devices and
// builds without oneDNN.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "nn/network.h"
#include "nn/onednn_network.h"

namespace kz {

// Which forward evaluates the network.
enum class InferenceBackend {
  kOneDnn,     // folded, through oneDNN (CPU; falls back to kLibTorch elsewhere)
  kLibTorch,   // folded, through LibTorch's operators
  kReference,  // the model's own unfolded forward: only to compare (`bench --no-fold`)
};

// "onednn", "libtorch", "reference" and back; parse throws std::invalid_argument on
// other text.
std::string to_string(InferenceBackend backend);
InferenceBackend parse_inference_backend(const std::string& text);

// The one place that decides which forward every evaluator (play, hints, analysis,
// self-play, gating) runs: the environment variable KUMALAK_BACKEND (onednn, libtorch or
// reference) when set, else kOneDnn. set_default_... overrides both for the rest of the
// process (tests that run one self-play through two paths, `kumalak bench --backend`).
// Training never goes through it: it keeps the model's own forward and autograd.
InferenceBackend default_inference_backend();
void set_default_inference_backend(InferenceBackend backend);

// The default precision (default_inference_precision(), KUMALAK_PRECISION) is declared
// with the forward in nn/folded_network.h: builds without LibTorch choose it too.

struct InferenceOptions {
  InferenceBackend backend = default_inference_backend();
  // The oneDNN path's arithmetic (nn/onednn_network.h); the LibTorch paths are fp32.
  InferencePrecision precision = default_inference_precision();
  // Whose kernels run the oneDNN path's fp32 convolutions (nn/onednn_network.h): kAuto
  // but to compare them.
  ConvolutionKernels kernels = ConvolutionKernels::kAuto;
};

class InferenceNetwork {
 public:
  // `net` is read (in eval mode: its running statistics) and, with `fold`, copied into
  // folded tensors on `device`; without `fold` the forward is `net`'s own, which the
  // caller must have put in eval mode on `device` (kept to compare the two paths:
  // `kumalak bench --no-fold`).
  // `fold` picks the default backend (default_inference_backend(); kOneDnn falls back
  // to kLibTorch where oneDNN cannot run), !fold kReference.
  InferenceNetwork(Network net, const torch::Device& device, bool fold = true);
  InferenceNetwork(Network net, const torch::Device& device, const InferenceOptions& options);

  // The policy, W/D/L and margin heads (and the score distribution when the network has
  // one) for `features` [B, kNumPlanes, L]; `pits` as in NetworkImpl::forward. Never the
  // opponent-policy head. Call under c10::InferenceMode or torch::NoGradGuard.
  NetOutput forward(const torch::Tensor& features, int pits) const;

  bool folded() const { return folded_; }
  // The backend that runs (kOneDnn only where it can) and its arithmetic (kFp32 or
  // kBf16).
  InferenceBackend backend() const { return backend_; }
  InferencePrecision precision() const;
  // For logs and `bench`: "onednn bf16 (jit:avx512_core_bf16)", "libtorch fp32", ...
  std::string describe() const;
  // The oneDNN network when that backend runs (its plain-memory forward spares a
  // search's small batches LibTorch's operators), else null.
  const OnednnNetwork* onednn() const { return onednn_.get(); }

 private:
  // One convolution with its folded bias.
  struct Conv {
    torch::Tensor weight, bias;
    int64_t padding = 0;
  };
  // A fully connected layer: [B, in] -> [B, out].
  struct Dense {
    torch::Tensor weight, bias;  // weight [out, in], or [out, in, 1] as a convolution
    bool as_convolution = false;
    torch::Tensor operator()(const torch::Tensor& x) const;
  };
  struct Block {
    Conv conv1, conv2;
    Dense pool;
  };
  static Conv fold(const torch::nn::Conv1d& conv, const torch::nn::BatchNorm1d& bn,
                   const torch::Device& device);
  static Conv copy(const torch::nn::Conv1d& conv, const torch::Device& device);
  static Dense copy(const torch::nn::Linear& fc, const torch::Device& device);

  // The folded layers as oneDNN takes them.
  FoldedWeights folded_weights() const;

  Network net_;
  bool folded_;
  InferenceBackend backend_;
  std::shared_ptr<const OnednnNetwork> onednn_;  // with kOneDnn only
  Conv input_, policy_, policy_out_, value_;
  std::vector<Block> tower_;
  Dense value_fc_, wdl_, margin_, score_;
};

}  // namespace kz
