// The convolutions of our own (nn/direct_convolution.h) against torch::conv1d, in fp32
// and bf16: kernels 1 and 3, ring lengths that fill the tiles and ones that leave
// tails, input rows wider than the channels, the residual add, and the pooling sums.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "nn/direct_convolution.h"
#include "nn_test_util.h"

namespace kz {
namespace {

// x [n, C, L] as padded channels-last rows of `stride` floats (zeros elsewhere).
std::vector<float> padded(const torch::Tensor& x, int64_t stride) {
  const int64_t n = x.size(0), C = x.size(1), L = x.size(2);
  std::vector<float> out(size_t(n * (L + 2) * stride), 0.f);
  const auto a = x.accessor<float, 3>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t l = 0; l < L; ++l)
      for (int64_t c = 0; c < C; ++c) out[size_t((i * (L + 2) + l + 1) * stride + c)] = a[i][c][l];
  return out;
}

// x [n, C, L] as the int8 kernel sees it: each position quantised to u8 with its own
// scale and zero point over its padded block (zeros included), then back to floats.
torch::Tensor int8_input(const torch::Tensor& x) {
  torch::Tensor out = x.clone();
  auto a = out.accessor<float, 3>();
  for (int64_t i = 0; i < x.size(0); ++i) {
    float low = 0, high = 0;
    for (int64_t c = 0; c < x.size(1); ++c)
      for (int64_t l = 0; l < x.size(2); ++l) {
        low = std::min(low, a[i][c][l]);
        high = std::max(high, a[i][c][l]);
      }
    const float scale = (high - low) / 255.f, inverse = 1.f / scale;
    const float zero = std::nearbyint(-low / scale);
    for (int64_t c = 0; c < x.size(1); ++c)
      for (int64_t l = 0; l < x.size(2); ++l) {
        const float q = std::clamp(std::nearbyint(a[i][c][l] * inverse) + zero, 0.f, 255.f);
        a[i][c][l] = (q - zero) * scale;
      }
  }
  return out;
}

// w [out, in, kernel] as the int8 kernel holds it: s8 with a scale per output channel.
torch::Tensor int8_weights(const torch::Tensor& w) {
  const torch::Tensor scale = w.abs().amax({1, 2}, true) / 127.f;
  return (w / scale).round().clamp(-127, 127) * scale;
}

// Each arithmetic against conv1d in fp32 of the numbers it multiplies: bf16's input and
// weights rounded to bf16 (its products are exact in fp32), int8's quantised as it
// quantises them (its sums are exact integers); only the order of the sums and the last
// scaling differ.
void expect_matches_conv1d(DirectConvolution::Arithmetic arithmetic) {
  using Arithmetic = DirectConvolution::Arithmetic;
  auto input_as_run = [arithmetic](const torch::Tensor& t) {
    if (arithmetic == Arithmetic::kBf16) return t.to(torch::kBFloat16).to(torch::kFloat32);
    if (arithmetic == Arithmetic::kInt8) return int8_input(t);
    return t;
  };
  auto weights_as_run = [arithmetic](const torch::Tensor& t) {
    if (arithmetic == Arithmetic::kBf16) return t.to(torch::kBFloat16).to(torch::kFloat32);
    if (arithmetic == Arithmetic::kInt8) return int8_weights(t);
    return t;
  };
  torch::manual_seed(5);
  struct Case {
    int64_t in, stride, out, kernel, length;
  };
  for (const Case k : {Case{32, 32, 32, 3, 18}, Case{28, 32, 32, 3, 18}, Case{28, 32, 48, 3, 14},
                       Case{16, 16, 16, 3, 5}, Case{32, 32, 32, 1, 18}, Case{64, 64, 64, 3, 13},
                       Case{24, 24, 16, 1, 7}, Case{32, 32, 32, 3, 25}}) {
    SCOPED_TRACE(testing::Message() << "in " << k.in << " stride " << k.stride << " out " << k.out
                                    << " kernel " << k.kernel << " length " << k.length);
    const int64_t n = 5;
    const torch::Tensor x = torch::randn({n, k.in, k.length});
    const torch::Tensor w = torch::randn({k.out, k.in, k.kernel}) * 0.2;
    const torch::Tensor b = torch::randn({k.out});
    const torch::Tensor old = torch::randn({n, k.out, k.length});
    const torch::Tensor conv =
        torch::conv1d(input_as_run(x), weights_as_run(w), b, 1, k.kernel / 2);
    const DirectConvolution direct(test::plain_tensor(w), test::plain_tensor(b), k.stride,
                                   arithmetic);
    ASSERT_EQ(direct.out(), k.out);
    const std::vector<float> in = padded(x, k.stride);
    for (const auto then : {DirectConvolution::Then::kRelu, DirectConvolution::Then::kAddRelu}) {
      const bool add = then == DirectConvolution::Then::kAddRelu;
      SCOPED_TRACE(add ? "add, relu" : "relu");
      const torch::Tensor want = torch::relu(add ? conv + old : conv);
      // Into a padded destination (row 1 on), its padding rows left alone.
      std::vector<float> out = padded(old, k.out);
      std::vector<float> sums(size_t(n * k.out), 1.f);
      direct.run(in.data(), n, k.length, out.data() + k.out, (k.length + 2) * k.out, then,
                 sums.data());
      const auto want_a = want.accessor<float, 3>();
      double worst = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t c = 0; c < k.out; ++c) {
          EXPECT_EQ(out[size_t(i * (k.length + 2) * k.out + c)], 0.f);
          EXPECT_EQ(out[size_t(((i + 1) * (k.length + 2) - 1) * k.out + c)], 0.f);
          double sum = 1;  // what the sums held before
          for (int64_t l = 0; l < k.length; ++l) {
            const float got = out[size_t((i * (k.length + 2) + l + 1) * k.out + c)];
            worst = std::max(worst, double(std::abs(got - want_a[i][c][l])));
            sum += want_a[i][c][l];
          }
          EXPECT_NEAR(sums[size_t(i * k.out + c)], sum, 1e-3);
        }
      }
      EXPECT_LT(worst, 1e-4);
    }
  }
}

