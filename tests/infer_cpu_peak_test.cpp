// The measured peaks that kz-forward-speed and `kumalak bench --peak` set the network's
// speed against (nn/cpu_peak.h): the kernel each build and CPU has, a rate that is one,
// and the time asked for kept to.
#include <gtest/gtest.h>

#include <chrono>

#include "nn/cpu_peak.h"

namespace kz {
namespace {

// The fp32 kernel this build runs on this CPU: WebAssembly's SIMD128 in the WebAssembly
// build (its only vector unit), else the widest x86 fused multiply-add the CPU has.
std::string expected_fp32_isa() {
#if defined(__wasm_simd128__)
  return "simd128";
#elif defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2+fma";
  return "";
#else
  return "";
#endif
}

TEST(CpuPeak, TheFp32PeakIsMeasuredOnThisBuildsWidestVectorsInTheTimeAskedFor) {
  const std::string isa = expected_fp32_isa();
  if (isa.empty()) GTEST_SKIP() << "this CPU has no vector unit the peak loop knows";
  const auto start = std::chrono::steady_clock::now();
  const PeakMeasurement peak = measure_fp32_peak(0.2);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(peak.isa, isa);
  // Any core with 4-float vectors does billions of multiply-adds a second; a rate under
  // one GFLOP/s would be a loop the compiler broke or a count of FLOPs that is wrong.
  EXPECT_GT(peak.gflops, 1.0);
  // Four repeats of a quarter of the time, after a search for the loop's length that
  // stops at a sixteenth: about 1.2x the time asked for, a slow machine allowed for.
  EXPECT_LT(seconds, 2.0);
}

TEST(CpuPeak, TheBf16PeakIsMeasuredOnlyWhereTheCpuHasBf16DotProducts) {
  const PeakMeasurement peak = measure_bf16_peak(0.1);
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bf16")) {
    EXPECT_EQ(peak.isa, "avx512_bf16");
    EXPECT_GT(peak.gflops, 1.0);
    return;
  }
#endif
  EXPECT_EQ(peak.isa, "");
  EXPECT_EQ(peak.gflops, 0);
}

// The portable forward's integer path runs on 128-bit i16 dot products in both builds
// (nn/portable_int_convolution.h): their own peak, so that its fraction stays honest.
TEST(CpuPeak, TheI16DotPeakIsMeasuredOnTheInstructionsThePortableIntegerPathRuns) {
  const PeakMeasurement peak = measure_i16_dot_peak(0.1);
#if defined(__wasm_simd128__)
  EXPECT_EQ(peak.isa, "simd128-i16dot");
#elif defined(__x86_64__)
  EXPECT_EQ(peak.isa, "sse2-pmaddwd");
#else
  GTEST_SKIP() << "no i16 dot product loop for this target";
#endif
  // 8 lanes of products and 4 of adds an instruction pair: far above one billion a
  // second on any core that has them.
  EXPECT_GT(peak.gflops, 1.0);
}

}  // namespace
}  // namespace kz
