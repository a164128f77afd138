// The portable forward's integer path (nn/portable_int_convolution.h), in every build
// (natively on SSE2's pmaddwd, in the WebAssembly build on SIMD128's i16 dot product):
// Winograd's matrices make the direct correlation, each convolution (direct and
// Winograd) equals the exact integer sums of its own quantised numbers, the quantised
// numbers are within half a step of the floats, the sums cannot overflow at the widest
// inputs the weights' bits allow, zero and constant inputs come out exactly, Winograd
// stays as close to fp32 as the direct sums, and the whole network stays close to the
// fp32 forward on real positions of the shipped models (that its blocked kernels give the plain
// loops' floats is tests/infer_plain_model_test.cpp's, in both precisions).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <sstream>

#include "nn/features.h"
#include "nn/folded_network.h"
#include "nn/network_evaluator.h"
#include "nn/network_layout.h"
#include "nn/onednn_network.h"
#include "nn/plain_model.h"
#include "nn/portable_int_convolution.h"
#include "nn/portable_network.h"
#include "tests/random_positions.h"
#include "tests/test_util.h"
#include "tests/winograd_matrices.h"

namespace kz {
namespace {

FoldedLayer random_layer(int64_t out, int64_t in, int64_t kernel, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.f, 0.3f);
  FoldedLayer layer;
  layer.weight.shape = {out, in, kernel};
  for (int64_t i = 0; i < out * in * kernel; ++i) layer.weight.f32.push_back(normal(rng));
  layer.bias.shape = {out};
  for (int64_t o = 0; o < out; ++o) layer.bias.f32.push_back(normal(rng));
  return layer;
}

using test::kAt;
using test::kBt;
using test::kG;

// U [tile][j][in] = B^T d over each tile's six cells centred[4t - 1 + c] (0 outside).
std::vector<int64_t> winograd_input(const PortableIntConvolution::Activations& a, int64_t length,
                                    int64_t padded_in) {
  const int64_t tiles = (length + 3) / 4;
  std::vector<int64_t> u(size_t(tiles * 6 * padded_in), 0);
  for (int64_t t = 0; t < tiles; ++t)
    for (int64_t j = 0; j < 6; ++j)
      for (int64_t c = 0; c < 6; ++c) {
        const int64_t cell = 4 * t - 1 + c;
        if (cell < 0 || cell >= length) continue;
        for (int64_t i = 0; i < padded_in; ++i)
          u[size_t((t * 6 + j) * padded_in + i)] +=
              kBt[j][c] * int64_t(a.centred[size_t(cell * padded_in + i)]);
      }
  return u;
}

// y as the convolution must make it from its quantised numbers: the integer sums in 64
// bits, then the same fp32 steps (Winograd: A^T in the order the header gives; then sum x
// (activation scale x weight scale) + bias). `largest`, where given, gets the largest
// magnitude of a sum, which the kernels hold in an i32.
std::vector<float> reference(const PortableIntConvolution& conv, const float* x, int64_t length,
                             int64_t* largest = nullptr) {
  PortableIntConvolution::Activations a;
  PortableIntConvolution::quantise(x, length, conv.in(), conv.padded_in(), a);
  const int64_t half = conv.kernel() / 2, P = conv.padded_in();
  std::vector<float> y(size_t(length * conv.out()));
  int64_t most = 0;
  if (conv.winograd()) {
    const std::vector<int64_t> u = winograd_input(a, length, P);
    for (int64_t t = 0; t < (length + 3) / 4; ++t)
      for (int64_t o = 0; o < conv.out(); ++o) {
        float m[6];
        for (int64_t j = 0; j < 6; ++j) {
          int64_t sum = 0;
          for (int64_t i = 0; i < conv.in(); ++i)
            sum += u[size_t((t * 6 + j) * P + i)] * conv.weight(o, i, j);
          most = std::max(most, std::abs(sum));
          m[j] = float(sum);
        }
        const float s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
        const float r[4] = {m[0] + s12 + s34, d12 + d34 * 2.f, s12 + s34 * 4.f,
                            d12 + d34 * 8.f + m[5]};
        const float scale = a.scale * conv.weight_scale(o);
        for (int64_t k = 0; k < 4 && 4 * t + k < length; ++k)
          y[size_t((4 * t + k) * conv.out() + o)] = r[k] * scale + conv.bias()[size_t(o)];
      }
  } else {
    for (int64_t l = 0; l < length; ++l)
      for (int64_t o = 0; o < conv.out(); ++o) {
        int64_t sum = 0;
        for (int64_t k = 0; k < conv.kernel(); ++k) {
          const int64_t src = l + k - half;
          if (src < 0 || src >= length) continue;
          for (int64_t i = 0; i < conv.in(); ++i)
            sum += int64_t(a.centred[size_t(src * P + i)]) * conv.weight(o, i, k);
        }
        most = std::max(most, std::abs(sum));
        const float scale = a.scale * conv.weight_scale(o);
        y[size_t(l * conv.out() + o)] = float(sum) * scale + conv.bias()[size_t(o)];
      }
  }
  if (largest) *largest = most;
  return y;
}

// The fp32 layer's convolution in double, taps outside the ring skipped.
std::vector<double> exact_convolution(const FoldedLayer& layer, const float* x, int64_t length) {
  const int64_t out = layer.weight.size(0), in = layer.weight.size(1), kernel = 3;
  std::vector<double> y(size_t(length * out));
  for (int64_t l = 0; l < length; ++l)
    for (int64_t o = 0; o < out; ++o) {
      double sum = layer.bias.f32[size_t(o)];
      for (int64_t k = 0; k < kernel; ++k)
        if (l + k - 1 >= 0 && l + k - 1 < length)
          for (int64_t i = 0; i < in; ++i)
            sum += double(x[(l + k - 1) * in + i]) *
                   layer.weight.f32[size_t((o * in + i) * kernel + k)];
      y[size_t(l * out + o)] = sum;
    }
  return y;
}

using Method = PortableIntConvolution::Method;

const char* name(Method method) {
  return method == Method::kWinograd ? "winograd" : "direct";
}

struct Shape {
  int64_t out, in, kernel, length;
};

TEST(PortableInt, WinogradsMatricesMakeTheDirectCorrelation) {
  // A^T [(G g) . (B^T d)] = the correlation y[r] = sum over k of d[r + k] g[k], in exact
  // rationals over 24: G g x 24 is an integer combination for integer g.
  std::mt19937 rng(10);
  std::uniform_int_distribution<int> value(-255, 255);
  const int64_t g24[6][3] = {{6, 0, 0}, {-4, -4, -4}, {-4, 4, -4},
                             {1, 2, 4}, {1, -2, 4},   {0, 0, 24}};
  for (int j = 0; j < 6; ++j)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(double(g24[j][k]), kG[j][k] * 24) << j << k;
  for (int trial = 0; trial < 1000; ++trial) {
    int64_t d[6], g[3];
    for (int64_t& v : d) v = value(rng);
    for (int64_t& v : g) v = value(rng);
    for (int r = 0; r < 4; ++r) {
      int64_t winograd = 0;
      for (int j = 0; j < 6; ++j) {
        int64_t u = 0, w = 0;
        for (int c = 0; c < 6; ++c) u += kBt[j][c] * d[c];
        for (int k = 0; k < 3; ++k) w += g24[j][k] * g[k];
        winograd += kAt[r][j] * u * w;
      }
      const int64_t direct = d[r] * g[0] + d[r + 1] * g[1] + d[r + 2] * g[2];
      ASSERT_EQ(winograd, 24 * direct) << trial << " " << r;
    }
  }
  // Each U_j's bound (the header): the larger of its positive and negative coefficients'
  // sums, x 255.
  int bound = 0;
  for (const auto& row : kBt) {
    int positive = 0, negative = 0;
    for (const int c : row) (c > 0 ? positive : negative) += std::abs(c);
    bound = std::max({bound, positive, negative});
  }
  EXPECT_EQ(bound * 255, PortableIntConvolution::kWinogradInputBound);
}

TEST(PortableInt, EachConvolutionIsTheExactSumOfItsQuantisedNumbers) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 1.f);
  // The shipped tower (32 x 3 x 32 on Togyz's 18 cells, 5 tiles, Kalah's 14, 4 tiles),
  // its input layer (28 features), an odd input width, odd rings and tile counts (9: 3
  // tiles; 5; 1 and 4: one tile), outputs not a multiple of the block (the plain loop),
  // kernels of 1 and 5 (direct either way).
  for (const Shape s :
       {Shape{32, 32, 3, 18}, Shape{32, 32, 3, 14}, Shape{32, 28, 3, 14}, Shape{16, 5, 3, 18},
        Shape{48, 33, 3, 9}, Shape{32, 32, 3, 5}, Shape{16, 8, 3, 4}, Shape{16, 8, 3, 1},
        Shape{24, 16, 3, 18}, Shape{16, 7, 1, 5}, Shape{16, 6, 5, 18}}) {
    const FoldedLayer layer = random_layer(s.out, s.in, s.kernel, rng);
    std::vector<float> x(size_t(s.length * s.in));
    for (float& v : x) v = normal(rng);
    for (const Method method : {Method::kDirect, Method::kWinograd}) {
      const PortableIntConvolution conv(layer, method);
      EXPECT_EQ(conv.winograd(), method == Method::kWinograd && s.kernel == 3);
      EXPECT_EQ(conv.taps(), conv.winograd() ? 6 : s.kernel);
      const std::vector<float> want = reference(conv, x.data(), s.length);
      for (const PortableKernels kernels : {PortableKernels::kBlocked, PortableKernels::kScalar}) {
        std::vector<float> y(want.size());
        conv.run(x.data(), s.length, y.data(), kernels);
        EXPECT_EQ(y, want) << s.out << " x " << s.in << " x " << s.kernel << " on " << s.length
                           << (kernels == PortableKernels::kBlocked ? " blocked " : " scalar ")
                           << name(method);
      }
    }
  }
}

