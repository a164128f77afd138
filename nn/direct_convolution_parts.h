// What the products of DirectConvolution (nn/direct_convolution.h) share: the choice of
// epilogue as template arguments, and for the AVX-512 kernels (bf16, int8) the split of
// a position's cells into tiles and the epilogue of one row of 16 output channels.
// Internal to nn/direct_convolution*.cpp.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <type_traits>
#include <utility>

// GCC 12's AVX-512 intrinsics (_mm512_max_ps, _mm512_cvtepi32_epi8, ...) pass a
// self-initialised `_mm*_undefined_*()` as their unused merge source, which
// -W(maybe-)uninitialized reports once per inlined tile; only the kernels' files
// include this header.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace kz::direct {

// f(add, sums), each a std::bool_constant: the residual add and the pooling sums as
// template arguments of the kernel f runs.
template <class F>
void with_epilogue(bool add, bool sums, F&& f) {
  if (add && sums)
    f(std::true_type{}, std::true_type{});
  else if (add)
    f(std::true_type{}, std::false_type{});
  else if (sums)
    f(std::false_type{}, std::true_type{});
  else
    f(std::false_type{}, std::false_type{});
}

// The AVX-512 kernels' tiles hold up to this many cells (24 accumulators of 32 channels).
constexpr int kMaxTileCells = 12;

template <class F, int... R>
void with_cells(int64_t cells, int64_t first, F& f, std::integer_sequence<int, R...>) {
  (void)((cells == R + 1 ? (f(std::integral_constant<int, R + 1>{}, first), true) : false) || ...);
}

// f(cells, first cell) for each tile of a position's `length` cells, `cells` a
// std::integral_constant: tiles of up to kMaxTileCells split as evenly as the length
// allows (18 cells: two of 9).
template <class F>
void for_each_tile(int64_t length, F&& f) {
  const int64_t tiles = (length + kMaxTileCells - 1) / kMaxTileCells;
  int64_t first = 0;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t cells = (length - first) / (tiles - t);
    with_cells(cells, first, f, std::make_integer_sequence<int, kMaxTileCells>{});
    first += cells;
  }
}

// One cell's 16 output channels after the product: `v` plus the residual's old value
// (kAdd), ReLU, stored at `out`, and added to the pooling's `sum` (kSums).
template <bool kAdd, bool kSums>
__attribute__((target("avx512f"), always_inline)) inline void finish_row(__m512 v, float* out,
                                                                         __m512& sum) {
  if constexpr (kAdd) v = _mm512_add_ps(v, _mm512_loadu_ps(out));
  v = _mm512_max_ps(v, _mm512_setzero_ps());
  _mm512_storeu_ps(out, v);
  if constexpr (kSums) sum = _mm512_add_ps(sum, v);
}

// A tile's pooling sums (16 V channels) added to the position's `sums`.
template <int V>
__attribute__((target("avx512f"), always_inline)) inline void add_sums(float* sums, __m512 s0,
                                                                       __m512 s1) {
  _mm512_storeu_ps(sums, _mm512_add_ps(_mm512_loadu_ps(sums), s0));
  if constexpr (V > 1) _mm512_storeu_ps(sums + 16, _mm512_add_ps(_mm512_loadu_ps(sums + 16), s1));
}

}  // namespace kz::direct
