#include "nn/portable_int_convolution.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "nn/portable_vector.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kz {

namespace {

using portable::kBlockOutputs;
using portable::load;
using portable::store;
using portable::v4;

// Four i32 or eight i16 lanes in a vector register, as v4 (nn/portable_vector.h).
typedef int32_t i4 __attribute__((vector_size(16)));
typedef int32_t i4_unaligned __attribute__((vector_size(16), aligned(2), may_alias));
typedef int16_t s8 __attribute__((vector_size(16)));
inline i4 load_pairs(const int16_t* p) {
  return *reinterpret_cast<const i4_unaligned*>(p);
}

// Per i32 lane, the two i16 products of `a`'s and `b`'s lanes 2j and 2j + 1 added:
// i32x4.dot_i16x8_s in WebAssembly (pmaddwd under V8), the same instruction natively.
inline i4 dot_pairs(i4 a, i4 b) {
#if defined(__wasm_simd128__)
  return (i4)wasm_i32x4_dot_i16x8((v128_t)a, (v128_t)b);
#elif defined(__SSE2__)
  return (i4)_mm_madd_epi16((__m128i)a, (__m128i)b);
#else
  const s8 x = (s8)a, y = (s8)b;
  i4 r;
  for (int j = 0; j < 4; ++j)
    r[j] = int32_t(x[2 * j]) * y[2 * j] + int32_t(x[2 * j + 1]) * y[2 * j + 1];
  return r;
#endif
}

// Adding 1.5 x 2^23 to a float of magnitude below 2^22 leaves its value rounded to the
// nearest integer (ties to even) in the low mantissa bits: a rounding that is the same
// plain fp32 add in WebAssembly and natively (SIMD128's nearest and its conversion with
// saturation are several instructions each under V8).
constexpr float kRoundingMagic = 12582912.f;
constexpr int32_t kRoundingMagicBits = 0x4B400000;

// Eight i16 lanes from two i32x4, saturated (i16x8.narrow_i32x4_s; packssdw natively).
inline s8 narrow(i4 a, i4 b) {
#if defined(__wasm_simd128__)
  return (s8)wasm_i16x8_narrow_i32x4(a, b);
#elif defined(__SSE2__)
  return (s8)_mm_packs_epi32((__m128i)a, (__m128i)b);
#else
  s8 r;
  for (int j = 0; j < 8; ++j)
    r[j] = int16_t(std::clamp<int32_t>(j < 4 ? a[j] : b[j - 4], -32768, 32767));
  return r;
#endif
}

// Eight floats quantised and centred into `out`: round(x / s) clamped to [-z, 255 - z],
// which is clamp(round(x / s) + z, 0, 255) - z (see the header).
inline void quantise8(const float* x, v4 inverse, s8 low, s8 high, int16_t* out) {
  const v4 r0 = load(x) * inverse + kRoundingMagic, r1 = load(x + 4) * inverse + kRoundingMagic;
  s8 q = narrow((i4)r0 - kRoundingMagicBits, (i4)r1 - kRoundingMagicBits);
  q = q < low ? low : q;
  q = high < q ? high : q;
  std::memcpy(out, &q, sizeof(q));
}

// Winograd F(4,3)'s output transform A^T m (see the header), in this order in both
// kernels (T float or v4), so that both give the same floats.
template <class T>
inline void winograd_output(const T* m, T* y) {
  const T s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
  y[0] = m[0] + s12 + s34;
  y[1] = d12 + d34 * 2.f;
  y[2] = s12 + s34 * 4.f;
  y[3] = d12 + d34 * 8.f + m[5];
}

// G g for one output and input's three taps (see the header).
inline void winograd_weights(const double g[3], double t[6]) {
  t[0] = g[0] / 4;
  t[1] = -(g[0] + g[1] + g[2]) / 6;
  t[2] = -(g[0] - g[1] + g[2]) / 6;
  t[3] = (g[0] + 2 * g[1] + 4 * g[2]) / 24;
  t[4] = (g[0] - 2 * g[1] + 4 * g[2]) / 24;
  t[5] = g[2];
}

// B^T d for one tile's six cells (T int16_t or s8; exact, see the header).
template <class T>
inline void winograd_input_tile(const T* d, T* u) {
  u[0] = T(d[0] * 4 - d[2] * 5 + d[4]);
  u[1] = T(d[3] + d[4] - (d[1] + d[2]) * 4);
  u[2] = T((d[1] - d[2]) * 4 - d[3] + d[4]);
  u[3] = T((d[3] - d[1]) * 2 - d[2] + d[4]);
  u[4] = T((d[1] - d[3]) * 2 - d[2] + d[4]);
  u[5] = T(d[1] * 4 - d[3] * 5 + d[5]);
}

}  // namespace

