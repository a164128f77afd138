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
// channels at a time as one i32 and broadcast; the weights [tap][in / 2][out][2] i16, so
// that one 16-byte load holds 4 outputs' pairs and one dot product adds both inputs'
// products into each output's i32 lane.
//
// Kernel 3 (the tower's convolutions) runs as Winograd's minimal filtering F(4,3): each
// tile of 4 output cells l0..l0+3 reads the 6 cells d[c] = centred[l0 - 1 + c] (0
// outside the ring) and is A^T [(G g) . (B^T d)] per output and input, with the points
// 0, +-1, +-2:
//   B^T d: U0 = 4d0 - 5d2 + d4          U1 = -4d1 - 4d2 + d3 + d4   U2 = 4d1 - 4d2 - d3 + d4
//          U3 = -2d1 - d2 + 2d3 + d4    U4 = 2d1 - d2 - 2d3 + d4    U5 = 4d1 - 5d3 + d5
//   G g:   (g0/4, -(g0+g1+g2)/6, -(g0-g1+g2)/6, (g0+2g1+4g2)/24, (g0-2g1+4g2)/24, g2)
//   A^T m: y0 = m0 + m1 + m2 + m3 + m4, y1 = m1 - m2 + 2(m3 - m4),
//          y2 = m1 + m2 + 4(m3 + m4),   y3 = m1 - m2 + 8(m3 - m4) + m5
// (y[l0 + r] = sum over k of d[r + k] g[k], tap k reading cell l + k - 1 as the direct
// path's). So 6 products per 4 outputs and input instead of 12: m_j = sum over inputs of
// U_j x (G g)_j is the direct kernel's inner loop with the 6 transformed taps in place
// of the 3 taps and tiles in place of cells, with no sum over the taps. The input
// transform is exact in i16: with d in [-z, 255 - z] each U_j is at most max(its
// positive, its negative coefficients' sum) x 255 in magnitude, 8 x 255 = 2,040. The
// transformed weights (G g in double) take the quantisation above, one scale per output
// over all 6 of them and its inputs, W from winograd_weight_limit (2,040 x inputs x W <
// 2^31: 32,767 up to 32 padded inputs), so each m_j is exact in i32. The output
// transform runs in fp32 on float(m_j), in the order written above, then x (s x weight
// scale) + bias: not the direct path's floats to the bit (the transformed weights round
// differently and A^T's sums round in fp32), but as close to fp32 (the tests hold both).
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

  // kWinograd (kernel 3 only; other kernels run kDirect) or the direct sums over the taps.
  enum class Method { kDirect, kWinograd };

  // `layer`: weight [out][in][kernel] (or [out][in], a kernel of 1) and bias [out], as
  // FoldedWeights holds them. Throws std::invalid_argument where they do not match or the
  // sums could overflow even with 8-bit weights (more than 66,000 inputs to an output;
  // 8,288 with Winograd).
  explicit PortableIntConvolution(const FoldedLayer& layer, Method method = Method::kWinograd);

  // Direct: y[l][o] = bias[o] + (s x weight_scale[o]) sum over taps k and inputs i of
  // centred[l + k - kernel / 2][i] x weight[k][i][o] for `length` cells of channels-last
  // `x` [length][in] (taps outside the ring skipped), `y` [length][out]; Winograd: the
  // same through the tiles above, y[l0 + r][o] = bias[o] + (s x weight_scale[o]) x
  // (A^T m)[r] with m_j = sum over inputs i of U_j[i] x weight[j][i][o]. kBlocked keeps
  // two cells (Winograd: two tiles) by 16 outputs in i32x4 accumulators (layers whose
  // outputs are a multiple of 16; the others as kScalar); kScalar is the plain loop over
  // the same quantised numbers: both give the same floats to the bit (the integer sums
  // are exact, then the same fp32 operations in the same order).
  void run(const float* x, int64_t length, float* y, PortableKernels kernels) const;

  // Quantises one position's `cells` x `in` channels-last floats `x` (see the top of the
  // file) into `out` with rows of `padded_in` >= `in` entries; what run() does first.
  static void quantise(const float* x, int64_t cells, int64_t in, int64_t padded_in,
                       Activations& out);

  // The largest weight magnitude for `inputs` (kernel x padded inputs) products a sum:
  // inputs x 255 x W must fit an i32 (2^31 - 1), capped at i16's 32767.
  static int32_t weight_limit(int64_t inputs);
  // With Winograd, for `padded_in` inputs to each transformed tap's sum: padded_in x
  // 2,040 x W must fit an i32, capped at 32767.
  static int32_t winograd_weight_limit(int64_t padded_in);

  // The largest |U_j| of the input transform (see the top of the file).
  static constexpr int32_t kWinogradInputBound = 8 * 255;
  // The transformed taps of a tile and the output cells it makes.
  static constexpr int64_t kWinogradTaps = 6, kWinogradTile = 4;

  int64_t in() const { return in_; }
  int64_t padded_in() const { return padded_in_; }
  int64_t out() const { return out_; }
  int64_t kernel() const { return kernel_; }
  bool winograd() const { return winograd_; }
  // The weights' taps: kernel(), or with Winograd its 6 transformed taps (G g).
  int64_t taps() const { return taps_; }
  // The quantised weight of output o, input i, tap k (< taps()), and its channel's scale.
  int16_t weight(int64_t o, int64_t i, int64_t k) const {
    return packed_[size_t(((k * (padded_in_ / 2) + i / 2) * out_ + o) * 2 + i % 2)];
  }
  float weight_scale(int64_t o) const { return weight_scale_[size_t(o)]; }
  const std::vector<float>& bias() const { return bias_; }

 private:
  void run_scalar(const Activations& a, int64_t length, const float* scale, float* y) const;
  void run_blocked(const Activations& a, int64_t length, const float* scale, float* y) const;
  void winograd_input(const Activations& a, int64_t length, std::vector<int16_t>& u) const;
  void run_winograd_scalar(const int16_t* u, int64_t length, const float* scale, float* y) const;
  void run_winograd_blocked(const int16_t* u, int64_t length, const float* scale, float* y) const;
  template <int kTiles>
  void winograd_tiles(const int16_t* u, int64_t t, int64_t o0, int64_t length, const float* scale,
                      float* y) const;

  int64_t in_ = 0, padded_in_ = 0, out_ = 0, kernel_ = 1, taps_ = 1;
  bool winograd_ = false;
  std::vector<int16_t> packed_;      // [taps][padded_in / 2][out][2]
  std::vector<float> weight_scale_;  // [out]
  std::vector<float> bias_;          // [out]
  std::vector<int16_t> zero_row_;    // [padded_in] zeros: the cells outside the ring
};

}  // namespace kz
