// A once-per-process check that LibTorch's oneDNN (mkldnn) convolution computes what
// the network needs on this machine, with a fallback to LibTorch's own kernels where
// it does not.
//
// Why: Debian 13's LibTorch 2.6 (oneDNN 3.7.2) on this project's AVX-512 machines
// returns NaN or wrong values from a 1-D convolution whose input channels are not a
// multiple of 16 (the 28 feature planes; 8 channels in the tiny configs): oneDNN
// copies the input into a blocked layout padded to 32 channels and, there, leaves the
// padding as whatever the memory held before, so the result depends on batch size and
// on earlier allocations. Found by running this project's tests against that LibTorch
// (`Network.ABatchEvaluatesLikeEachPositionAlone` gave NaN). LibTorch 1.13 (Debian 12)
// is not affected. LibTorch's own convolution is correct but 3-15x slower, so it is
// used only where the check fails.
#pragma once

#include <ATen/ATen.h>

namespace kz {

// A 1-D convolution (kernel 3, zero padding 1, no bias) computed with matrix products,
// never through oneDNN: the reference of the check. x [B, C, L], w [O, C, 3].
at::Tensor conv1d_by_matmul(const at::Tensor& x, const at::Tensor& w);

// Convolves random inputs of the network's shapes with oneDNN enabled, after filling
// freed memory with NaN, and compares against a reference computed with matrix
// products. True when every result matches.
bool onednn_convolution_is_sound();

// Runs the check once per process (thread-safe; later calls return at once) and, if it
// fails, disables oneDNN for the whole process with a warning on the log. Called by
// every Network constructor. Returns whether oneDNN stays enabled.
bool ensure_sound_cpu_convolution();

}  // namespace kz