int32_t PortableIntConvolution::winograd_weight_limit(int64_t padded_in) {
  const int64_t limit =
      std::min<int64_t>(32767, ((int64_t(1) << 31) - 1) / (kWinogradInputBound * padded_in));
  return int32_t(limit);
}

int32_t PortableIntConvolution::weight_limit(int64_t inputs) {
  const int64_t limit = std::min<int64_t>(32767, ((int64_t(1) << 31) - 1) / (255 * inputs));
  return int32_t(limit);
}

PortableIntConvolution::PortableIntConvolution(const FoldedLayer& layer, Method method) {
  const PlainTensor& weight = layer.weight;
  if (weight.shape.size() < 2 || layer.bias.numel() != weight.size(0))
    throw std::invalid_argument("PortableIntConvolution: a layer's weight and bias do not match");
  out_ = weight.size(0);
  in_ = weight.size(1);
  kernel_ = weight.shape.size() == 3 ? weight.size(2) : 1;
  padded_in_ = in_ + in_ % 2;
  winograd_ = method == Method::kWinograd && kernel_ == 3;
  taps_ = winograd_ ? kWinogradTaps : kernel_;
  const int32_t limit =
      winograd_ ? winograd_weight_limit(padded_in_) : weight_limit(kernel_ * padded_in_);
  if (limit < 127)
    throw std::invalid_argument("PortableIntConvolution: too many inputs for i32 sums");
  packed_.assign(size_t(taps_ * padded_in_ * out_), 0);
  weight_scale_.assign(size_t(out_), 1.f);
  std::vector<double> w(size_t(in_ * taps_));  // one output's weights [in][tap]
  for (int64_t o = 0; o < out_; ++o) {
    const float* g = weight.f32.data() + o * in_ * kernel_;
    for (int64_t i = 0; i < in_; ++i) {
      double* t = w.data() + i * taps_;
      if (winograd_) {
        const double taps[3] = {g[i * 3], g[i * 3 + 1], g[i * 3 + 2]};
        winograd_weights(taps, t);
      } else {
        for (int64_t k = 0; k < kernel_; ++k) t[k] = g[i * kernel_ + k];
      }
    }
    double largest = 0;
    for (const double v : w) largest = std::max(largest, std::abs(v));
    const float scale = largest > 0 ? float(largest / limit) : 1.f;
    weight_scale_[size_t(o)] = scale;
    for (int64_t i = 0; i < in_; ++i)
      for (int64_t k = 0; k < taps_; ++k) {
        const double q = std::clamp(std::nearbyint(w[size_t(i * taps_ + k)] / double(scale)),
                                    -double(limit), double(limit));
        packed_[size_t(((k * (padded_in_ / 2) + i / 2) * out_ + o) * 2 + i % 2)] = int16_t(q);
      }
  }
  bias_ = layer.bias.f32;
  zero_row_.assign(size_t(padded_in_), 0);
}

