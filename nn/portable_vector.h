// Four floats in a vector register (SSE natively, SIMD128 in WebAssembly), through the
// compilers' vector extension, loaded and stored unaligned: what the portable forward's
// kernels (nn/portable_network.cpp, nn/portable_int_convolution.cpp) compute with.
#pragma once

#include <cstdint>

namespace kz::portable {

typedef float v4 __attribute__((vector_size(16)));
typedef float v4_unaligned __attribute__((vector_size(16), aligned(4), may_alias));

inline v4 load(const float* p) {
  return *reinterpret_cast<const v4_unaligned*>(p);
}
inline void store(float* p, v4 v) {
  *reinterpret_cast<v4_unaligned*>(p) = v;
}

// The outputs the blocked kernels keep in registers: two cells by 16 outputs, in fp32
// and in the integer path alike.
constexpr int64_t kBlockOutputs = 16;

}  // namespace kz::portable