TEST(DirectConvolution, MatchesTorchConv1d) {
  if (!direct_convolution_supported()) GTEST_SKIP() << "this CPU lacks AVX2 or FMA";
  expect_matches_conv1d(DirectConvolution::Arithmetic::kFp32);
}

TEST(DirectConvolution, Bf16MatchesTorchConv1dOfBf16Numbers) {
  if (!direct_bf16_supported()) GTEST_SKIP() << "this CPU lacks avx512_bf16";
  expect_matches_conv1d(DirectConvolution::Arithmetic::kBf16);
}

TEST(DirectConvolution, Int8MatchesTorchConv1dOfItsQuantisedNumbers) {
  if (!direct_int8_supported()) GTEST_SKIP() << "this CPU lacks AVX-512 VNNI";
  expect_matches_conv1d(DirectConvolution::Arithmetic::kInt8);
}

TEST(DirectConvolution, RefusesWhatItCannotRun) {
  const torch::Tensor b = torch::zeros({24});
  // 24 outputs are not a multiple of 16; kernel 5; rows narrower than the input.
  EXPECT_THROW(
      DirectConvolution(test::plain_tensor(torch::zeros({24, 16, 3})), test::plain_tensor(b), 16),
      std::invalid_argument);
  EXPECT_THROW(DirectConvolution(test::plain_tensor(torch::zeros({16, 16, 5})),
                                 test::plain_tensor(torch::zeros({16})), 16),
               std::invalid_argument);
  EXPECT_THROW(DirectConvolution(test::plain_tensor(torch::zeros({16, 32, 3})),
                                 test::plain_tensor(torch::zeros({16})), 16),
               std::invalid_argument);
  EXPECT_THROW(DirectConvolution(test::plain_tensor(torch::zeros({16, 16, 3})),
                                 test::plain_tensor(torch::zeros({8})), 16),
               std::invalid_argument);
  // bf16 reads its inputs in pairs: rows of an odd number of floats are refused.
  EXPECT_THROW(DirectConvolution(test::plain_tensor(torch::zeros({16, 15, 3})),
                                 test::plain_tensor(torch::zeros({16})), 15,
                                 DirectConvolution::Arithmetic::kBf16),
               std::invalid_argument);
  // int8 in fours: rows of 18 floats are refused.
  EXPECT_THROW(DirectConvolution(test::plain_tensor(torch::zeros({16, 18, 3})),
                                 test::plain_tensor(torch::zeros({16})), 18,
                                 DirectConvolution::Arithmetic::kInt8),
               std::invalid_argument);
}

}  // namespace
}  // namespace kz