void PortableIntConvolution::quantise(const float* x, int64_t cells, int64_t in, int64_t padded_in,
                                      Activations& out) {
  const int64_t count = cells * in;
  // The range, 0 included (the cells outside the ring are zeros). (As `a < b ? b : a`,
  // f32x4.pmax, one instruction under V8: f32x4.max's NaN rules cost several.)
  v4 low4 = {}, high4 = {};
  int64_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const v4 v = load(x + i);
    low4 = v < low4 ? v : low4;
    high4 = high4 < v ? v : high4;
  }
  float low = 0, high = 0;
  for (int j = 0; j < 4; ++j) low = std::min(low, low4[j]), high = std::max(high, high4[j]);
  for (; i < count; ++i) low = std::min(low, x[i]), high = std::max(high, x[i]);
  out.centred.resize(size_t(cells * padded_in));
  if (!(high > low)) {  // all zeros: every q is the zero point
    out.scale = 1, out.zero = 0;
    std::fill(out.centred.begin(), out.centred.end(), int16_t(0));
    return;
  }
  out.scale = (high - low) / 255.f;
  out.zero = std::clamp(int32_t(std::nearbyint(-low / out.scale)), 0, 255);
  const v4 inverse = v4{} + 1.f / out.scale;
  const s8 bottom = s8{} + int16_t(-out.zero), top = s8{} + int16_t(255 - out.zero);
  // Rows of `padded_in` entries; where that is `in`, the whole position is one row.
  const int64_t rows = in == padded_in ? 1 : cells, row_in = in == padded_in ? count : in;
  const int64_t row_out = in == padded_in ? count : padded_in;
  for (int64_t c = 0; c < rows; ++c) {
    const float* row = x + c * row_in;
    int16_t* q = out.centred.data() + c * row_out;
    int64_t j = 0;
    for (; j + 8 <= row_in; j += 8) quantise8(row + j, inverse, bottom, top, q + j);
    if (j < row_out) {  // the last one to seven, and the padding's 0, through the same code
      float rest[8] = {};
      int16_t last[8];
      std::copy(row + j, row + row_in, rest);
      quantise8(rest, inverse, bottom, top, last);
      std::copy(last, last + (row_out - j), q + j);
    }
  }
}

void PortableIntConvolution::run(const float* x, int64_t length, float* y,
                                 PortableKernels kernels) const {
  thread_local Activations activations;
  thread_local std::vector<float> scale;
  quantise(x, length, in_, padded_in_, activations);
  scale.resize(size_t(out_));
  for (int64_t o = 0; o < out_; ++o)
    scale[size_t(o)] = activations.scale * weight_scale_[size_t(o)];
  const bool blocked = kernels == PortableKernels::kBlocked && out_ % kBlockOutputs == 0;
  if (winograd_) {
    thread_local std::vector<int16_t> u;
    winograd_input(activations, length, u);
    if (blocked)
      run_winograd_blocked(u.data(), length, scale.data(), y);
    else
      run_winograd_scalar(u.data(), length, scale.data(), y);
  } else if (blocked) {
    run_blocked(activations, length, scale.data(), y);
  } else {
    run_scalar(activations, length, scale.data(), y);
  }
}

void PortableIntConvolution::run_scalar(const Activations& a, int64_t length, const float* scale,
                                        float* y) const {
  const int64_t half = kernel_ / 2;
  for (int64_t l = 0; l < length; ++l)
    for (int64_t o = 0; o < out_; ++o) {
      int32_t sum = 0;
      for (int64_t k = 0; k < kernel_; ++k) {
        const int64_t src = l + k - half;
        if (src < 0 || src >= length) continue;
        const int16_t* row = a.centred.data() + src * padded_in_;
        for (int64_t i = 0; i < padded_in_; ++i) sum += int32_t(row[i]) * weight(o, i, k);
      }
      y[l * out_ + o] = float(sum) * scale[o] + bias_[size_t(o)];
    }
}

