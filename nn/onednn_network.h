// The folded network (nn/inference_network.h) run directly through oneDNN, the library
// LibTorch's own CPU convolutions use, without LibTorch's per-call overhead:
//
// - each 1-D convolution is one oneDNN primitive on channels-last activations
//   ([B, L, C], "nwc"), with its bias, ReLU and (the second convolution of a block) the
//   residual add fused into it as post-ops: the residual stream is the destination the
//   convolution sums into;
// - the weights are reordered once into the layout the kernel wants (per layout: every
//   batch size of the same shape shares them);
// - the primitives are created once per batch size bucket (1, 2, 4, 8, 16, then
//   multiples of 16: a batch is padded with zero positions up to its bucket) and
//   cached;
// - a batch runs through the whole network in chunks of 64 positions per thread, so that
//   one chunk's activations stay in the core's L2 cache from layer to layer;
// - the fully connected layers (pooling bias, value head), the policy's 1-wide output,
//   the global pooling and the pooling bias add are loops of our own on 16-float
//   vectors, compiled for AVX-512, AVX2 and plain x86-64 and chosen at run time (as
//   oneDNN primitives these small layers were mostly call overhead);
// - on CPUs whose oneDNN runs no AVX-512 (AVX2 only), the fp32 convolutions run
//   through kernels of our own instead (nn/direct_convolution.h: 0.84 of the core's
//   fp32 peak on the tower's shape against oneDNN's 0.60 there), on padded channels-last
//   activations, with the global pooling's sums made in the first convolution of each
//   block; so do the bf16 convolutions on CPUs with avx512_bf16 but no AMX (one call a
//   layer instead of a oneDNN primitive's dispatch); ConvolutionKernels says which;
// - features may come channels last (FeatureLayout::kCellsMajor, what the evaluator
//   encodes), read in place by the first convolution.
//
// bf16: with InferencePrecision::kBf16 the convolutions take bf16 activations and
// weights (accumulating in fp32; biases, pooling, heads and the fully connected layers
// stay fp32), twice the multiply-add rate on CPUs with avx512_bf16. Its results differ
// from fp32 by bf16 rounding (about 3 significant digits; tests/nn_onednn_test.cpp
// states the bound).
//
// int8: with InferencePrecision::kInt8 our kernels quantise each position's input to u8
// as it comes (its own scale and zero point) and hold the weights in s8 per output
// channel, on CPUs with AVX-512 VNNI, always on the calling thread (there are no int8
// oneDNN primitives here). Only when asked for: kAuto never picks it.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "nn/network.h"

