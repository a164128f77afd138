// A 1-D convolution of our own for fp32 on CPUs with AVX2 and FMA, where it runs the
// shipped network's convolutions faster than oneDNN does (oneDNN 2.6's `jit:avx2`
// reaches about 0.60 of one core's fp32 peak on the tower's shape, 64 positions of 18
// cells, 32 -> 32 channels, kernel 3; this kernel about 0.84: docs/performance.md,
// "The convolutions of our own"). On CPUs with AVX-512 oneDNN's `brgconv` is as fast
// (0.65-0.75 of a peak twice as high) and this kernel, written for AVX2 registers, is
// not used there.
//
// Activations are "padded channels last": a position of L cells is L + 2 rows of
// `stride` floats, row 0 and row L + 1 zero (the convolution's zero padding) and cell l
// in row l + 1. Output cell l of a kernel-3 convolution then reads the 3 * stride
// contiguous floats from row l, and the whole convolution is a matrix product whose
// rows overlap: [L, 3 * stride] x [3 * stride, out] per position, with no copy into
// columns. The product runs in tiles of 6 cells x 16 output channels: 12 AVX2
// accumulators, two weight vectors and a broadcast, every weight loaded once for six
// cells and two fused multiply-adds per load of an input.
//
// bf16 (CPUs with avx512_bf16): the same product on 512-bit registers with vdpbf16ps,
// which multiplies pairs of bf16 numbers and adds both products to an fp32 accumulator.
// Weights are rounded to bf16 once, the input of each call as it is read (the
// activations between layers stay fp32, so the residual stream, the pooling and the
// heads are as exact as in fp32); tiles of up to 12 cells x 32 output channels, 24
// accumulators. It replaces oneDNN's bf16 primitives on one thread, whose dispatch around
// each of a chunk's dozen calls cost a tenth of the forward (docs/performance.md).
#pragma once

#include <cstdint>
#include <vector>

#include "nn/plain_tensor.h"

namespace kz {

// Whether this CPU runs the kernel (AVX2 and FMA), decided once.
bool direct_convolution_supported();
// Whether it runs the bf16 kernel (AVX-512 F, BW, VL and BF16), decided once.
bool direct_bf16_supported();
// Whether it runs the int8 kernel (AVX-512 F, BW, VL and VNNI), decided once.
bool direct_int8_supported();

class DirectConvolution {
 public:
  // What follows the convolution and its bias: a ReLU, or the residual add (the
  // destination's old value) and then a ReLU.
  enum class Then { kRelu, kAddRelu };
  // The multiply-adds' arithmetic: fp32 (AVX2 and FMA), bf16 products summed in fp32
  // (avx512_bf16; `in_stride` even), or int8 (AVX-512 VNNI; `in_stride` a multiple of
  // 4): each position's input quantised to u8 with its own scale and zero point, the
  // weights to s8 per output channel, integer sums (nn/direct_convolution_int8.cpp).
  enum class Arithmetic { kFp32, kBf16, kInt8 };

  DirectConvolution() = default;
  // `weight` [out][in][kernel] and `bias` [out], fp32 on the CPU, folded; kernel 1 or 3,
  // `out` a multiple of 16; the input's rows are `in_stride` >= in floats apart (the
  // floats past `in` are never read as anything but zero weights).
  DirectConvolution(const PlainTensor& weight, const PlainTensor& bias, int64_t in_stride,
                    Arithmetic arithmetic = Arithmetic::kFp32);

  // The convolution of `n` positions of `length` cells from `in` (padded channels last,
  // in_stride floats a row, (length + 2) * in_stride floats a position) into `out`: cell
  // l of position i at out + i * out_position_stride + l * out() (so a padded
  // destination passes its row 1 and (length + 2) * out()). `Then` as above. Where
  // `sums` is given ([n][out()]), the results of each position's cells are added to it
  // (a global pooling's sum, made while the results are in registers).
  void run(const float* in, int64_t n, int64_t length, float* out, int64_t out_position_stride,
           Then then, float* sums = nullptr) const;

  int64_t out() const { return out_; }
  int64_t in_stride() const { return in_stride_; }
  Arithmetic arithmetic() const { return arithmetic_; }

 private:
  // run() in bf16 (nn/direct_convolution_bf16.cpp).
  void run_bf16(const float* in, int64_t n, int64_t length, float* out, int64_t out_position_stride,
                Then then, float* sums) const;
  // packed_bf16_ from the weights, [out][in][kernel] fp32.
  void pack_bf16(const float* weight, int64_t in);
  // run() and the packing in int8 (nn/direct_convolution_int8.cpp).
  void run_int8(const float* in, int64_t n, int64_t length, float* out, int64_t out_position_stride,
                Then then, float* sums) const;
  void pack_int8(const float* weight, int64_t in);

  int64_t out_ = 0, in_stride_ = 0, kernel_ = 0;
  Arithmetic arithmetic_ = Arithmetic::kFp32;
  // bf16: panels of 32 output channels (the last of 16 where out is not a multiple of
  // 32), each [kernel * in_stride / 2][width][2]: for every pair of consecutive inputs,
  // each output's two weights side by side, as vdpbf16ps pairs them.
  std::vector<uint16_t> packed_bf16_;
  // int8: panels as bf16's, each [kernel * in_stride / 4][width][4]; per output channel
  // its weights' scale and the sum of its s8 weights (the zero point's correction).
  std::vector<int8_t> packed_int8_;
  std::vector<float> weight_scale_;
  std::vector<int32_t> weight_sum_;
  // [out / 16][kernel * in_stride][16]: a panel of 16 output channels, its rows in the
  // order the tile reads its input (tap by tap, channel by channel).
  std::vector<float> packed_;
  std::vector<float> bias_;
};

// The work between the convolutions on the same activations, on AVX2 registers (the
// generic 16-float loops of nn/onednn_network.cpp spilled to the stack in their AVX2
// build and cost a fifth of the forward). Widths: multiples of 8.

// A block's global pooling bias on padded channels-last `y` (n positions of `length`
// cells, `channels` floats a row): y[i][l] += fc_b + fc_wt^T (sums[i] / length), fc_wt
// [channels][channels] (the fully connected layer's weights transposed: [in][out]).
void direct_pooling_bias(float* y, int64_t n, int64_t length, int64_t channels, const float* sums,
                         const float* fc_wt, const float* fc_b);

// The heads after their shared first convolution, as heads_after_conv in
// nn/onednn_network.cpp: `hh` [n][length][stride], each cell the policy's channels then
// the value's. policy[i][p] = policy_b + policy_w . hh[i][p][0..P) for the `pits` cells
// of the mover; the value's channels mean- and max-pooled over the cells, value_fc with
// ReLU, then `head` (the W/D/L, margin and score layers stacked) into heads[i].
struct DirectHeadWeights {
  const float *policy_w, *policy_b;  // [P], [1]
  int64_t policy_channels, value_channels;
  const float *value_fc_wt, *value_fc_b;  // [2V][hidden] (transposed), [hidden]
  int64_t hidden;
  const float *head_w, *head_b;  // [outs][hidden], [outs]
  int64_t head_outs;
};
void direct_heads(const float* hh, int64_t n, int64_t length, int64_t stride, int64_t pits,
                  const DirectHeadWeights& w, float* policy, float* heads);

}  // namespace kz