// As the fp32 kernel (nn/portable_network.cpp run_blocked): two cells by 16 outputs in
// eight i32x4 accumulators across all taps and input pairs, each weight load shared by
// both cells; 8 accumulators, 4 weights and 2 broadcasts fit x86-64's 16 vector
// registers. Each dot product is 8 multiply-adds.
void PortableIntConvolution::run_blocked(const Activations& a, int64_t length, const float* scale,
                                         float* y) const {
  const int64_t half = kernel_ / 2, pairs = padded_in_ / 2;
  const int16_t* act = a.centred.data();
  for (int64_t o0 = 0; o0 < out_; o0 += kBlockOutputs) {
    const float* b = bias_.data() + o0;
    const float* s = scale + o0;
    const v4 bias[4] = {load(b), load(b + 4), load(b + 8), load(b + 12)};
    const v4 times[4] = {load(s), load(s + 4), load(s + 8), load(s + 12)};
    for (int64_t l = 0; l < length; l += 2) {
      const bool second = l + 1 < length;
      i4 a0 = {}, a1 = {}, a2 = {}, a3 = {}, c0 = {}, c1 = {}, c2 = {}, c3 = {};
      for (int64_t k = 0; k < kernel_; ++k) {
        const int64_t s0 = l + k - half, s1 = s0 + 1;
        const bool in0 = s0 >= 0 && s0 < length, in1 = second && s1 >= 0 && s1 < length;
        if (!in0 && !in1) continue;
        // A cell outside the ring is 0 after centring: its products add nothing.
        const int16_t* r0 = in0 ? act + s0 * padded_in_ : zero_row_.data();
        const int16_t* r1 = in1 ? act + s1 * padded_in_ : zero_row_.data();
        const int16_t* wk = packed_.data() + (k * pairs * out_ + o0) * 2;
        for (int64_t j = 0; j < pairs; ++j) {
          const int16_t* wj = wk + j * out_ * 2;
          const i4 w0 = load_pairs(wj), w1 = load_pairs(wj + 8), w2 = load_pairs(wj + 16),
                   w3 = load_pairs(wj + 24);
          int32_t p0, p1;  // two input channels' i16 as one i32, broadcast
          std::memcpy(&p0, r0 + 2 * j, sizeof(p0));
          std::memcpy(&p1, r1 + 2 * j, sizeof(p1));
          const i4 v0 = i4{} + p0, v1 = i4{} + p1;
          a0 += dot_pairs(v0, w0), a1 += dot_pairs(v0, w1), a2 += dot_pairs(v0, w2),
              a3 += dot_pairs(v0, w3);
          c0 += dot_pairs(v1, w0), c1 += dot_pairs(v1, w1), c2 += dot_pairs(v1, w2),
              c3 += dot_pairs(v1, w3);
        }
      }
      float* y0 = y + l * out_ + o0;
      const auto to_float = [&](i4 sum, int q) {
        return __builtin_convertvector(sum, v4) * times[q] + bias[q];
      };
      store(y0, to_float(a0, 0)), store(y0 + 4, to_float(a1, 1));
      store(y0 + 8, to_float(a2, 2)), store(y0 + 12, to_float(a3, 3));
      if (second) {
        float* y1 = y0 + out_;
        store(y1, to_float(c0, 0)), store(y1 + 4, to_float(c1, 1));
        store(y1 + 8, to_float(c2, 2)), store(y1 + 12, to_float(c3, 3));
      }
    }
  }
}

// U [tile][6][padded_in]: B^T over each tile's six cells, eight channels at a time.
void PortableIntConvolution::winograd_input(const Activations& a, int64_t length,
                                            std::vector<int16_t>& u) const {
  const int64_t tiles = (length + kWinogradTile - 1) / kWinogradTile;
  u.resize(size_t(tiles * kWinogradTaps * padded_in_));
  for (int64_t t = 0; t < tiles; ++t) {
    const int16_t* rows[6];
    for (int64_t c = 0; c < 6; ++c) {
      const int64_t cell = t * kWinogradTile - 1 + c;
      rows[c] =
          cell >= 0 && cell < length ? a.centred.data() + cell * padded_in_ : zero_row_.data();
    }
    int16_t* out = u.data() + t * kWinogradTaps * padded_in_;
    int64_t i = 0;
    for (; i + 8 <= padded_in_; i += 8) {
      s8 d[6], v[6];
      for (int c = 0; c < 6; ++c) std::memcpy(&d[c], rows[c] + i, sizeof(s8));
      winograd_input_tile(d, v);
      for (int j = 0; j < 6; ++j) std::memcpy(out + j * padded_in_ + i, &v[j], sizeof(s8));
    }
    for (; i < padded_in_; ++i) {
      int16_t d[6], v[6];
      for (int c = 0; c < 6; ++c) d[c] = rows[c][i];
      winograd_input_tile(d, v);
      for (int j = 0; j < 6; ++j) out[j * padded_in_ + i] = v[j];
    }
  }
}

void PortableIntConvolution::run_winograd_scalar(const int16_t* u, int64_t length,
                                                 const float* scale, float* y) const {
  const int64_t tiles = (length + kWinogradTile - 1) / kWinogradTile;
  for (int64_t t = 0; t < tiles; ++t)
    for (int64_t o = 0; o < out_; ++o) {
      float m[6], r[4];
      for (int64_t j = 0; j < kWinogradTaps; ++j) {
        const int16_t* row = u + (t * kWinogradTaps + j) * padded_in_;
        int32_t sum = 0;
        for (int64_t i = 0; i < padded_in_; ++i) sum += int32_t(row[i]) * weight(o, i, j);
        m[j] = float(sum);
      }
      winograd_output(m, r);
      for (int64_t k = 0; k < kWinogradTile && t * kWinogradTile + k < length; ++k)
        y[(t * kWinogradTile + k) * out_ + o] = r[k] * scale[o] + bias_[size_t(o)];
    }
}