TEST(PortableInt, TheQuantisedNumbersAreWithinHalfAStepOfTheFloats) {
  std::mt19937 rng(12);
  std::normal_distribution<float> normal(0.5f, 1.f);
  const FoldedLayer layer = random_layer(32, 28, 3, rng);
  const PortableIntConvolution conv(layer, Method::kDirect);
  const int32_t limit = PortableIntConvolution::weight_limit(3 * 28);
  EXPECT_EQ(limit, 32767);
  for (int64_t o = 0; o < 32; ++o) {
    const float step = conv.weight_scale(o);
    int32_t largest = 0;
    for (int64_t i = 0; i < 28; ++i)
      for (int64_t k = 0; k < 3; ++k) {
        const float w = layer.weight.f32[size_t((o * 28 + i) * 3 + k)];
        EXPECT_LE(std::abs(w - float(conv.weight(o, i, k)) * step), 0.5001f * step);
        largest = std::max(largest, std::abs(int32_t(conv.weight(o, i, k))));
      }
    EXPECT_EQ(largest, limit) << o;  // each channel's largest weight takes all the bits
  }
  // Winograd's transformed taps G g (in double), the same way.
  const PortableIntConvolution winograd(layer);
  ASSERT_TRUE(winograd.winograd());
  EXPECT_EQ(PortableIntConvolution::winograd_weight_limit(28), 32767);
  for (int64_t o = 0; o < 32; ++o) {
    const double step = winograd.weight_scale(o);
    int32_t largest = 0;
    for (int64_t i = 0; i < 28; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        double t = 0;
        for (int64_t k = 0; k < 3; ++k)
          t += kG[j][k] * layer.weight.f32[size_t((o * 28 + i) * 3 + k)];
        EXPECT_LE(std::abs(t - winograd.weight(o, i, j) * step), 0.5001 * step) << o << " " << i;
        largest = std::max(largest, std::abs(int32_t(winograd.weight(o, i, j))));
      }
    EXPECT_EQ(largest, 32767) << o;
  }
  std::vector<float> x(18 * 28);
  for (float& v : x) v = normal(rng);
  PortableIntConvolution::Activations a;
  PortableIntConvolution::quantise(x.data(), 18, 28, 28, a);
  const float low = std::min(0.f, *std::min_element(x.begin(), x.end()));
  const float high = std::max(0.f, *std::max_element(x.begin(), x.end()));
  EXPECT_NEAR(a.scale, (high - low) / 255, 1e-7);
  EXPECT_GT(a.zero, 0);
  EXPECT_LT(a.zero, 255);
  for (size_t i = 0; i < x.size(); ++i) {
    const int q = a.centred[i] + a.zero;
    EXPECT_GE(q, 0);
    EXPECT_LE(q, 255);
    EXPECT_LE(std::abs(x[i] - float(a.centred[i]) * a.scale), 0.5001f * a.scale + 1e-6f) << i;
  }
  // An odd width: each row padded with a 0.
  PortableIntConvolution::quantise(x.data(), 18, 27, 28, a);
  for (int64_t c = 0; c < 18; ++c) EXPECT_EQ(a.centred[size_t(c * 28 + 27)], 0);
}

