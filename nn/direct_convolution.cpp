#include "nn/direct_convolution.h"

#include <immintrin.h>

#include <stdexcept>
#include <string>

#include "nn/direct_convolution_parts.h"

namespace kz {

bool direct_convolution_supported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return supported;
}

bool direct_bf16_supported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
  }();
  return supported;
}

DirectConvolution::DirectConvolution(const PlainTensor& w, const PlainTensor& b, int64_t in_stride,
                                     Arithmetic arithmetic)
    : arithmetic_(arithmetic) {
  if (w.shape.size() != 3 || b.shape.size() != 1 || b.size(0) != w.size(0) ||
      int64_t(w.f32.size()) != w.numel() || int64_t(b.f32.size()) != b.numel())
    throw std::invalid_argument("DirectConvolution: weight [out][in][kernel] and bias [out]");
  out_ = w.size(0);
  kernel_ = w.size(2);
  in_stride_ = in_stride;
  const int64_t in = w.size(1);
  if (out_ % 16 != 0 || (kernel_ != 1 && kernel_ != 3) || in_stride < in)
    throw std::invalid_argument("DirectConvolution: needs out a multiple of 16 (got " +
                                std::to_string(out_) + "), kernel 1 or 3 (got " +
                                std::to_string(kernel_) + ") and in_stride >= in");
  bias_.assign(b.data(), b.data() + out_);
  if (arithmetic_ != Arithmetic::kFp32) {
    // vdpbf16ps reads a cell's inputs in pairs, vpdpbusd in fours.
    const bool bf16 = arithmetic_ == Arithmetic::kBf16;
    const int64_t group = bf16 ? 2 : 4;
    if (in_stride % group != 0)
      throw std::invalid_argument(std::string("DirectConvolution: ") + (bf16 ? "bf16" : "int8") +
                                  " needs in_stride a multiple of " + std::to_string(group) +
                                  " (got " + std::to_string(in_stride) + ")");
    if (bf16)
      pack_bf16(w.data(), in);
    else
      pack_int8(w.data(), in);
    return;
  }
  const int64_t K = kernel_ * in_stride_;
  packed_.assign(size_t(out_ * K), 0.f);
  const float* src = w.data();
  for (int64_t o = 0; o < out_; ++o)
    for (int64_t c = 0; c < in; ++c)
      for (int64_t t = 0; t < kernel_; ++t)
        packed_[size_t(((o / 16) * K + t * in_stride_ + c) * 16 + o % 16)] =
            src[(o * in + c) * kernel_ + t];
}

