// The arithmetic limit of one CPU core, measured: a loop of independent multiply-adds
// that never touches memory, on the widest vector unit the CPU has. `kumalak bench
// --peak` and kz-forward-speed set the network's measured speed against it.
//
// The kernels are compiled with function-level target attributes and chosen at run time
// (__builtin_cpu_supports), so the binary still runs on CPUs without AVX-512.
#pragma once

#include <string>

namespace kz {

struct PeakMeasurement {
  std::string isa;    // the instructions measured ("avx512f", "avx2+fma", ...); "" if none
  double gflops = 0;  // billions of floating-point operations per second, one thread
};

// fp32 fused multiply-add peak of the calling thread: 16 independent accumulators
// (enough to cover FMA latency x FMA units on current x86 cores) of 16 lanes with
// AVX-512, else 12 of 8 lanes with AVX2+FMA; one FMA counts 2 FLOPs per lane. In the
// WebAssembly build, 12 accumulators of SIMD128's 4 lanes, a multiply and an add (2
// FLOPs per lane: it has no fused multiply-add), isa "simd128". The best of several
// repeats of about `seconds` / 4 each (the machine may be shared: the best repeat is the
// one least disturbed). isa "" when the CPU has none of these.
PeakMeasurement measure_fp32_peak(double seconds);

// bf16 dot-product peak (vdpbf16ps: per fp32 lane, two bf16 products added to the
// accumulator, 4 FLOPs) of the calling thread, measured as measure_fp32_peak; isa ""
// when the CPU lacks avx512_bf16.
PeakMeasurement measure_bf16_peak(double seconds);

// The i16 dot product's peak, what the portable forward's integer path
// (nn/portable_int_convolution.h) runs on: per i32 lane two i16 products added, then added
// to an accumulator (4 operations, as a multiply-add counts 2), 12 independent chains of 4
// lanes, measured as measure_fp32_peak. isa "simd128-i16dot" in the WebAssembly build
// (i32x4.dot_i16x8_s and i32x4.add; V8 makes them pmaddwd and paddd), "sse2-pmaddwd"
// natively (the same instructions, what that path compiles to there); "" elsewhere.
// Figures in billions of integer operations a second.
PeakMeasurement measure_i16_dot_peak(double seconds);

}  // namespace kz