TEST(PortableInt, TheSumsCannotOverflowAtTheWidestInputsTheWeightsBitsAllow) {
  for (const int64_t inputs : {int64_t(96), int64_t(257), int64_t(3072), int64_t(60000)}) {
    const int64_t limit = PortableIntConvolution::weight_limit(inputs);
    EXPECT_LE(255 * inputs * limit, (int64_t(1) << 31) - 1) << inputs;
    if (limit < 32767) {
      EXPECT_GT(255 * inputs * (limit + 1), (int64_t(1) << 31) - 1) << inputs;
    }
  }
  const int64_t bound = PortableIntConvolution::kWinogradInputBound;
  EXPECT_EQ(PortableIntConvolution::winograd_weight_limit(32), 32767);
  for (const int64_t inputs : {int64_t(32), int64_t(34), int64_t(1024), int64_t(8000)}) {
    const int64_t limit = PortableIntConvolution::winograd_weight_limit(inputs);
    EXPECT_LE(bound * inputs * limit, (int64_t(1) << 31) - 1) << inputs;
    if (limit < 32767) {
      EXPECT_GT(bound * inputs * (limit + 1), (int64_t(1) << 31) - 1) << inputs;
    }
  }
  // The worst case: every weight at +-limit, every activation at the top of its range
  // (q - z = 255), 1024 inputs x 3 taps: the sum is 255 x 3072 x limit, 2.1e9.
  const int64_t in = 1024, out = 16, length = 4;
  for (const float sign : {1.f, -1.f}) {
    FoldedLayer layer;
    layer.weight.shape = {out, in, 3};
    layer.weight.f32.assign(size_t(out * in * 3), sign);
    layer.bias.shape = {out};
    layer.bias.f32.assign(size_t(out), 0.f);
    const PortableIntConvolution conv(layer, Method::kDirect);
    const int64_t limit = PortableIntConvolution::weight_limit(3 * in);
    ASSERT_LT(limit, 32767);
    const std::vector<float> x(size_t(length * in), 2.f);
    std::vector<float> y(size_t(length * out));
    for (const PortableKernels kernels : {PortableKernels::kBlocked, PortableKernels::kScalar}) {
      conv.run(x.data(), length, y.data(), kernels);
      // The middle cells read all three taps: sum = 255 x 3 x 1024 x limit exactly, and
      // x (2 / 255) x (1 / limit) gives back 3 x 1024 x 2.
      for (int64_t o = 0; o < out; ++o) EXPECT_NEAR(y[size_t(out + o)], sign * 6144, 6144e-6);
      EXPECT_EQ(y, reference(conv, x.data(), length));
    }
  }
  // Winograd's worst case: U1 = -4 d1 - 4 d2 + d3 + d4 at -2,040 (d1 = d2 = 255, d3 = d4 =
  // 0: cells 4t and 4t + 1 at the top of the range, 4t + 2 and 4t + 3 at 0, the zero
  // point at 0), or +2,040 with the signs turned (the zero point at 255), against the
  // centre tap alone, whose G g = (0, -1/6, 1/6, 1/12, -1/12, 0) g1 puts U1's weight at
  // -+limit: m1 = 2,040 x 1024 x limit, 2,147,450,880 of the i32's 2,147,483,647.
  const int64_t wide = 20;
  for (const float sign : {1.f, -1.f})
    for (const float top : {3.f, -3.f}) {
      FoldedLayer layer;
      layer.weight.shape = {out, in, 3};
      layer.weight.f32.assign(size_t(out * in * 3), 0.f);
      for (int64_t w = 0; w < out * in; ++w) layer.weight.f32[size_t(w * 3 + 1)] = sign;
      layer.bias.shape = {out};
      layer.bias.f32.assign(size_t(out), 0.f);
      const PortableIntConvolution conv(layer);
      ASSERT_TRUE(conv.winograd());
      const int64_t limit = PortableIntConvolution::winograd_weight_limit(in);
      EXPECT_EQ(limit, 1028);
      std::vector<float> x(size_t(wide * in), 0.f);
      for (int64_t l = 0; l < wide; ++l)
        if (l % 4 < 2) std::fill(x.begin() + l * in, x.begin() + (l + 1) * in, top);
      int64_t largest = 0;
      const std::vector<float> want = reference(conv, x.data(), wide, &largest);
      EXPECT_EQ(largest, bound * in * limit);
      std::vector<float> y(want.size());
      for (const PortableKernels kernels : {PortableKernels::kBlocked, PortableKernels::kScalar}) {
        conv.run(x.data(), wide, y.data(), kernels);
        EXPECT_EQ(y, want) << sign << " " << top;
        // The centre tap alone: y[l] = 1024 x sign x x[l].
        for (int64_t l = 0; l < wide; ++l)
          for (int64_t o = 0; o < out; ++o)
            EXPECT_NEAR(y[size_t(l * out + o)], sign * 1024 * x[size_t(l * in)], 1e-2)
                << l << " " << o;
      }
    }
}

