// The folded network (nn/folded_network.h) run directly through oneDNN, the library
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

#include <memory>
#include <string>

#include "nn/folded_network.h"

namespace kz {

// Whether this build has the oneDNN path (libdnnl-dev found at configure time).
bool onednn_compiled();

// Whether oneDNN runs bf16 convolutions natively here: the CPU has avx512_bf16 and
// oneDNN may use it (dnnl::get_effective_cpu_isa() at least avx512_core_bf16, which the
// environment variable ONEDNN_MAX_CPU_ISA can cap: AVX512_CORE has no bf16). Without,
// kAuto means fp32 and kBf16 is refused. Decided once per process, at the first call.
bool onednn_bf16_supported();

// The precision `precision` runs in on the oneDNN path: kAuto becomes kBf16 where
// onednn_bf16_supported(), else kFp32 (in a build without oneDNN,
// portable_auto_precision()); kFp32 and kBf16 stay as they are (kBf16 where it cannot run
// is refused when the network is built, not here).
InferencePrecision resolve_inference_precision(InferencePrecision precision);

class OnednnNetwork : public FoldedNetwork {
 public:
  // `precision` kAuto resolves here; kBf16 without onednn_bf16_supported() throws
  // std::runtime_error, as does any construction in a build without oneDNN, and kDirect
  // where those kernels cannot run.
  OnednnNetwork(const FoldedWeights& weights, InferencePrecision precision,
                ConvolutionKernels kernels = ConvolutionKernels::kAuto);
  ~OnednnNetwork();
  OnednnNetwork(const OnednnNetwork&) = delete;
  OnednnNetwork& operator=(const OnednnNetwork&) = delete;

  // FoldedNetwork's forward, on plain memory (a search's small batches would pay for
  // every LibTorch operator).
  void forward(const float* features, int64_t batch, int64_t length, int pits, float* policy,
               float* heads, FeatureLayout layout = FeatureLayout::kPlanesMajor) const override;
  int64_t head_outputs() const override;

  // kFp32, kBf16 or kInt8: what the convolutions run in.
  InferencePrecision precision() const override;
  // The kernel of a tower convolution on one thread: oneDNN's name for it, e.g.
  // "jit:avx512_core", or "direct:avx2" / "direct:avx512_bf16" / "direct:avx512_vnni" for
  // ours.
  std::string implementation() const override;
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
