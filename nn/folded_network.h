// The network as play evaluates it, without LibTorch: every batch norm folded into the
// convolution before it (nn/network_layout.h folds a model's weights), run on the CPU by
// one of two forwards behind one interface:
//   - OnednnNetwork (nn/onednn_network.h): oneDNN's primitives and our own AVX2,
//     avx512_bf16 and AVX-512 VNNI kernels, in builds with oneDNN;
//   - PortableNetwork (nn/portable_network.h): plain C++ loops in fp32, for builds
//     without oneDNN and targets without x86 vector units (WebAssembly).
// make_folded_network picks the first that can run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nn/plain_tensor.h"

namespace kz {

// Arithmetic of the network's convolutions. kAuto: bf16 where the CPU and oneDNN run it
// (onednn_bf16_supported()), int8 in the WebAssembly build (portable_auto_precision()),
// fp32 elsewhere.
// kInt8: our kernels' dynamically quantised int8 (nn/direct_convolution.h) on CPUs with
// AVX-512 VNNI, one thread a forward; in builds without oneDNN (WebAssembly) the portable
// forward's integer path (nn/portable_int_convolution.h), which kAuto picks in the
// WebAssembly build only; elsewhere asked for by name only.
enum class InferencePrecision { kAuto, kFp32, kBf16, kInt8 };

// "auto", "fp32", "bf16", "int8" and back; parse throws std::invalid_argument on other
// text.
InferencePrecision parse_inference_precision(const std::string& text);
std::string to_string(InferencePrecision precision);

// The precision evaluators use unless told otherwise: the environment variable
// KUMALAK_PRECISION (auto, fp32, bf16 or int8) when set, else auto: bf16 where the CPU and
// oneDNN run it (resolve_inference_precision(), nn/onednn_network.h), int8 in the
// WebAssembly build (portable_auto_precision()), fp32 elsewhere.
// bf16 played 800 games against fp32 at equal visits without losing strength and
// evaluates faster (docs/performance.md); KUMALAK_PRECISION=fp32 gives back the fp32
// outputs earlier builds seeded. set_default_... overrides both for the rest of the
// process (`kumalak bench --precision`, tests that compare with the fp32 reference). A
// bad KUMALAK_PRECISION throws std::invalid_argument naming it.
InferencePrecision default_inference_precision();
void set_default_inference_precision(InferencePrecision precision);

// Which kernels run the convolutions on one thread (oneDNN builds). kAuto: ours
// (nn/direct_convolution.h) where they are the faster and the network's widths suit
// them (channels and the heads' channels multiples of 16): in fp32 where the CPU has
// AVX2 and FMA and oneDNN runs no AVX-512 (dnnl::get_effective_cpu_isa() below
// avx512_core), in bf16 where the CPU has avx512_bf16 and oneDNN no AMX; oneDNN's
// primitives elsewhere and for a forward on several OpenMP threads. kOneDnn: always
// oneDNN's (to compare). kDirect: ours wherever they can run (refused where they cannot;
// several threads still take oneDNN's). kPortable: PortableNetwork's loops
// (nn/portable_network.h) even where oneDNN is compiled in, in fp32 or int8, so that the
// WebAssembly build's forward and its integer path run natively at full speed (tests,
// `KUMALAK_BACKEND=portable`, Elo matches); make_folded_network takes it, OnednnNetwork
// never sees it.
enum class ConvolutionKernels { kAuto, kOneDnn, kDirect, kPortable };

// One layer with its batch norm already folded: weight [out, in, kernel] for a
// convolution, [out, in] for a fully connected layer; bias [out]; fp32.
struct FoldedLayer {
  PlainTensor weight, bias;
};

// Every layer play evaluates (the opponent-policy head is never evaluated).
struct FoldedWeights {
  struct Block {
    FoldedLayer conv1, conv2, pool_fc;
  };
  FoldedLayer input;
  std::vector<Block> tower;
  FoldedLayer policy, policy_out, value, value_fc, wdl, margin;
  FoldedLayer score;  // empty without the score distribution head
};

// How the features of one position lie in memory: kPlanesMajor [kNumPlanes][L] (what
// encode_features writes and the LibTorch forward takes), kCellsMajor [L][kNumPlanes]
// (encode_features_cells_major: the first convolution's own layout, read in place).
enum class FeatureLayout { kPlanesMajor, kCellsMajor };

class FoldedNetwork {
 public:
  virtual ~FoldedNetwork() = default;
  // `features` [batch, kNumPlanes, length] fp32 (kCellsMajor: [batch, length,
  // kNumPlanes]); writes the policy logits to `policy` [batch, pits] and the value heads
  // to `heads` [batch, head_outputs()]: W/D/L logits, the margin, then the score
  // distribution's logits when the network has that head. Several threads may call it
  // at once (each has its own buffers).
  virtual void forward(const float* features, int64_t batch, int64_t length, int pits,
                       float* policy, float* heads,
                       FeatureLayout layout = FeatureLayout::kPlanesMajor) const = 0;
  virtual int64_t head_outputs() const = 0;
  // kFp32, kBf16 or kInt8: what the convolutions run in.
  virtual InferencePrecision precision() const = 0;
  // The kernel of a tower convolution on one thread, e.g. "jit:avx512_core",
  // "direct:avx2", "portable".
  virtual std::string implementation() const = 0;
};

// The forward for `weights`: OnednnNetwork where this build has oneDNN (with
// `precision` and `kernels` as it takes them), else (and for kernels kPortable)
// PortableNetwork, which runs fp32 or int8 (its integer path, nn/portable_int_convolution.h;
// kBf16 is refused there with std::runtime_error; kAuto is portable_auto_precision()).
std::shared_ptr<const FoldedNetwork> make_folded_network(const FoldedWeights& weights,
                                                         InferencePrecision precision,
                                                         ConvolutionKernels kernels);

// What kAuto means for PortableNetwork: int8 in the WebAssembly build (its integer path
// is 1.4-1.5x fp32 there and held fp32's strength at equal visits, docs/browser.md), fp32
// natively (KUMALAK_BACKEND=portable, builds without oneDNN).
InferencePrecision portable_auto_precision();

// How many threads one forward may use (oneDNN's OpenMP threads; our own kernels and the
// portable forward use one): by default OMP_NUM_THREADS or the core count.
int inference_threads();
void set_inference_threads(int threads);
// Where LibTorch is linked in, its intra-op thread count is this setting, so that the
// LibTorch forwards and this one agree (nn/inference_network.cpp installs the pair).
void set_inference_threads_source(int (*get)(), void (*set)(int));

}  // namespace kz