namespace {

// R cells (R <= 6) x 16 output channels: out = then(bias + in x w). `in` points at the
// first cell's K inputs, the next cell's `stride` floats further; `w` [K][16].
template <int R, bool kAdd, bool kSums>
__attribute__((target("avx2,fma"), always_inline)) inline void tile(
    const float* __restrict in, int64_t stride, const float* __restrict w, int64_t K,
    const float* __restrict bias, float* __restrict out, int64_t out_stride,
    float* __restrict sums) {
  const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
  // Named accumulators, not an array: GCC kept an array's elements in registers but
  // also stored them to the stack on every step (a third of the speed).
  __m256 a00 = b0, a01 = b1, a10 = b0, a11 = b1, a20 = b0, a21 = b1, a30 = b0, a31 = b1, a40 = b0,
         a41 = b1, a50 = b0, a51 = b1;
  for (int64_t k = 0; k < K; ++k) {
    const __m256 w0 = _mm256_loadu_ps(w + k * 16), w1 = _mm256_loadu_ps(w + k * 16 + 8);
    __m256 x;
#define KZ_CELL(r)                                  \
  do {                                              \
    if constexpr (R > r) {                          \
      x = _mm256_broadcast_ss(in + r * stride + k); \
      a##r##0 = _mm256_fmadd_ps(x, w0, a##r##0);    \
      a##r##1 = _mm256_fmadd_ps(x, w1, a##r##1);    \
    }                                               \
  } while (false)
    KZ_CELL(0);
    KZ_CELL(1);
    KZ_CELL(2);
    KZ_CELL(3);
    KZ_CELL(4);
    KZ_CELL(5);
#undef KZ_CELL
  }
  const __m256 zero = _mm256_setzero_ps();
  __m256 s0 = zero, s1 = zero;
#define KZ_STORE(r)                                               \
  do {                                                            \
    if constexpr (R > r) {                                        \
      float* o = out + r * out_stride;                            \
      if constexpr (kAdd) {                                       \
        a##r##0 = _mm256_add_ps(a##r##0, _mm256_loadu_ps(o));     \
        a##r##1 = _mm256_add_ps(a##r##1, _mm256_loadu_ps(o + 8)); \
      }                                                           \
      a##r##0 = _mm256_max_ps(a##r##0, zero);                     \
      a##r##1 = _mm256_max_ps(a##r##1, zero);                     \
      _mm256_storeu_ps(o, a##r##0);                               \
      _mm256_storeu_ps(o + 8, a##r##1);                           \
      if constexpr (kSums) {                                      \
        s0 = _mm256_add_ps(s0, a##r##0);                          \
        s1 = _mm256_add_ps(s1, a##r##1);                          \
      }                                                           \
    }                                                             \
  } while (false)
  KZ_STORE(0);
  KZ_STORE(1);
  KZ_STORE(2);
  KZ_STORE(3);
  KZ_STORE(4);
  KZ_STORE(5);
#undef KZ_STORE
  if constexpr (kSums) {
    _mm256_storeu_ps(sums, _mm256_add_ps(_mm256_loadu_ps(sums), s0));
    _mm256_storeu_ps(sums + 8, _mm256_add_ps(_mm256_loadu_ps(sums + 8), s1));
  }
}

template <bool kAdd, bool kSums>
__attribute__((target("avx2,fma"))) void convolve(const float* in, int64_t n, int64_t length,
                                                  int64_t stride, int64_t kernel,
                                                  const float* packed, const float* bias,
                                                  int64_t outs, float* out,
                                                  int64_t out_position_stride, float* sums) {
  const int64_t K = kernel * stride;
  // Output cell l reads rows l + 1 - kernel / 2 onwards of the padded input.
  const int64_t first_row = 1 - kernel / 2;
  for (int64_t i = 0; i < n; ++i) {
    const float* position = in + (i * (length + 2) + first_row) * stride;
    float* o = out + i * out_position_stride;
    float* s = kSums ? sums + i * outs : nullptr;
    for (int64_t p = 0; p < outs / 16; ++p) {
      const float* w = packed + p * K * 16;
      const float* b = bias + p * 16;
      float* sp = kSums ? s + p * 16 : nullptr;
      int64_t l = 0;
      for (; l + 6 <= length; l += 6)
        tile<6, kAdd, kSums>(position + l * stride, stride, w, K, b, o + l * outs + p * 16, outs,
                             sp);
      const float* tail_in = position + l * stride;
      float* tail_out = o + l * outs + p * 16;
      switch (length - l) {
        case 5:
          tile<5, kAdd, kSums>(tail_in, stride, w, K, b, tail_out, outs, sp);
          break;
        case 4:
          tile<4, kAdd, kSums>(tail_in, stride, w, K, b, tail_out, outs, sp);
          break;
        case 3:
          tile<3, kAdd, kSums>(tail_in, stride, w, K, b, tail_out, outs, sp);
          break;
        case 2:
          tile<2, kAdd, kSums>(tail_in, stride, w, K, b, tail_out, outs, sp);
          break;
        case 1:
          tile<1, kAdd, kSums>(tail_in, stride, w, K, b, tail_out, outs, sp);
          break;
        default:
          break;
      }
    }
  }
}

}  // namespace

void DirectConvolution::run(const float* in, int64_t n, int64_t length, float* out,
                            int64_t out_position_stride, Then then, float* sums) const {
  if (arithmetic_ == Arithmetic::kBf16)
    return run_bf16(in, n, length, out, out_position_stride, then, sums);
  if (arithmetic_ == Arithmetic::kInt8)
    return run_int8(in, n, length, out, out_position_stride, then, sums);
  if (!direct_convolution_supported())
    throw std::runtime_error("DirectConvolution: this CPU lacks AVX2 or FMA");
  direct::with_epilogue(then == Then::kAddRelu, sums != nullptr, [&](auto add, auto with_sums) {
    convolve<decltype(add)::value, decltype(with_sums)::value>(in, n, length, in_stride_, kernel_,
                                                               packed_.data(), bias_.data(), out_,
                                                               out, out_position_stride, sums);
  });
}

namespace {

__attribute__((target("avx2,fma"))) inline float horizontal_sum(__m256 v) {
  const __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 h = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}

// out[0..8 V) = b + sum_i x[i] * wt[i][0..8 V), then ReLU where asked. V a constant, so
// that the sums live in registers (with a run-time count GCC kept them on the stack: a
// load and a store per multiply-add).
template <int V>
__attribute__((target("avx2,fma"), always_inline)) inline void dense_transposed_fixed(
    const float* __restrict x, int64_t ins, const float* __restrict wt, const float* __restrict b,
    bool relu, float* __restrict out) {
  __m256 a[V];
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) a[v] = _mm256_loadu_ps(b + v * 8);
  for (int64_t i = 0; i < ins; ++i) {
    const __m256 xi = _mm256_broadcast_ss(x + i);
    const float* row = wt + i * 8 * V;
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) a[v] = _mm256_fmadd_ps(xi, _mm256_loadu_ps(row + v * 8), a[v]);
  }
  const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v)
    _mm256_storeu_ps(out + v * 8, relu ? _mm256_max_ps(a[v], zero) : a[v]);
}

// The same for outs a multiple of 8, at most 64.
__attribute__((target("avx2,fma"))) inline void dense_transposed(
    const float* __restrict x, int64_t ins, const float* __restrict wt, const float* __restrict b,
    int64_t outs, bool relu, float* __restrict out) {
  switch (outs / 8) {
    case 1:
      return dense_transposed_fixed<1>(x, ins, wt, b, relu, out);
    case 2:
      return dense_transposed_fixed<2>(x, ins, wt, b, relu, out);
    case 3:
      return dense_transposed_fixed<3>(x, ins, wt, b, relu, out);
    case 4:
      return dense_transposed_fixed<4>(x, ins, wt, b, relu, out);
    case 5:
      return dense_transposed_fixed<5>(x, ins, wt, b, relu, out);
    case 6:
      return dense_transposed_fixed<6>(x, ins, wt, b, relu, out);
    case 7:
      return dense_transposed_fixed<7>(x, ins, wt, b, relu, out);
    default:
      return dense_transposed_fixed<8>(x, ins, wt, b, relu, out);
  }
}

}  // namespace

__attribute__((target("avx2,fma"))) void direct_pooling_bias(float* y, int64_t n, int64_t length,
                                                             int64_t channels, const float* sums,
                                                             const float* fc_wt,
                                                             const float* fc_b) {
  alignas(32) float mean[64], bias[64];
  const float scale = 1.f / float(length);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t c = 0; c < channels; ++c) mean[c] = sums[i * channels + c] * scale;
    dense_transposed(mean, channels, fc_wt, fc_b, channels, false, bias);
    float* first = y + (i * (length + 2) + 1) * channels;
    for (int64_t c = 0; c < channels; c += 8) {
      const __m256 b = _mm256_load_ps(bias + c);
      for (int64_t l = 0; l < length; ++l) {
        float* p = first + l * channels + c;
        _mm256_storeu_ps(p, _mm256_add_ps(_mm256_loadu_ps(p), b));
      }
    }
  }
}