TEST(PortableInt, ZeroAndConstantInputsComeOutExactly) {
  std::mt19937 rng(13);
  const FoldedLayer layer = random_layer(32, 32, 3, rng);
  for (const int64_t L : {int64_t(18), int64_t(14)})
    for (const Method method : {Method::kDirect, Method::kWinograd}) {
      const PortableIntConvolution conv(layer, method);
      std::vector<float> y(size_t(L * 32));
      const std::vector<float> zeros(size_t(L * 32), 0.f);
      for (const PortableKernels kernels : {PortableKernels::kBlocked, PortableKernels::kScalar}) {
        conv.run(zeros.data(), L, y.data(), kernels);
        for (int64_t l = 0; l < L; ++l)
          for (int64_t o = 0; o < 32; ++o)
            EXPECT_EQ(y[size_t(l * 32 + o)], layer.bias.f32[size_t(o)]) << name(method);
      }
      // A constant c quantises to the top of the range, exactly c: the output is the fp32
      // convolution's but for the weights' rounding: direct, half a step of 1/32767 of the
      // largest weight per product; Winograd, half a step per transformed product, each
      // carried by its U_j and A^T's coefficient (the bound below, from the tile's own U).
      for (const float c : {0.37f, -2.5f}) {
        const std::vector<float> x(size_t(L * 32), c);
        PortableIntConvolution::Activations a;
        PortableIntConvolution::quantise(x.data(), L, 32, 32, a);
        for (const int16_t q : a.centred) EXPECT_EQ(q, c > 0 ? 255 : -255);
        const std::vector<int64_t> u = winograd_input(a, L, 32);
        conv.run(x.data(), L, y.data(), PortableKernels::kBlocked);
        const std::vector<double> want = exact_convolution(layer, x.data(), L);
        for (int64_t l = 0; l < L; ++l)
          for (int64_t o = 0; o < 32; ++o) {
            double bound = 1e-3;  // the direct path's, as before; fp32's own rounding in it
            if (conv.winograd()) {
              double carried = 0;
              for (int64_t j = 0; j < 6; ++j)
                for (int64_t i = 0; i < 32; ++i)
                  carried += std::abs(kAt[l % 4][j] * u[size_t(((l / 4) * 6 + j) * 32 + i)]);
              bound += 0.5 * conv.weight_scale(o) * a.scale * carried;
            }
            EXPECT_NEAR(y[size_t(l * 32 + o)], want[size_t(l * 32 + o)], bound)
                << c << " " << l << " " << o << " " << name(method);
          }
      }
    }
}

