// The bf16 product of DirectConvolution (nn/direct_convolution.h) on AVX-512 with
// avx512_bf16: the weights packed as vdpbf16ps pairs them, each call's input rounded to
// bf16 once, tiles of up to 12 cells x 32 output channels in fp32 accumulators.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "nn/direct_convolution.h"
#include "nn/direct_convolution_parts.h"

#define KZ_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

namespace kz {

namespace {

// fp32 to bf16, rounded to nearest even as vcvtneps2bf16 rounds (weights hold no NaN).
uint16_t to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}

}  // namespace

void DirectConvolution::pack_bf16(const float* weight, int64_t in) {
  const int64_t K = kernel_ * in_stride_;
  packed_bf16_.assign(size_t(out_ * K), 0);
  for (int64_t o = 0; o < out_; ++o) {
    const int64_t panel = o / 32, width = std::min<int64_t>(32, out_ - panel * 32);
    uint16_t* base = packed_bf16_.data() + panel * 32 * K;
    for (int64_t c = 0; c < in; ++c)
      for (int64_t t = 0; t < kernel_; ++t) {
        const int64_t k = t * in_stride_ + c;  // the input's place in a cell's K
        base[((k / 2) * width + o % 32) * 2 + k % 2] = to_bf16(weight[(o * in + c) * kernel_ + t]);
      }
  }
}

namespace {

// `count` floats to bf16 (vcvtneps2bf16: nearest even).
KZ_BF16_TARGET void round_to_bf16(const float* in, size_t count, uint16_t* out) {
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256bh v = _mm512_cvtneps_pbh(_mm512_loadu_ps(in + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), reinterpret_cast<const __m256i&>(v));
  }
  if (i < count) {
    const __mmask16 mask = __mmask16((1u << (count - i)) - 1);
    const __m256bh v = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mask, in + i));
    _mm256_mask_storeu_epi16(out + i, mask, reinterpret_cast<const __m256i&>(v));
  }
}

// R cells (R <= 12) x 16 V output channels (V 1 or 2): out = then(bias + in x w). `in`
// points at the first cell's K bf16 inputs, the next cell's `stride` further; `w`
// [pairs][16 V][2].
template <int R, int V, bool kAdd, bool kSums>
KZ_BF16_TARGET __attribute__((always_inline)) inline void tile(
    const uint16_t* __restrict in, int64_t stride, const uint16_t* __restrict w, int64_t pairs,
    const float* __restrict bias, float* __restrict out, int64_t out_stride,
    float* __restrict sums) {
  const __m512 b0 = _mm512_loadu_ps(bias);
  const __m512 b1 = V > 1 ? _mm512_loadu_ps(bias + 16) : b0;
  // Named accumulators, as in the fp32 kernel (an array's elements went to the stack).
  __m512 a0_0 = b0, a0_1 = b1, a1_0 = b0, a1_1 = b1, a2_0 = b0, a2_1 = b1, a3_0 = b0, a3_1 = b1,
         a4_0 = b0, a4_1 = b1, a5_0 = b0, a5_1 = b1, a6_0 = b0, a6_1 = b1, a7_0 = b0, a7_1 = b1,
         a8_0 = b0, a8_1 = b1, a9_0 = b0, a9_1 = b1, a10_0 = b0, a10_1 = b1, a11_0 = b0, a11_1 = b1;
  for (int64_t k = 0; k < pairs; ++k) {
    const __m512i w0 = _mm512_loadu_si512(w + k * 32 * V);
    const __m512i w1 = V > 1 ? _mm512_loadu_si512(w + k * 32 * V + 32) : w0;
#define KZ_CELL(r)                                                                  \
  do {                                                                              \
    if constexpr (R > r) {                                                          \
      int32_t pair;                                                                 \
      std::memcpy(&pair, in + r * stride + 2 * k, sizeof(pair));                    \
      const __m512i x = _mm512_set1_epi32(pair);                                    \
      a##r##_0 = _mm512_dpbf16_ps(a##r##_0, reinterpret_cast<const __m512bh&>(x),   \
                                  reinterpret_cast<const __m512bh&>(w0));           \
      if constexpr (V > 1)                                                          \
        a##r##_1 = _mm512_dpbf16_ps(a##r##_1, reinterpret_cast<const __m512bh&>(x), \
                                    reinterpret_cast<const __m512bh&>(w1));         \
    }                                                                               \
  } while (false)
    KZ_CELL(0);
    KZ_CELL(1);
    KZ_CELL(2);
    KZ_CELL(3);
    KZ_CELL(4);
    KZ_CELL(5);
    KZ_CELL(6);
    KZ_CELL(7);
    KZ_CELL(8);
    KZ_CELL(9);
    KZ_CELL(10);
    KZ_CELL(11);
