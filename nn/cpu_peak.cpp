#include "nn/cpu_peak.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace kz {

namespace {

using Clock = std::chrono::steady_clock;

// The kernels' constants, read through volatile: a kernel that depended on its
// iteration count alone would be a pure function, and the compiler may then call it
// once for the whole timing loop.
volatile float decay = 0.999999f, step = 1e-7f;
volatile int32_t dot_factor = 3, dot_step = 7;  // the i16 dot product loops' likewise

// Runs `kernel(iterations)` (which returns a value that depends on every operation, so
// that the compiler keeps them) for about `seconds` / 4 per repeat, four repeats, and
// returns the best rate in GFLOP/s given `flops_per_iteration`.
template <typename Kernel>
double best_rate(Kernel kernel, double flops_per_iteration, double seconds) {
  volatile float sink = 0;
  int64_t iterations = 1 << 16;
  // Grow the count until one run takes a measurable share of a repeat.
  while (true) {
    const auto t0 = Clock::now();
    sink = sink + kernel(iterations);
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    if (dt > seconds / 16 || iterations > (int64_t(1) << 40)) break;
    iterations *= 2;
  }
  double best = 0;
  for (int repeat = 0; repeat < 4; ++repeat) {
    const auto t0 = Clock::now();
    int64_t done = 0;
    while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds / 4) {
      sink = sink + kernel(iterations);
      done += iterations;
    }
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, double(done) * flops_per_iteration / dt / 1e9);
  }
  return best;
}

#if defined(__x86_64__)

// (Not _mm512_reduce_add_ps: GCC 12 warns about its uninitialised temporaries.)
__attribute__((target("avx512f"))) float lane_sum(__m512 s) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  float total = 0;
  for (float f : lanes) total += f;
  return total;
}

// Each accumulator is a chain of dependent FMAs; the chains are independent. The values
// stay bounded (a <- a * 0.999999 + 1e-7 tends to 0.1) so that no denormal or infinity
// slows the loop.
#define KZ_REPEAT16(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define KZ_REPEAT12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx512f"))) float fma_avx512(int64_t iterations) {
  const __m512 m = _mm512_set1_ps(decay), b = _mm512_set1_ps(step);
#define KZ_INIT(i) __m512 a##i = _mm512_set1_ps(0.01f * (i + 1));
  KZ_REPEAT16(KZ_INIT)
#undef KZ_INIT
  for (int64_t n = 0; n < iterations; ++n) {
#define KZ_STEP(i) a##i = _mm512_fmadd_ps(a##i, m, b);
    KZ_REPEAT16(KZ_STEP)
#undef KZ_STEP
  }
  __m512 s = _mm512_setzero_ps();
#define KZ_SUM(i) s = _mm512_add_ps(s, a##i);
  KZ_REPEAT16(KZ_SUM)
#undef KZ_SUM
  return lane_sum(s);
}

__attribute__((target("avx2,fma"))) float fma_avx2(int64_t iterations) {
  const __m256 m = _mm256_set1_ps(decay), b = _mm256_set1_ps(step);
#define KZ_INIT(i) __m256 a##i = _mm256_set1_ps(0.01f * (i + 1));
  KZ_REPEAT12(KZ_INIT)
#undef KZ_INIT
  for (int64_t n = 0; n < iterations; ++n) {
#define KZ_STEP(i) a##i = _mm256_fmadd_ps(a##i, m, b);
    KZ_REPEAT12(KZ_STEP)
#undef KZ_STEP
  }
  __m256 s = _mm256_setzero_ps();
#define KZ_SUM(i) s = _mm256_add_ps(s, a##i);
  KZ_REPEAT12(KZ_SUM)
#undef KZ_SUM
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  float total = 0;
  for (float f : lanes) total += f;
  return total;
}

// Products of bf16 0.0001 added to accumulators that start at 0: after 2^40 iterations
// still far from overflow.
__attribute__((target("avx512f,avx512bf16"))) float dot_bf16(int64_t iterations) {
  // 0x38D1 is bf16 for about 0.0001.
  const __m512bh x = (__m512bh)_mm512_set1_epi16(0x38D1);
#define KZ_INIT(i) __m512 a##i = _mm512_set1_ps(step);
  KZ_REPEAT16(KZ_INIT)
#undef KZ_INIT
  for (int64_t n = 0; n < iterations; ++n) {
#define KZ_STEP(i) a##i = _mm512_dpbf16_ps(a##i, x, x);
    KZ_REPEAT16(KZ_STEP)
#undef KZ_STEP
  }
  __m512 s = _mm512_setzero_ps();
#define KZ_SUM(i) s = _mm512_add_ps(s, a##i);
  KZ_REPEAT16(KZ_SUM)
#undef KZ_SUM
  return lane_sum(s);
}