// Per convolution, on random activations of the shipped tower's shape (32 x 3 x 32, after
// a ReLU): Winograd's error against the fp32 convolution (in double) is the direct
// integer path's, within a tenth of the u8 activations' step that both share (measured,
// natively and in WebAssembly, whose random numbers differ: worst 0.038-0.043 either
// way, the means within 0.3 %, the step 0.016-0.017); the two differ only by the
// weights' rounding, which A^T's coefficients carry further in Winograd (measured: 0.23
// to 0.26 of the step at worst).
TEST(PortableInt, WinogradStaysAsCloseToFp32AsTheDirectSums) {
  std::mt19937 rng(14);
  std::normal_distribution<float> normal(0.3f, 1.f);
  for (const int64_t L : {int64_t(18), int64_t(14)}) {
    const FoldedLayer layer = random_layer(32, 32, 3, rng);
    const PortableIntConvolution direct(layer, Method::kDirect), winograd(layer);
    double direct_worst = 0, winograd_worst = 0, between = 0, direct_mean = 0, winograd_mean = 0,
           step = 0;
    const int trials = 50;
    for (int trial = 0; trial < trials; ++trial) {
      std::vector<float> x(size_t(L * 32));
      for (float& v : x) v = std::max(0.f, normal(rng));  // after a ReLU, as in the tower
      const std::vector<double> want = exact_convolution(layer, x.data(), L);
      std::vector<float> a(want.size()), b(want.size());
      direct.run(x.data(), L, a.data(), PortableKernels::kScalar);
      winograd.run(x.data(), L, b.data(), PortableKernels::kBlocked);
      PortableIntConvolution::Activations q;
      PortableIntConvolution::quantise(x.data(), L, 32, 32, q);
      step = std::max(step, double(q.scale));
      for (size_t i = 0; i < want.size(); ++i) {
        direct_worst = std::max(direct_worst, std::abs(a[i] - want[i]));
        winograd_worst = std::max(winograd_worst, std::abs(b[i] - want[i]));
        between = std::max(between, double(std::abs(a[i] - b[i])));
        direct_mean += std::abs(a[i] - want[i]) / double(want.size() * trials);
        winograd_mean += std::abs(b[i] - want[i]) / double(want.size() * trials);
      }
    }
    std::ostringstream what;
    what << L << " cells: against fp32, direct worst " << direct_worst << " (mean " << direct_mean
         << "), winograd worst " << winograd_worst << " (mean " << winograd_mean
         << "); between them " << between << "; the activations' step " << step;
    EXPECT_LT(winograd_worst, direct_worst + 0.1 * step) << what.str();
    EXPECT_LT(winograd_mean, direct_mean * 1.1) << what.str();
    EXPECT_LT(between, 0.5 * step) << what.str();
    std::cout << what.str() << "\n";
  }
}

