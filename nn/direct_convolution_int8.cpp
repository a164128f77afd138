// The int8 product of DirectConvolution (nn/direct_convolution.h) on AVX-512 with VNNI:
// vpdpbusd multiplies four unsigned 8-bit inputs by four signed 8-bit weights and adds
// the four products to a 32-bit integer lane, exactly.
//
// Quantisation. Weights: per output channel, scale max|w| / 127, rounded to s8 once.
// Inputs: per position and call, asymmetric over that position's padded block (its zero
// padding included): scale s = (max - min) / 255 and zero point z = round(-min / s), so
// that q = clamp(round(x / s) + z, 0, 255) and x ~ (q - z) s. The integer sum is exact,
// and the zero point comes out as one product per output: sum_k q_k w_k - z sum_k w_k.
// out = (that) x s x weight scale + bias, then the fp32 kernel's residual add, ReLU and
// sums.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "nn/direct_convolution.h"
#include "nn/direct_convolution_parts.h"

#define KZ_INT8_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

namespace kz {

bool direct_int8_supported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  }();
  return supported;
}

void DirectConvolution::pack_int8(const float* weight, int64_t in) {
  const int64_t K = kernel_ * in_stride_;
  packed_int8_.assign(size_t(out_ * K), 0);
  weight_scale_.assign(size_t(out_), 1.f);
  weight_sum_.assign(size_t(out_), 0);
  for (int64_t o = 0; o < out_; ++o) {
    float largest = 0;
    for (int64_t i = 0; i < in * kernel_; ++i)
      largest = std::max(largest, std::abs(weight[o * in * kernel_ + i]));
    const float scale = largest > 0 ? largest / 127.f : 1.f;
    weight_scale_[size_t(o)] = scale;
    const int64_t panel = o / 32, width = std::min<int64_t>(32, out_ - panel * 32);
    int8_t* base = packed_int8_.data() + panel * 32 * K;
    for (int64_t c = 0; c < in; ++c)
      for (int64_t t = 0; t < kernel_; ++t) {
        const int64_t k = t * in_stride_ + c;  // the input's place in a cell's K
        const float q = std::nearbyint(weight[(o * in + c) * kernel_ + t] / scale);
        const int8_t w = int8_t(std::clamp(q, -127.f, 127.f));
        base[((k / 4) * width + o % 32) * 4 + k % 4] = w;
        weight_sum_[size_t(o)] += w;
      }
  }
}

namespace {

// One position's padded block of `count` floats to u8 with its own scale and zero point
// (see the top of the file); returns {scale, zero point}.
KZ_INT8_TARGET std::pair<float, int32_t> quantise(const float* in, size_t count, uint8_t* out) {
  __m512 lo = _mm512_setzero_ps(), hi = lo;  // the padding's zeros are in the block
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512 x = _mm512_loadu_ps(in + i);
    lo = _mm512_min_ps(lo, x);
    hi = _mm512_max_ps(hi, x);
  }
  float low = _mm512_reduce_min_ps(lo), high = _mm512_reduce_max_ps(hi);
  for (size_t j = i; j < count; ++j) {
    low = std::min(low, in[j]);
    high = std::max(high, in[j]);
  }
  if (!(high > low)) {  // all zeros: any scale, q = 0
    std::memset(out, 0, count);
    return {1.f, 0};
  }
  const float scale = (high - low) / 255.f;
  const int32_t zero = int32_t(std::nearbyint(-low / scale));
  const __m512 inverse = _mm512_set1_ps(1.f / scale);
  const __m512i z = _mm512_set1_epi32(zero), top = _mm512_set1_epi32(255);
  const __m512i bottom = _mm512_setzero_si512();
  for (i = 0; i + 16 <= count; i += 16) {
    __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(in + i), inverse));
    q = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(q, z), bottom), top);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(q));
  }
  for (; i < count; ++i) {
    const float q = std::nearbyint(in[i] / scale) + float(zero);
    out[i] = uint8_t(std::clamp(q, 0.f, 255.f));
  }
  return {scale, zero};
}

// The integer sums back to fp32: (sum - zero point x weight sum) x scale + bias.
KZ_INT8_TARGET __attribute__((always_inline)) inline __m512 to_float(__m512i sum,
                                                                     __m512i correction,
                                                                     __m512 scale, __m512 bias) {
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sum, correction)), scale, bias);
}