// Two tiles by 16 outputs as run_blocked's two cells: for each transformed tap, eight
// i32x4 accumulators over the input pairs, each weight load shared by both tiles; an odd
// last tile (Togyz's 18 cells are 5 tiles) alone, so that no dot product is spent on a
// tile of zeros.
void PortableIntConvolution::run_winograd_blocked(const int16_t* u, int64_t length,
                                                  const float* scale, float* y) const {
  const int64_t tiles = (length + kWinogradTile - 1) / kWinogradTile;
  for (int64_t o0 = 0; o0 < out_; o0 += kBlockOutputs) {
    int64_t t = 0;
    for (; t + 2 <= tiles; t += 2) winograd_tiles<2>(u, t, o0, length, scale, y);
    if (t < tiles) winograd_tiles<1>(u, t, o0, length, scale, y);
  }
}

template <int kTiles>
void PortableIntConvolution::winograd_tiles(const int16_t* u, int64_t t, int64_t o0, int64_t length,
                                            const float* scale, float* y) const {
  const int64_t pairs = padded_in_ / 2, stride = kWinogradTaps * padded_in_;
  v4 m[kTiles][4][6];  // [tile][output quarter][transformed tap]
  for (int64_t j = 0; j < kWinogradTaps; ++j) {
    const int16_t* r0 = u + t * stride + j * padded_in_;
    const int16_t* r1 = r0 + (kTiles - 1) * stride;
    const int16_t* wk = packed_.data() + (j * pairs * out_ + o0) * 2;
    i4 a0 = {}, a1 = {}, a2 = {}, a3 = {}, c0 = {}, c1 = {}, c2 = {}, c3 = {};
    // Pointers stepped rather than indexed: int64_t indices cost 64-bit arithmetic and a
    // wrap per address in wasm32.
    const int16_t* wj = wk;
    const ptrdiff_t w_step = out_ * 2;
    const int16_t* const r0_end = r0 + 2 * pairs;
    for (; r0 != r0_end; r0 += 2, r1 += 2, wj += w_step) {
      const i4 w0 = load_pairs(wj), w1 = load_pairs(wj + 8), w2 = load_pairs(wj + 16),
               w3 = load_pairs(wj + 24);
      int32_t p0;  // two input channels' i16 as one i32, broadcast
      std::memcpy(&p0, r0, sizeof(p0));
      const i4 v0 = i4{} + p0;
      a0 += dot_pairs(v0, w0), a1 += dot_pairs(v0, w1), a2 += dot_pairs(v0, w2),
          a3 += dot_pairs(v0, w3);
      if constexpr (kTiles == 2) {
        int32_t p1;
        std::memcpy(&p1, r1, sizeof(p1));
        const i4 v1 = i4{} + p1;
        c0 += dot_pairs(v1, w0), c1 += dot_pairs(v1, w1), c2 += dot_pairs(v1, w2),
            c3 += dot_pairs(v1, w3);
      }
    }
    m[0][0][j] = __builtin_convertvector(a0, v4), m[0][1][j] = __builtin_convertvector(a1, v4);
    m[0][2][j] = __builtin_convertvector(a2, v4), m[0][3][j] = __builtin_convertvector(a3, v4);
    if constexpr (kTiles == 2) {
      m[1][0][j] = __builtin_convertvector(c0, v4), m[1][1][j] = __builtin_convertvector(c1, v4);
      m[1][2][j] = __builtin_convertvector(c2, v4), m[1][3][j] = __builtin_convertvector(c3, v4);
    }
  }
  for (int q = 0; q < 4; ++q) {
    const v4 times = load(scale + o0 + 4 * q), bias = load(bias_.data() + o0 + 4 * q);
    for (int k = 0; k < kTiles; ++k) {
      v4 r[4];
      winograd_output(m[k][q], r);
      for (int64_t c = 0; c < kWinogradTile; ++c) {
        const int64_t l = (t + k) * kWinogradTile + c;
        if (l < length) store(y + l * out_ + o0 + 4 * q, r[c] * times + bias);
      }
    }
  }
}

}  // namespace kz
