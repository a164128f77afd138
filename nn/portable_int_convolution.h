// The portable forward's integer convolution (nn/portable_network.h with
// InferencePrecision::kInt8): the quantisation of the native int8 kernels
// (nn/direct_convolution_int8.cpp) on WebAssembly's SIMD128, whose i32x4.dot_i16x8_s
// (V8: pmaddwd) makes 8 multiply-adds per instruction where fp32 makes 4 in a multiply
// and an add.
//
// Quantisation. Weights: per output channel, scale max|w| / W and rounded to i16 once, W
// the largest magnitude whose sums cannot overflow (weight_limit() below: 32767 for the
// shipped networks' 3 x 32 inputs). Activations: per position (all its cells and
// channels, with the zeros outside the ring), asymmetric u8: scale s = (max - min) / 255
// with min <= 0 <= max, zero point z = round(-min / s), q = clamp(round(x / s) + z, 0,
// 255), so x ~ (q - z) s. The zero point is subtracted as q is widened to i16 (the
// widening is needed anyway), so the integer sum is sum (q - z) w, exact in i32, with no
// zero-point term per output, and a cell outside the ring is exactly 0: its taps are
// skipped as the fp32 loops skip them. out = float(sum) x (s x weight scale) + bias in
// fp32, then the fp32 forward's own epilogues (ReLU, residual add, pooling).
//
// Layout: the centred activations as [cell][in, padded to even] i16, read two input
// channels at a time as one i32 and broadcast; the weights [kernel][in / 2][out][2] i16,
// so that one 16-byte load holds 4 outputs' pairs and one dot product adds both inputs'
// products into each output's i32 lane.
#pragma once

#include <cstdint>
#include <vector>

#include "nn/folded_network.h"
#include "nn/portable_network.h"

namespace kz {

class PortableIntConvolution {
 public:
  // One position's quantised activations: `centred` [cells][padded_in] (q - z, in
  // [-255, 255]; a padding channel's entries 0), `scale` s and `zero` z as above.
  struct Activations {
    float scale = 1;
    int32_t zero = 0;
    std::vector<int16_t> centred;
  };

  // `layer`: weight [out][in][kernel] (or [out][in], a kernel of 1) and bias [out], as
  // FoldedWeights holds them. Throws std::invalid_argument where they do not match or the
  // sums could overflow even with 8-bit weights (more than 66,000 inputs to an output).
  explicit PortableIntConvolution(const FoldedLayer& layer);

  // y[l][o] = bias[o] + (s x weight_scale[o]) sum over taps k and inputs i of
  // centred[l + k - kernel / 2][i] x weight[k][i][o] for `length` cells of channels-last
  // `x` [length][in] (taps outside the ring skipped), `y` [length][out]. kBlocked keeps
  // two cells by 16 outputs in i32x4 accumulators (layers whose outputs are a multiple of
  // 16; the others as kScalar); kScalar is the plain loop over the same quantised numbers:
  // both give the same floats to the bit (the integer sums are exact, then the same fp32
  // operations in the same order).
  void run(const float* x, int64_t length, float* y, PortableKernels kernels) const;

  // Quantises one position's `cells` x `in` channels-last floats `x` (see the top of the
  // file) into `out` with rows of `padded_in` >= `in` entries; what run() does first.
  static void quantise(const float* x, int64_t cells, int64_t in, int64_t padded_in,
                       Activations& out);

  // The largest weight magnitude for `inputs` (kernel x padded inputs) products a sum:
  // inputs x 255 x W must fit an i32 (2^31 - 1), capped at i16's 32767.
  static int32_t weight_limit(int64_t inputs);

  int64_t in() const { return in_; }
  int64_t padded_in() const { return padded_in_; }
  int64_t out() const { return out_; }
  int64_t kernel() const { return kernel_; }
  // The quantised weight of output o, input i, tap k, and its channel's scale.
  int16_t weight(int64_t o, int64_t i, int64_t k) const {
    return packed_[size_t(((k * (padded_in_ / 2) + i / 2) * out_ + o) * 2 + i % 2)];
  }
  float weight_scale(int64_t o) const { return weight_scale_[size_t(o)]; }
  const std::vector<float>& bias() const { return bias_; }

 private:
  void run_scalar(const Activations& a, int64_t length, const float* scale, float* y) const;
  void run_blocked(const Activations& a, int64_t length, const float* scale, float* y) const;

  int64_t in_ = 0, padded_in_ = 0, out_ = 0, kernel_ = 1;
  std::vector<int16_t> packed_;      // [kernel][padded_in / 2][out][2]
  std::vector<float> weight_scale_;  // [out]
  std::vector<float> bias_;          // [out]
  std::vector<int16_t> zero_row_;    // [padded_in] zeros: run_blocked's cells outside the ring
};

}  // namespace kz