// R cells (R <= 12) x 16 V output channels (V 1 or 2). `in` points at the first cell's K
// u8 inputs, the next cell's `stride` further; `w` [K / 4][16 V][4]; `correction` and
// `scale` per output: the zero point's sum and the scale to fp32.
template <int R, int V, bool kAdd, bool kSums>
KZ_INT8_TARGET __attribute__((always_inline)) inline void tile(
    const uint8_t* __restrict in, int64_t stride, const int8_t* __restrict w, int64_t quads,
    const int32_t* __restrict correction, const float* __restrict scale,
    const float* __restrict bias, float* __restrict out, int64_t out_stride,
    float* __restrict sums) {
  const __m512i zero_i = _mm512_setzero_si512();
  __m512i a0_0 = zero_i, a0_1 = zero_i, a1_0 = zero_i, a1_1 = zero_i, a2_0 = zero_i, a2_1 = zero_i,
          a3_0 = zero_i, a3_1 = zero_i, a4_0 = zero_i, a4_1 = zero_i, a5_0 = zero_i, a5_1 = zero_i,
          a6_0 = zero_i, a6_1 = zero_i, a7_0 = zero_i, a7_1 = zero_i, a8_0 = zero_i, a8_1 = zero_i,
          a9_0 = zero_i, a9_1 = zero_i, a10_0 = zero_i, a10_1 = zero_i, a11_0 = zero_i,
          a11_1 = zero_i;
  for (int64_t k = 0; k < quads; ++k) {
    const __m512i w0 = _mm512_loadu_si512(w + k * 64 * V);
    const __m512i w1 = V > 1 ? _mm512_loadu_si512(w + k * 64 * V + 64) : w0;
#define KZ_CELL(r)                                                          \
  do {                                                                      \
    if constexpr (R > r) {                                                  \
      int32_t quad;                                                         \
      std::memcpy(&quad, in + r * stride + 4 * k, sizeof(quad));            \
      const __m512i x = _mm512_set1_epi32(quad);                            \
      a##r##_0 = _mm512_dpbusd_epi32(a##r##_0, x, w0);                      \
      if constexpr (V > 1) a##r##_1 = _mm512_dpbusd_epi32(a##r##_1, x, w1); \
    }                                                                       \
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
  const __m512i c0 = _mm512_loadu_si512(correction);
  const __m512i c1 = V > 1 ? _mm512_loadu_si512(correction + 16) : c0;
  const __m512 m0 = _mm512_loadu_ps(scale), b0 = _mm512_loadu_ps(bias);
  const __m512 m1 = V > 1 ? _mm512_loadu_ps(scale + 16) : m0;
  const __m512 b1 = V > 1 ? _mm512_loadu_ps(bias + 16) : b0;
  __m512 s0 = _mm512_setzero_ps(), s1 = s0;
#define KZ_STORE(r)                                                                                \
  do {                                                                                             \
    if constexpr (R > r) {                                                                         \
      direct::finish_row<kAdd, kSums>(to_float(a##r##_0, c0, m0, b0), out + r * out_stride, s0);   \
      if constexpr (V > 1)                                                                         \
        direct::finish_row<kAdd, kSums>(to_float(a##r##_1, c1, m1, b1), out + r * out_stride + 16, \
                                        s1);                                                       \
    }                                                                                              \
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

// One panel of 16 V output channels over one position's cells, tile by tile
// (direct::for_each_tile).
template <int V, bool kAdd, bool kSums>
KZ_INT8_TARGET void panel(const uint8_t* position, int64_t length, int64_t stride, const int8_t* w,
                          int64_t quads, const int32_t* correction, const float* scale,
                          const float* bias, float* out, int64_t out_stride, float* sums) {
  direct::for_each_tile(length, [&](auto cells, int64_t first) KZ_INT8_TARGET {
    tile<decltype(cells)::value, V, kAdd, kSums>(position + first * stride, stride, w, quads,
                                                 correction, scale, bias, out + first * out_stride,
                                                 out_stride, sums);
  });
}

}  // namespace

void DirectConvolution::run_int8(const float* in, int64_t n, int64_t length, float* out,
                                 int64_t out_position_stride, Then then, float* sums) const {
  if (!direct_int8_supported())
    throw std::runtime_error("DirectConvolution: this CPU lacks AVX-512 VNNI");
  const int64_t block = (length + 2) * in_stride_, K = kernel_ * in_stride_, quads = K / 4;
  // Output cell l reads rows l + 1 - kernel / 2 onwards of the padded input.
  const int64_t first_row = 1 - kernel_ / 2;
  thread_local std::vector<uint8_t> quantised;
  thread_local std::vector<int32_t> correction;
  thread_local std::vector<float> scale;
  if (quantised.size() < size_t(block)) quantised.resize(size_t(block));
  correction.resize(size_t(out_));
  scale.resize(size_t(out_));
  direct::with_epilogue(then == Then::kAddRelu, sums != nullptr, [&](auto add, auto with_sums) {
    constexpr bool kAdd = decltype(add)::value, kSums = decltype(with_sums)::value;
    for (int64_t i = 0; i < n; ++i) {
      const auto [s, z] = quantise(in + i * block, size_t(block), quantised.data());
      for (int64_t o = 0; o < out_; ++o) {
        correction[size_t(o)] = z * weight_sum_[size_t(o)];
        scale[size_t(o)] = s * weight_scale_[size_t(o)];
      }
      const uint8_t* position = quantised.data() + first_row * in_stride_;
      for (int64_t p = 0; p * 32 < out_; ++p) {
        const auto run = out_ - p * 32 >= 32 ? panel<2, kAdd, kSums> : panel<1, kAdd, kSums>;
        run(position, length, in_stride_, packed_int8_.data() + p * 32 * K, quads,
            correction.data() + p * 32, scale.data() + p * 32, bias_.data() + p * 32,
            out + i * out_position_stride + p * 32, out_,
            kSums ? sums + i * out_ + p * 32 : nullptr);
      }
    }
  });
}

}  // namespace kz
