// The folded network's forward in plain C++ (fp32), for builds without oneDNN and for
// targets without x86 vector units (WebAssembly): the same layers as
// OnednnNetwork's (nn/onednn_network.h), the weights laid out [kernel][in][out] (output
// channels innermost), each convolution two cells by 16 outputs at a time in four-float
// vectors (the compilers' vector extension: SSE natively, SIMD128 in WebAssembly). Activations are
// channels last, one position at a time, in per-thread buffers.
//
// With InferencePrecision::kInt8 the tower's convolutions run in integers instead
// (nn/portable_int_convolution.h: per-position u8 activations widened to i16, i16
// weights per output channel, SIMD128's i16 dot product, 8 multiply-adds an
// instruction); the input convolution (whose features one u8 scale would round away),
// the pooling bias's fully connected layer and the heads stay fp32.
#pragma once

#include <memory>
#include <string>

#include "nn/folded_network.h"

namespace kz {

// How the convolutions run: kBlocked keeps two cells by 16 outputs in vector registers
// (the fully connected and one-output layers in vectors of their own), kScalar is the
// plain loop. Both give the same floats to the bit (the same sums in the same order)
// except for the input convolution, which kBlocked runs in Winograd F(4,3) (within its
// rounding bound of the exact sums); kScalar is there for the tests that hold them to it.
enum class PortableKernels { kBlocked, kScalar };

class PortableNetwork : public FoldedNetwork {
 public:
  // `kernels` as above; `precision` kFp32 or kInt8 (kAuto is kFp32). Throws
  // std::invalid_argument where the weights are not a network's (shapes that do not
  // chain), and for kBf16.
  explicit PortableNetwork(const FoldedWeights& weights,
                           PortableKernels kernels = PortableKernels::kBlocked,
                           InferencePrecision precision = InferencePrecision::kFp32);
  ~PortableNetwork() override;

  void forward(const float* features, int64_t batch, int64_t length, int pits, float* policy,
               float* heads, FeatureLayout layout = FeatureLayout::kPlanesMajor) const override;
  int64_t head_outputs() const override;
  // kFp32 or kInt8, as constructed.
  InferencePrecision precision() const override;
  // The tower's output for one position, [length][channels()] (what every head reads),
  // from its cells-major features [length][kNumPlanes]: the human head's input
  // (nn/human_head.h).
  void trunk(const float* cells_major_features, int64_t length, float* out) const;
  int64_t channels() const;
  std::string implementation() const override { return "portable"; }

  struct Impl;  // the layers (nn/portable_network.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace kz