namespace kz {

// Arithmetic of the network's convolutions. kAuto: bf16 where the CPU and oneDNN run it
// (onednn_bf16_supported()), fp32 elsewhere.
// kInt8: our kernels' dynamically quantised int8 (nn/direct_convolution.h) on CPUs with
// AVX-512 VNNI, one thread a forward; asked for by name only, never by kAuto.
enum class InferencePrecision { kAuto, kFp32, kBf16, kInt8 };

// "auto", "fp32", "bf16", "int8" and back; parse throws std::invalid_argument on other
// text.
InferencePrecision parse_inference_precision(const std::string& text);
std::string to_string(InferencePrecision precision);

// One layer with its batch norm already folded: weight [out, in, kernel] for a
// convolution, [out, in] for a fully connected layer; bias [out]; fp32, on the CPU.
struct FoldedLayer {
  torch::Tensor weight, bias;
};

// How the features of one position lie in memory: kPlanesMajor [kNumPlanes][L] (what
// encode_features writes and the LibTorch forward takes), kCellsMajor [L][kNumPlanes]
// (encode_features_cells_major: the first convolution's own layout, read in place).
enum class FeatureLayout { kPlanesMajor, kCellsMajor };

// Every layer play evaluates (the opponent-policy head is never evaluated).
struct FoldedWeights {
  struct Block {
    FoldedLayer conv1, conv2, pool_fc;
  };
  FoldedLayer input;
  std::vector<Block> tower;
  FoldedLayer policy, policy_out, value, value_fc, wdl, margin;
  FoldedLayer score;  // undefined tensors without the score distribution head
};

// Whether this build has the oneDNN path (libdnnl-dev found at configure time).
bool onednn_compiled();

// Whether oneDNN runs bf16 convolutions natively here: the CPU has avx512_bf16 and
// oneDNN may use it (dnnl::get_effective_cpu_isa() at least avx512_core_bf16, which the
// environment variable ONEDNN_MAX_CPU_ISA can cap: AVX512_CORE has no bf16). Without,
// kAuto means fp32 and kBf16 is refused. Decided once per process, at the first call.
bool onednn_bf16_supported();

// The precision `precision` runs in on the oneDNN path: kAuto becomes kBf16 where
// onednn_bf16_supported(), else kFp32; kFp32 and kBf16 stay as they are (kBf16 where it
// cannot run is refused when the network is built, not here).
InferencePrecision resolve_inference_precision(InferencePrecision precision);

// Which kernels run the convolutions on one thread. kAuto: ours
// (nn/direct_convolution.h) where they are the faster and the network's widths suit
// them (channels and the heads' channels multiples of 16): in fp32 where the CPU has
// AVX2 and FMA and oneDNN runs no AVX-512 (dnnl::get_effective_cpu_isa() below
// avx512_core), in bf16 where the CPU has avx512_bf16 and oneDNN no AMX; oneDNN's
// primitives elsewhere and for a forward on several OpenMP threads. kOneDnn: always
// oneDNN's (to compare). kDirect: ours wherever they can run (refused where they cannot;
// several threads still take oneDNN's).
enum class ConvolutionKernels { kAuto, kOneDnn, kDirect };

class OnednnNetwork {
 public:
  // `precision` kAuto resolves here; kBf16 without onednn_bf16_supported() throws
  // std::runtime_error, as does any construction in a build without oneDNN, and kDirect
  // where those kernels cannot run.
  OnednnNetwork(const FoldedWeights& weights, InferencePrecision precision,
                ConvolutionKernels kernels = ConvolutionKernels::kAuto);
  ~OnednnNetwork();
  OnednnNetwork(const OnednnNetwork&) = delete;
  OnednnNetwork& operator=(const OnednnNetwork&) = delete;

  // As InferenceNetwork::forward: `features` [B, kNumPlanes, L] fp32 on the CPU. Several
  // threads may call it at once (each has its own buffers).
  NetOutput forward(const torch::Tensor& features, int pits) const;
  // The same on plain memory, with no LibTorch tensor made (what the evaluator calls: a
  // search's small batches pay for every operator): `features` [batch, kNumPlanes,
  // length] fp32 (kCellsMajor: [batch, length, kNumPlanes]); writes the policy logits to
  // `policy` [batch, pits] and the value heads to `heads` [batch, head_outputs()]: W/D/L
  // logits, the margin, then the score distribution's logits when the network has that
  // head.
  void forward(const float* features, int64_t batch, int64_t length, int pits, float* policy,
               float* heads, FeatureLayout layout = FeatureLayout::kPlanesMajor) const;
  int64_t head_outputs() const;

  // kFp32, kBf16 or kInt8: what the convolutions run in.
  InferencePrecision precision() const;
  // The kernel of a tower convolution on one thread: oneDNN's name for it, e.g.
  // "jit:avx512_core", or "direct:avx2" / "direct:avx512_bf16" / "direct:avx512_vnni" for
  // ours.
  std::string implementation() const;
  // Whether our own kernels run the convolutions on one thread.
  bool direct() const;

 private:
  // forward() on one thread through the convolutions of our own.
  void forward_direct(const float* features, int64_t batch, int64_t length, int pits, float* policy,
                      float* heads, FeatureLayout layout) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kz