// The tolerances: the native int8 kernels (nn/direct_convolution_int8.cpp: s8 weights,
// the input convolution quantised too; +5 Elo [-8, +17] against fp32 at equal visits,
// docs/performance.md) differ from fp32 on these 300 positions by up to 0.027 in a
// move's probability, 0.070 in win - loss and 1.75 in the margin (togyz.pt; kalah.pt
// less); this path (i16 weights, the input convolution in fp32) by up to 0.016, 0.041
// and 0.56, on average 0.0012 and 0.0057 with the direct sums, 0.016, 0.033 and 0.47,
// on average 0.0012 and 0.0055 with Winograd (measured, printed below). Bounds of about
// 2x this path's worst and mean, under the native's: a kernel that misplaced a weight, a
// pair or a zero point errs by tenths on most positions.
TEST(PortableInt, TheIntegerForwardStaysCloseToFp32OnRealPositions) {
  for (const char* file : {"togyz.pt", "kalah.pt"}) {
    const PlainModel m = load_plain_model(test::source_dir() + "/models/" + file);
    const GameSpec spec = GameSpec::parse(m.meta.game);
    const FoldedWeights folded = fold_network_weights(m.tensors, m.meta.network);
    NetworkEvaluator fp32(std::make_shared<const PortableNetwork>(folded), "fp32");
    NetworkEvaluator int8(std::make_shared<const PortableNetwork>(folded, PortableKernels::kBlocked,
                                                                  InferencePrecision::kInt8),
                          "int8");
    const int n = 300;
    const std::vector<Position> positions = test::undecided_random_positions(spec, n, 7, 60);
    std::vector<EvalOutput> a(positions.size()), b(positions.size());
    fp32.evaluate(positions, a);
    int8.evaluate(positions, b);
    double worst_policy = 0, worst_value = 0, worst_margin = 0, mean_policy = 0, mean_value = 0;
    int same_best = 0;
    for (size_t i = 0; i < positions.size(); ++i) {
      for (int k = 0; k < spec.pits; ++k) {
        const double d = std::abs(a[i].policy[size_t(k)] - b[i].policy[size_t(k)]);
        worst_policy = std::max(worst_policy, d);
        mean_policy += d / (n * spec.pits);
      }
      const double value = std::abs((a[i].win - a[i].loss) - (b[i].win - b[i].loss));
      worst_value = std::max(worst_value, value);
      mean_value += value / n;
      worst_margin = std::max(worst_margin, double(std::abs(a[i].margin - b[i].margin)));
      const auto best = [](const EvalOutput& e) {
        return std::max_element(e.policy.begin(), e.policy.end()) - e.policy.begin();
      };
      same_best += best(a[i]) == best(b[i]);
    }
    std::ostringstream what;
    what << file << ": worst policy " << worst_policy << " (mean " << mean_policy << "), value "
         << worst_value << " (mean " << mean_value << "), margin " << worst_margin
         << ", same best move " << same_best << " / " << n;
    EXPECT_LT(worst_policy, 0.03) << what.str();
    EXPECT_LT(worst_value, 0.08) << what.str();
    EXPECT_LT(worst_margin, 1.2) << what.str();
    EXPECT_LT(mean_policy, 0.0025) << what.str();
    EXPECT_LT(mean_value, 0.012) << what.str();
    EXPECT_GE(same_best, n - 6) << what.str();
    std::cout << what.str() << "\n";
  }
}