// Each chain's next value is its i16 dot product with a constant pair plus a constant
// (so that no product can be hoisted out of the loop); integers wrap without slowing.
__attribute__((target("sse2"))) float dot_i16_sse2(int64_t iterations) {
  const __m128i m = _mm_set1_epi32(int32_t(0x00010001) * int32_t(dot_factor)),
                b = _mm_set1_epi32(int32_t(dot_step));
#define KZ_INIT(i) __m128i a##i = _mm_set1_epi32(i + 1);
  KZ_REPEAT12(KZ_INIT)
#undef KZ_INIT
  for (int64_t n = 0; n < iterations; ++n) {
// (The empty asm keeps each chain in its register: without it GCC copied and spilled
// the two-operand SSE chains, and measured a third less.)
#define KZ_STEP(i)                                  \
  a##i = _mm_add_epi32(_mm_madd_epi16(a##i, m), b); \
  asm("" : "+x"(a##i));
    KZ_REPEAT12(KZ_STEP)
#undef KZ_STEP
  }
  __m128i s = _mm_setzero_si128();
#define KZ_SUM(i) s = _mm_add_epi32(s, a##i);
  KZ_REPEAT12(KZ_SUM)
#undef KZ_SUM
  return float(_mm_cvtsi128_si32(s));
}

#endif  // __x86_64__

#if defined(__wasm_simd128__)

// WebAssembly's SIMD128 has no fused multiply-add (relaxed SIMD's needs a newer clang
// than Debian 12's emscripten), so its peak is a multiply and an add per lane, 2 FLOPs
// in two instructions: the most the portable forward (nn/portable_network.h) can do.
// Twelve chains: a multiply and an add in a row are about 8 cycles of latency on current
// x86 cores, at two vector operations a cycle; fourteen registers leave V8 its scratch.
// Not inlined into best_rate: V8 first runs a function as baseline code and uses its
// optimised code only from a later call on, so the kernel must be called many times.
#define KZ_REPEAT12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((noinline)) float mul_add_simd128(int64_t iterations) {
  const v128_t m = wasm_f32x4_splat(decay), b = wasm_f32x4_splat(step);
#define KZ_INIT(i) v128_t a##i = wasm_f32x4_splat(0.01f * (i + 1));
  KZ_REPEAT12(KZ_INIT)
#undef KZ_INIT
  for (int64_t n = 0; n < iterations; ++n) {
#define KZ_STEP(i) a##i = wasm_f32x4_add(wasm_f32x4_mul(a##i, m), b);
    KZ_REPEAT12(KZ_STEP)
#undef KZ_STEP
  }
  v128_t s = wasm_f32x4_splat(0);
#define KZ_SUM(i) s = wasm_f32x4_add(s, a##i);
  KZ_REPEAT12(KZ_SUM)
#undef KZ_SUM
  return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) +
         wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3);
}

__attribute__((noinline)) float dot_i16_simd128(int64_t iterations) {
  const v128_t m = wasm_i32x4_splat(int32_t(0x00010001) * int32_t(dot_factor)),
               b = wasm_i32x4_splat(int32_t(dot_step));
#define KZ_INIT(i) v128_t a##i = wasm_i32x4_splat(i + 1);
  KZ_REPEAT12(KZ_INIT)
#undef KZ_INIT
  for (int64_t n = 0; n < iterations; ++n) {
#define KZ_STEP(i) a##i = wasm_i32x4_add(wasm_i32x4_dot_i16x8(a##i, m), b);
    KZ_REPEAT12(KZ_STEP)
#undef KZ_STEP
  }
  v128_t s = wasm_i32x4_splat(0);
#define KZ_SUM(i) s = wasm_i32x4_add(s, a##i);
  KZ_REPEAT12(KZ_SUM)
#undef KZ_SUM
  return float(wasm_i32x4_extract_lane(s, 0));
}

#endif  // __wasm_simd128__

}  // namespace

PeakMeasurement measure_fp32_peak(double seconds) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return {"avx512f", best_rate(fma_avx512, 16.0 * 16 * 2, seconds)};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {"avx2+fma", best_rate(fma_avx2, 12.0 * 8 * 2, seconds)};
#elif defined(__wasm_simd128__)
  return {"simd128", best_rate(mul_add_simd128, 12.0 * 4 * 2, seconds)};
#endif
  (void)seconds;
  return {};
}

PeakMeasurement measure_i16_dot_peak(double seconds) {
#if defined(__x86_64__)
  return {"sse2-pmaddwd", best_rate(dot_i16_sse2, 12.0 * 4 * 4, seconds)};
#elif defined(__wasm_simd128__)
  return {"simd128-i16dot", best_rate(dot_i16_simd128, 12.0 * 4 * 4, seconds)};
#endif
  (void)seconds;
  return {};
}

PeakMeasurement measure_bf16_peak(double seconds) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bf16"))
    return {"avx512_bf16", best_rate(dot_bf16, 16.0 * 16 * 4, seconds)};
#endif
  (void)seconds;
  return {};
}

}  // namespace kz