#undef KZ_CELL
  }
  __m512 s0 = _mm512_setzero_ps(), s1 = s0;
#define KZ_STORE(r)                                                               \
  do {                                                                            \
    if constexpr (R > r) {                                                        \
      direct::finish_row<kAdd, kSums>(a##r##_0, out + r * out_stride, s0);        \
      if constexpr (V > 1)                                                        \
        direct::finish_row<kAdd, kSums>(a##r##_1, out + r * out_stride + 16, s1); \
    }                                                                             \
  } while (false)
  KZ_STORE(0);
  KZ_STORE(1);
  KZ_STORE(2);
  KZ_STORE(3);
  KZ_STORE(4);
  KZ_STORE(5);
  KZ_STORE(6);
  KZ_STORE(7);
  KZ_STORE(8);
  KZ_STORE(9);
  KZ_STORE(10);
  KZ_STORE(11);
#undef KZ_STORE
  if constexpr (kSums) direct::add_sums<V>(sums, s0, s1);
}

// One panel of 16 V output channels over one position's `length` cells, tile by tile
// (direct::for_each_tile).
template <int V, bool kAdd, bool kSums>
KZ_BF16_TARGET void panel(const uint16_t* position, int64_t length, int64_t stride,
                          const uint16_t* w, int64_t pairs, const float* bias, float* out,
                          int64_t out_stride, float* sums) {
  direct::for_each_tile(length, [&](auto cells, int64_t first) KZ_BF16_TARGET {
    tile<decltype(cells)::value, V, kAdd, kSums>(position + first * stride, stride, w, pairs, bias,
                                                 out + first * out_stride, out_stride, sums);
  });
}

template <bool kAdd, bool kSums>
KZ_BF16_TARGET void convolve(const uint16_t* in, int64_t n, int64_t length, int64_t stride,
                             int64_t kernel, const uint16_t* packed, const float* bias,
                             int64_t outs, float* out, int64_t out_position_stride, float* sums) {
  const int64_t K = kernel * stride, pairs = K / 2;
  // Output cell l reads rows l + 1 - kernel / 2 onwards of the padded input.
  const int64_t first_row = 1 - kernel / 2;
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t* position = in + (i * (length + 2) + first_row) * stride;
    float* o = out + i * out_position_stride;
    float* s = kSums ? sums + i * outs : nullptr;
    for (int64_t p = 0; p * 32 < outs; ++p) {
      const uint16_t* w = packed + p * 32 * K;
      float* sp = kSums ? s + p * 32 : nullptr;
      const auto run = outs - p * 32 >= 32 ? panel<2, kAdd, kSums> : panel<1, kAdd, kSums>;
      run(position, length, stride, w, pairs, bias + p * 32, o + p * 32, outs, sp);
    }
  }
}

}  // namespace

void DirectConvolution::run_bf16(const float* in, int64_t n, int64_t length, float* out,
                                 int64_t out_position_stride, Then then, float* sums) const {
  if (!direct_bf16_supported())
    throw std::runtime_error("DirectConvolution: this CPU lacks avx512_bf16");
  // The whole padded input in bf16, made once: each input is read by three cells.
  thread_local std::vector<uint16_t> rounded;
  const size_t count = size_t(n * (length + 2) * in_stride_);
  if (rounded.size() < count) rounded.resize(count);
  round_to_bf16(in, count, rounded.data());
  direct::with_epilogue(then == Then::kAddRelu, sums != nullptr, [&](auto add, auto with_sums) {
    convolve<decltype(add)::value, decltype(with_sums)::value>(
        rounded.data(), n, length, in_stride_, kernel_, packed_bf16_.data(), bias_.data(), out_,
        out, out_position_stride, sums);
  });
}

}  // namespace kz