TEST(PortableInt, Int8IsAskedOfThePortableForwardByNameAndBf16IsRefused) {
  const PlainModel m = load_plain_model(test::source_dir() + "/models/togyz.pt");
  const FoldedWeights folded = fold_network_weights(m.tensors, m.meta.network);
  const auto net =
      make_folded_network(folded, InferencePrecision::kInt8, ConvolutionKernels::kPortable);
  EXPECT_EQ(net->precision(), InferencePrecision::kInt8);
  EXPECT_EQ(net->implementation(), "portable");
  EXPECT_EQ(make_folded_network(folded, InferencePrecision::kAuto, ConvolutionKernels::kPortable)
                ->precision(),
            portable_auto_precision());
  EXPECT_THROW(
      make_folded_network(folded, InferencePrecision::kBf16, ConvolutionKernels::kPortable),
      std::runtime_error);
  EXPECT_THROW(PortableNetwork(folded, PortableKernels::kBlocked, InferencePrecision::kBf16),
               std::invalid_argument);
#if defined(__EMSCRIPTEN__)
  // The WebAssembly engine's default (measured: docs/browser.md, "The integer forward").
  EXPECT_EQ(portable_auto_precision(), InferencePrecision::kInt8);
  EXPECT_EQ(resolve_inference_precision(InferencePrecision::kAuto), InferencePrecision::kInt8);
  EXPECT_EQ(make_folded_network(folded, InferencePrecision::kAuto, ConvolutionKernels::kAuto)
                ->precision(),
            InferencePrecision::kInt8);
#else
  EXPECT_EQ(portable_auto_precision(), InferencePrecision::kFp32);
#endif
  if (!onednn_compiled()) {  // the WebAssembly build: kInt8 is the portable integer path
    const auto wasm =
        make_folded_network(folded, InferencePrecision::kInt8, ConvolutionKernels::kAuto);
    EXPECT_EQ(wasm->implementation(), "portable");
    EXPECT_EQ(wasm->precision(), InferencePrecision::kInt8);
  }
}

}  // namespace
}  // namespace kz