__attribute__((target("avx2,fma"))) void direct_heads(const float* hh, int64_t n, int64_t length,
                                                      int64_t stride, int64_t pits,
                                                      const DirectHeadWeights& w, float* policy,
                                                      float* heads) {
  const int64_t P = w.policy_channels, V = w.value_channels;
  alignas(32) float pooled[128], hidden[64];
  const float scale = 1.f / float(length);
  for (int64_t i = 0; i < n; ++i) {
    const float* cells = hh + i * length * stride;
    for (int64_t p = 0; p < pits; ++p) {
      const float* cell = cells + p * stride;
      __m256 a = _mm256_mul_ps(_mm256_loadu_ps(cell), _mm256_loadu_ps(w.policy_w));
      for (int64_t c = 8; c < P; c += 8)
        a = _mm256_fmadd_ps(_mm256_loadu_ps(cell + c), _mm256_loadu_ps(w.policy_w + c), a);
      policy[i * pits + p] = horizontal_sum(a) + w.policy_b[0];
    }
    for (int64_t c = 0; c < V; c += 8) {
      const float* v = cells + P + c;
      __m256 sum = _mm256_loadu_ps(v), hi = sum;
      for (int64_t l = 1; l < length; ++l) {
        const __m256 x = _mm256_loadu_ps(v + l * stride);
        sum = _mm256_add_ps(sum, x);
        hi = _mm256_max_ps(hi, x);
      }
      _mm256_store_ps(pooled + c, _mm256_mul_ps(sum, _mm256_set1_ps(scale)));
      _mm256_store_ps(pooled + V + c, hi);
    }
    dense_transposed(pooled, 2 * V, w.value_fc_wt, w.value_fc_b, w.hidden, true, hidden);
    float* out = heads + i * w.head_outs;
    for (int64_t o = 0; o < w.head_outs; ++o) {
      const float* row = w.head_w + o * w.hidden;
      __m256 a = _mm256_mul_ps(_mm256_load_ps(hidden), _mm256_loadu_ps(row));
      for (int64_t h = 8; h < w.hidden; h += 8)
        a = _mm256_fmadd_ps(_mm256_load_ps(hidden + h), _mm256_loadu_ps(row + h), a);
      out[o] = horizontal_sum(a) + w.head_b[o];
    }
  }
}

}  // namespace kz
