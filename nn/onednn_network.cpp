#include "nn/onednn_network.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "nn/direct_convolution.h"
#include "nn/features.h"

#ifdef KZ_HAVE_ONEDNN
#include <omp.h>

#include <dnnl.hpp>
#endif

namespace kz {

InferencePrecision parse_inference_precision(const std::string& text) {
  if (text == "auto") return InferencePrecision::kAuto;
  if (text == "fp32") return InferencePrecision::kFp32;
  if (text == "bf16") return InferencePrecision::kBf16;
  if (text == "int8") return InferencePrecision::kInt8;
  throw std::invalid_argument("precision '" + text + "': expected auto, fp32, bf16 or int8");
}

std::string to_string(InferencePrecision precision) {
  switch (precision) {
    case InferencePrecision::kAuto:
      return "auto";
    case InferencePrecision::kFp32:
      return "fp32";
    case InferencePrecision::kBf16:
      return "bf16";
    case InferencePrecision::kInt8:
      return "int8";
  }
  return "?";
}

InferencePrecision resolve_inference_precision(InferencePrecision precision) {
  if (precision != InferencePrecision::kAuto) return precision;
  if (!onednn_compiled()) return portable_auto_precision();  // PortableNetwork's kAuto
  return onednn_bf16_supported() ? InferencePrecision::kBf16 : InferencePrecision::kFp32;
}

#ifndef KZ_HAVE_ONEDNN

bool onednn_compiled() {
  return false;
}
bool onednn_bf16_supported() {
  return false;
}

struct OnednnNetwork::Impl {};

OnednnNetwork::OnednnNetwork(const FoldedWeights&, InferencePrecision, ConvolutionKernels) {
  throw std::runtime_error("this build has no oneDNN (libdnnl-dev was not found)");
}
OnednnNetwork::~OnednnNetwork() = default;
void OnednnNetwork::forward(const float*, int64_t, int64_t, int, float*, float*,
                            FeatureLayout) const {}
int64_t OnednnNetwork::head_outputs() const {
  return 0;
}
InferencePrecision OnednnNetwork::precision() const {
  return InferencePrecision::kFp32;
}
std::string OnednnNetwork::implementation() const {
  return "";
}
bool OnednnNetwork::direct() const {
  return false;
}

#else

bool onednn_compiled() {
  return true;
}

bool onednn_bf16_supported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512bf16") == 0) return false;
    // The ISAs are bit masks, each holding the ones below it: avx512_core_bf16's bits
    // are all set in it and in avx512_core_amx, not in avx512_core or avx2_vnni. A cap
    // below bf16 (ONEDNN_MAX_CPU_ISA=AVX512_CORE) would leave bf16 convolutions to
    // oneDNN's slow reference kernels, or to none.
    const auto effective = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    const auto bf16 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_bf16);
    return (effective & bf16) == bf16;
  }();
  return supported;
}

namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// A buffer aligned for AVX-512 loads that only grows.
class AlignedBuffer {
 public:
  ~AlignedBuffer() { std::free(data_); }
  void* get(size_t bytes) {
    if (bytes > bytes_) {
      std::free(data_);
      bytes_ = (bytes + 63) / 64 * 64;
      data_ = std::aligned_alloc(64, bytes_);
      if (!data_) throw std::bad_alloc();
    }
    return data_;
  }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// fp32 -> bf16, rounding to nearest even (as oneDNN's reorders do).
inline uint16_t to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}

// The loops between the primitives, compiled for AVX-512, AVX2 and plain x86-64 and
// chosen by the CPU at load time (the build itself targets plain x86-64).
#define KZ_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

// The work between the convolutions runs in loops of our own on the chunk (a few hundred
// KB that stay in L2): as oneDNN matmuls the small fully connected layers (64 x 32 by
// 32 x 32 for a chunk) cost 10-30 us each, nearly all call overhead, and the 1-wide
// policy convolution ran as a strided 1152 x 16 by 16 x 1 matmul of 30-40 us.
// Vectors of 16 floats (GCC's vector extension: one AVX-512 register, two AVX2 ones, four
// SSE ones in the plain x86-64 clone) hold the sums in registers: the first version,
// plain loops over arrays, spent most of its time in store-to-load chains through memory.
// Widths that are not a multiple of 16 take plain scalar loops.
typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4), may_alias));

// Unaligned loads and stores, and ReLU, as macros: a function passing a vector by value
// has an ABI that depends on AVX-512, which GCC warns about in the plain clone.
#define KZ_LOAD16(p) (*reinterpret_cast<const v16u*>(p))
#define KZ_STORE16(p, v) (*reinterpret_cast<v16u*>(p) = (v))
#define KZ_RELU16(v) ((v) > v16{} ? (v) : v16{})

inline float sum16(const v16& v) {
  float s = 0.f;
  for (int k = 0; k < 16; ++k) s += v[k];
  return s;
}

// A fully connected layer's weights for dense_rows: `w` [outs][ins] (LibTorch's), `wt`
// the same transposed [ins][outs], `bias` [outs].
struct DenseWeights {
  const float *w, *wt, *bias;
  int64_t ins, outs;
};

// out[r][o] = bias[o] + sum_i in[r][i] * w[o][i] for n rows (in: `ins` floats a row;
// out: `out_stride` floats a row), then ReLU where asked.
__attribute__((always_inline)) inline void dense_rows(const float* __restrict in, int64_t n,
                                                      const DenseWeights& d, float* __restrict out,
                                                      int64_t out_stride, bool relu) {
  const int64_t ins = d.ins, outs = d.outs;
  if (outs % 16 == 0) {
    // Four rows at once per 16 outputs: eight independent sums in flight.
    int64_t r = 0;
    for (; r + 4 <= n; r += 4) {
      const float* x = in + r * ins;
      for (int64_t o = 0; o < outs; o += 16) {
        const v16 b = KZ_LOAD16(d.bias + o);
        v16 a0 = b, a1 = b, a2 = b, a3 = b;
        for (int64_t i = 0; i < ins; ++i) {
          const v16 w = KZ_LOAD16(d.wt + i * outs + o);
          a0 += x[i] * w;
          a1 += x[ins + i] * w;
          a2 += x[2 * ins + i] * w;
          a3 += x[3 * ins + i] * w;
        }
        if (relu) {
          a0 = KZ_RELU16(a0);
          a1 = KZ_RELU16(a1);
          a2 = KZ_RELU16(a2);
          a3 = KZ_RELU16(a3);
        }
        float* y = out + r * out_stride + o;
        KZ_STORE16(y, a0);
        KZ_STORE16(y + out_stride, a1);
        KZ_STORE16(y + 2 * out_stride, a2);
        KZ_STORE16(y + 3 * out_stride, a3);
      }
    }
    for (; r < n; ++r) {
      const float* x = in + r * ins;
      for (int64_t o = 0; o < outs; o += 16) {
        v16 a = KZ_LOAD16(d.bias + o);
        for (int64_t i = 0; i < ins; ++i) a += x[i] * KZ_LOAD16(d.wt + i * outs + o);
        KZ_STORE16(out + r * out_stride + o, relu ? KZ_RELU16(a) : a);
      }
    }
    return;
  }
  // Few outputs (the W/D/L, margin and score layer): a dot product each.
  for (int64_t r = 0; r < n; ++r) {
    const float* x = in + r * ins;
    for (int64_t o = 0; o < outs; ++o) {
      const float* w = d.w + o * ins;
      float s;
      int64_t i = 0;
      if (ins >= 16) {
        v16 a = {};
        for (; i + 16 <= ins; i += 16) a += KZ_LOAD16(x + i) * KZ_LOAD16(w + i);
        s = sum16(a);
      } else {
        s = 0.f;
      }
      for (; i < ins; ++i) s += x[i] * w[i];
      s += d.bias[o];
      out[r * out_stride + o] = relu ? std::max(s, 0.f) : s;
    }
  }
}

// mean[i][c] = average over the ring of y[i][l][c] (cell l of position i at
// y + (i * length + l) * stride), and where `mx` is given mx[i][c] = its maximum; the
// results `out_stride` floats a row.
__attribute__((always_inline)) inline void ring_mean_max(const float* __restrict y, int64_t n,
                                                         int64_t length, int64_t channels,
                                                         int64_t stride, float* __restrict mean,
                                                         float* __restrict mx, int64_t out_stride) {
  const float scale = 1.f / float(length);
  for (int64_t i = 0; i < n; ++i) {
    const float* first = y + i * length * stride;
    float* m = mean + i * out_stride;
    float* x = mx ? mx + i * out_stride : nullptr;
    int64_t c = 0;
    for (; c + 16 <= channels; c += 16) {
      // Two sums (even and odd cells) to halve the chain of additions.
      v16 s0 = KZ_LOAD16(first + c), s1 = {}, hi = s0;
      for (int64_t l = 1; l < length; ++l) {
        const v16 v = KZ_LOAD16(first + l * stride + c);
        if (l & 1)
          s1 += v;
        else
          s0 += v;
        if (x) hi = v > hi ? v : hi;
      }
      KZ_STORE16(m + c, (s0 + s1) * scale);
      if (x) KZ_STORE16(x + c, hi);
    }
    for (; c < channels; ++c) {
      float s = first[c], hi = first[c];
      for (int64_t l = 1; l < length; ++l) {
        const float v = first[l * stride + c];
        s += v;
        hi = std::max(hi, v);
      }
      m[c] = s * scale;
      if (x) x[c] = hi;
    }
  }
}

// The global pooling bias of a block on a chunk of n positions, y [n][length][channels]:
// y[i][l][c] += pool_fc(mean over the ring of y[i])[c], in place (fp32), or written to
// `out` as bf16 (the next convolution's input in the bf16 path) when `out` is given.
// `scratch`: 2 * n * channels floats.
KZ_VECTOR_CLONES void pooling_bias(float* __restrict y, uint16_t* __restrict out, int64_t n,
                                   int64_t length, int64_t channels, const DenseWeights& fc,
                                   float* __restrict scratch) {
  float* mean = scratch;
  float* bias = scratch + n * channels;
  ring_mean_max(y, n, length, channels, channels, mean, nullptr, channels);
  dense_rows(mean, n, fc, bias, channels, false);
  const int64_t cells = length * channels;
  for (int64_t i = 0; i < n; ++i) {
    const float* b = bias + i * channels;
    float* first = y + i * cells;
    if (out) {
      uint16_t* o = out + i * cells;
      for (int64_t l = 0; l < length; ++l)
        for (int64_t c = 0; c < channels; ++c)
          o[l * channels + c] = to_bf16(first[l * channels + c] + b[c]);
    } else if (channels % 16 == 0) {
      for (int64_t l = 0; l < length; ++l)
        for (int64_t c = 0; c < channels; c += 16) {
          float* p = first + l * channels + c;
          KZ_STORE16(p, KZ_LOAD16(p) + KZ_LOAD16(b + c));
        }
    } else {
      for (int64_t l = 0; l < length; ++l)
        for (int64_t c = 0; c < channels; ++c) first[l * channels + c] += b[c];
    }
  }
}

// The heads after their first (shared) convolution, for `count` positions of hh
// [count][length][stride], each cell the policy's `policy_channels` then the value's
// `value_channels` (ReLU already applied):
// - policy[i][p] = policy_b + sum_c hh[i][p][c] * policy_w[c] for the mover's `pits`
//   cells (the 1-wide policy convolution, only where a logit is read);
// - the value: mean- and max-pool over the ring (as torch::cat({v.mean(2), v.max(2)})),
//   value_fc with ReLU, then the stacked W/D/L, margin and score layer into
//   heads[i][0..head.outs).
// `scratch`: count * (2 * value_channels + value_fc.outs) floats.
struct HeadWeights {
  const float *policy_w, *policy_b;  // [policy_channels], [1]
  int64_t policy_channels, value_channels;
  DenseWeights value_fc, head;
};

KZ_VECTOR_CLONES void heads_after_conv(const float* __restrict hh, int64_t count, int64_t length,
                                       int64_t stride, int64_t pits, const HeadWeights& w,
                                       float* __restrict policy, float* __restrict heads,
                                       float* __restrict scratch) {
  const int64_t P = w.policy_channels, V = w.value_channels;
  for (int64_t i = 0; i < count; ++i) {
    const float* cells = hh + i * length * stride;
    for (int64_t p = 0; p < pits; ++p) {
      const float* cell = cells + p * stride;
      float logit;
      int64_t c = 0;
      if (P >= 16) {
        v16 a = {};
        for (; c + 16 <= P; c += 16) a += KZ_LOAD16(cell + c) * KZ_LOAD16(w.policy_w + c);
        logit = sum16(a);
      } else {
        logit = 0.f;
      }
      for (; c < P; ++c) logit += cell[c] * w.policy_w[c];
      policy[i * pits + p] = logit + w.policy_b[0];
    }
  }
  float* pooled = scratch;  // [count][2V]: means, then maxima
  float* hidden = scratch + count * 2 * V;
  ring_mean_max(hh + P, count, length, V, stride, pooled, pooled + V, 2 * V);
  dense_rows(pooled, count, w.value_fc, hidden, w.value_fc.outs, true);
  dense_rows(hidden, count, w.head, heads, w.head.outs, false);
}

// x0[i][l][c] = features[i][c][l] (the encoder's planes by cell to oneDNN's channels
// last) for the `count` positions given, zeros for the rest of the bucket's `n`. A loop
// of our own: oneDNN's reorder for 28 planes took a quarter of the input convolution's
// time (12 of 50 us for 64 positions, measured standalone).
KZ_VECTOR_CLONES void planes_to_channels_last(const float* features, float* x0, int64_t count,
                                              int64_t n, int64_t planes, int64_t length) {
  for (int64_t i = 0; i < count; ++i) {
    const float* f = features + i * planes * length;
    float* o = x0 + i * planes * length;
    for (int64_t l = 0; l < length; ++l)
      for (int64_t c = 0; c < planes; ++c) o[l * planes + c] = f[c * length + l];
  }
  std::memset(x0 + count * planes * length, 0, size_t((n - count) * planes * length) * 4);
}

// The same to bf16; `cells_major`: the features are channels last already.
KZ_VECTOR_CLONES void planes_to_channels_last_bf16(const float* features, uint16_t* x0,
                                                   int64_t count, int64_t n, int64_t planes,
                                                   int64_t length, bool cells_major) {
  if (cells_major) {
    for (int64_t j = 0; j < count * planes * length; ++j) x0[j] = to_bf16(features[j]);
  } else {
    for (int64_t i = 0; i < count; ++i) {
      const float* f = features + i * planes * length;
      uint16_t* o = x0 + i * planes * length;
      for (int64_t l = 0; l < length; ++l)
        for (int64_t c = 0; c < planes; ++c) o[l * planes + c] = to_bf16(f[c * length + l]);
    }
  }
  std::memset(x0 + count * planes * length, 0, size_t((n - count) * planes * length) * 2);
}

// The features of `n` positions into padded channels-last rows of `stride` floats (zeros
// past the planes and in the two padding rows).
KZ_VECTOR_CLONES void features_to_padded(const float* features, float* x0, int64_t n,
                                         int64_t planes, int64_t length, int64_t stride,
                                         bool cells_major) {
  std::memset(x0, 0, size_t(n * (length + 2) * stride) * sizeof(float));
  for (int64_t i = 0; i < n; ++i) {
    const float* f = features + i * planes * length;
    float* o = x0 + (i * (length + 2) + 1) * stride;
    if (cells_major) {
      for (int64_t l = 0; l < length; ++l)
        std::memcpy(o + l * stride, f + l * planes, size_t(planes) * sizeof(float));
    } else {
      for (int64_t l = 0; l < length; ++l)
        for (int64_t c = 0; c < planes; ++c) o[l * stride + c] = f[c * length + l];
    }
  }
}

// Zeroes the padding rows (0 and length + 1) of n positions of padded channels-last
// activations.
void zero_padding_rows(float* x, int64_t n, int64_t length, int64_t channels) {
  for (int64_t i = 0; i < n; ++i) {
    float* first = x + i * (length + 2) * channels;
    std::memset(first, 0, size_t(channels) * sizeof(float));
    std::memset(first + (length + 1) * channels, 0, size_t(channels) * sizeof(float));
  }
}

// A batch of `n` positions runs as the primitives made for this many (the bucket):
// 1, 2, 4, 8, 16, then multiples of 16, so that a search's varying batch sizes share
// a few dozen sets of primitives.
// Positions per thread that one pass through the network takes at most (larger
// batches run as several passes).
constexpr int kChunkPerThread = 64;

int64_t batch_bucket(int64_t n) {
  if (n <= 16) {
    int64_t b = 1;
    while (b < n) b *= 2;
    return b;
  }
  return (n + 15) / 16 * 16;
}

dnnl::primitive_attr attributes(bool sum, bool relu) {
  dnnl::post_ops ops;
  if (sum) ops.append_sum(1.f);
  if (relu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  // Every thread brings its own scratchpad: the primitives are shared between threads.
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

}  // namespace

// One convolution's weights and bias as oneDNN memory, the weights in every layout a
// primitive asked for (one, in practice).
struct PackedLayer {
  // Shared, so that the bias memory, which points into it, stays valid when the layer is
  // copied or moved.
  std::shared_ptr<const FoldedLayer> source;
  memory bias;
  std::vector<std::pair<memory::desc, memory> > weights;
  memory::desc source_desc;  // the weights as the model holds them: [out][in][kernel]

  PackedLayer() = default;
  explicit PackedLayer(const FoldedLayer& layer) {
    source = std::make_shared<const FoldedLayer>(layer);
    const auto& w = source->weight;
    source_desc = memory::desc({w.size(0), w.size(1), w.size(2)}, dt::f32, tag::oiw);
    bias = memory(memory::desc({w.size(0)}, dt::f32, tag::x), cpu_engine(),
                  const_cast<float*>(source->bias.data()));
  }
  int64_t out() const { return source->weight.size(0); }
  int64_t in() const { return source->weight.size(1); }
  int64_t kernel() const { return source->weight.size(2); }

  // The weights in layout `want`, reordered once (callers hold the network's mutex).
  memory weights_as(const memory::desc& want) {
    for (auto& [desc, mem] : weights)
      if (desc == want) return mem;
    memory user(source_desc, cpu_engine(), const_cast<float*>(source->weight.data()));
    memory packed(want, cpu_engine());
    dnnl::stream stream(cpu_engine());
    dnnl::reorder(user, packed).execute(stream, user, packed);
    stream.wait();
    weights.emplace_back(want, packed);
    return packed;
  }
};

// [in][out] from [out][in].
PlainTensor transposed(const PlainTensor& w) {
  const int64_t out = w.size(0), in = w.size(1);
  PlainTensor t({in, out}, std::vector<float>(size_t(in * out)));
  for (int64_t o = 0; o < out; ++o)
    for (int64_t i = 0; i < in; ++i) t.f32[size_t(i * out + o)] = w.f32[size_t(o * in + i)];
  return t;
}

// The layers' tensors stacked along their first dimension (their rows).
PlainTensor stacked_rows(const std::vector<const PlainTensor*>& parts) {
  PlainTensor t;
  t.shape = parts[0]->shape;
  t.shape[0] = 0;
  for (const PlainTensor* p : parts) {
    t.shape[0] += p->size(0);
    t.f32.insert(t.f32.end(), p->f32.begin(), p->f32.end());
  }
  return t;
}

// A fully connected layer for dense_rows: weights [out][in] and transposed [in][out].
struct DenseLayer {
  PlainTensor w, wt, bias;
  DenseLayer() = default;
  explicit DenseLayer(const FoldedLayer& layer)
      : w(layer.weight), wt(transposed(layer.weight)), bias(layer.bias) {}
  int64_t in() const { return w.size(1); }
  int64_t out() const { return w.size(0); }
  DenseWeights weights() const { return {w.data(), wt.data(), bias.data(), in(), out()}; }
};

struct OnednnNetwork::Impl {
  // The primitives for one batch bucket, and the weights in the layouts they want.
  struct Plan {
    int64_t n = 0;
    dnnl::convolution_forward input_conv, conv1, conv2, heads_conv;
    memory::desc x0_md, x_md, y_md, yb_md, hh_md;
    memory input_w;
    std::vector<memory> conv1_w, conv2_w;
    memory heads_w;
    size_t scratchpad_bytes = 0;
  };

  InferencePrecision precision = InferencePrecision::kFp32;
  int64_t channels = 0, policy_channels = 0, value_channels = 0, value_hidden = 0;
  int64_t head_outputs = 0;  // 3 W/D/L + 1 margin + the score distribution's
  bool score = false;
  // The policy and value heads' first convolutions (both kernel 1, over the tower's
  // output) as one: their weights stacked, [policy + value channels, C, 1]; the policy's
  // channels come first in each cell of its output.
  PackedLayer input, heads_conv;
  std::vector<PackedLayer> conv1, conv2;
  // The fully connected layers and the 1-wide policy convolution run as loops of our
  // own (dense_row): pool_fc per block; the value head's value_fc and the W/D/L, margin
  // and score outputs stacked into one layer, `head`.
  std::vector<DenseLayer> pool_fc;
  DenseLayer value_fc, head;
  std::vector<float> policy_w, policy_b;  // [policy_channels], [1]
  std::string implementation;

  // The convolutions of our own (nn/direct_convolution.h), where `direct`: the input's
  // rows padded to `input_stride` floats, a multiple of 8 (28 planes to 32: the kernel ran
  // a 3 x 28-wide product at 0.57 of the peak, a 3 x 32-wide one with four zero planes
  // at 0.84, faster in time too).
  bool direct = false;
  int64_t input_stride = 0;
  DirectConvolution direct_input, direct_heads;
  std::vector<DirectConvolution> direct_conv1, direct_conv2;

  std::mutex mutex;  // guards plans and the layers' packed weights
  // By (batch bucket, ring length, OpenMP threads).
  std::map<std::tuple<int64_t, int64_t, int>, std::unique_ptr<Plan> > plans;

  dt activation_type() const { return precision == InferencePrecision::kBf16 ? dt::bf16 : dt::f32; }

  dnnl::convolution_forward::primitive_desc conv_desc(int64_t n, int64_t length,
                                                      const PackedLayer& layer, dt src, dt dst,
                                                      bool sum, bool relu) const {
    const int64_t k = layer.kernel(), pad = k / 2;
    const dt weights = src == dt::bf16 ? dt::bf16 : dt::f32;
    const memory::desc src_md({n, layer.in(), length}, src, tag::nwc);
    const memory::desc weights_md({layer.out(), layer.in(), k}, weights, tag::any);
    const memory::desc bias_md({layer.out()}, dt::f32, tag::x);
    const memory::desc dst_md({n, layer.out(), length}, dst, tag::nwc);
    const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                            dnnl::algorithm::convolution_direct, src_md, weights_md,
                                            bias_md, dst_md, {1}, {pad}, {pad});
    return {d, attributes(sum, relu), cpu_engine()};
  }

  Plan& plan(int64_t n, int64_t length, int threads) {
    std::lock_guard lock(mutex);
    auto& slot = plans[{n, length, threads}];
    if (slot) return *slot;
    auto p = std::make_unique<Plan>();
    p->n = n;
    const dt act = activation_type();
    size_t scratch = 0;
    auto track = [&scratch](const auto& pd) {
      scratch = std::max(scratch, pd.scratchpad_desc().get_size());
      return pd;
    };
    p->x0_md = memory::desc({n, kNumPlanes, length}, act, tag::nwc);

    const auto input_pd = track(conv_desc(n, length, input, act, act, false, true));
    p->input_conv = dnnl::convolution_forward(input_pd);
    p->input_w = input.weights_as(input_pd.weights_desc());
    p->x_md = input_pd.dst_desc();

    if (!conv1.empty()) {
      const auto conv1_pd = track(conv_desc(n, length, conv1[0], act, dt::f32, false, true));
      const auto conv2_pd = track(conv_desc(n, length, conv2[0], act, act, true, true));
      p->conv1 = dnnl::convolution_forward(conv1_pd);
      p->conv2 = dnnl::convolution_forward(conv2_pd);
      for (size_t b = 0; b < conv1.size(); ++b) {
        p->conv1_w.push_back(conv1[b].weights_as(conv1_pd.weights_desc()));
        p->conv2_w.push_back(conv2[b].weights_as(conv2_pd.weights_desc()));
      }
      p->y_md = conv1_pd.dst_desc();
      p->yb_md = conv2_pd.src_desc();
      if (implementation.empty()) implementation = conv2_pd.impl_info_str();
    } else if (implementation.empty()) {
      implementation = input_pd.impl_info_str();
    }

    const auto heads_pd = track(conv_desc(n, length, heads_conv, act, dt::f32, false, true));
    p->heads_conv = dnnl::convolution_forward(heads_pd);
    p->heads_w = heads_conv.weights_as(heads_pd.weights_desc());
    p->hh_md = heads_pd.dst_desc();
    p->scratchpad_bytes = scratch;
    slot = std::move(p);
    return *slot;
  }
};

OnednnNetwork::OnednnNetwork(const FoldedWeights& w, InferencePrecision precision,
                             ConvolutionKernels kernels)
    : impl_(std::make_unique<Impl>()) {
  precision = resolve_inference_precision(precision);
  if (precision == InferencePrecision::kBf16 && !onednn_bf16_supported())
    throw std::runtime_error(
        "bf16 inference needs a CPU with avx512_bf16 and oneDNN allowed to use it "
        "(ONEDNN_MAX_CPU_ISA at least AVX512_CORE_BF16); KUMALAK_PRECISION=fp32 or auto runs "
        "without");
  Impl& m = *impl_;
  m.precision = precision;
  m.input = PackedLayer(w.input);
  for (const auto& b : w.tower) {
    m.conv1.emplace_back(b.conv1);
    m.conv2.emplace_back(b.conv2);
    m.pool_fc.emplace_back(b.pool_fc);
  }
  if (w.policy.weight.size(2) != 1 || w.value.weight.size(2) != 1)
    throw std::invalid_argument(
        "OnednnNetwork: the policy and value heads' convolutions must "
        "have kernel 1");
  m.heads_conv = PackedLayer({stacked_rows({&w.policy.weight, &w.value.weight}),
                              stacked_rows({&w.policy.bias, &w.value.bias})});
  m.policy_w = w.policy_out.weight.f32;
  m.policy_b = w.policy_out.bias.f32;
  if (int64_t(m.policy_w.size()) != w.policy.weight.size(0) || m.policy_b.size() != 1)
    throw std::invalid_argument("OnednnNetwork: the policy head's output must be one channel");
  m.value_fc = DenseLayer(w.value_fc);
  // The W/D/L, margin and score outputs read the same hidden layer: one matmul of their
  // weights stacked, [3 + 1 + score, hidden].
  std::vector<const PlainTensor*> weights{&w.wdl.weight, &w.margin.weight},
      biases{&w.wdl.bias, &w.margin.bias};
  m.score = w.score.weight.defined();
  if (m.score) {
    weights.push_back(&w.score.weight);
    biases.push_back(&w.score.bias);
  }
  m.head = DenseLayer({stacked_rows(weights), stacked_rows(biases)});
  m.channels = m.input.out();
  m.policy_channels = w.policy.weight.size(0);
  m.value_channels = w.value.weight.size(0);
  m.value_hidden = m.value_fc.out();
  m.head_outputs = m.head.out();

  // Our kernels where they can run and, for kAuto, where they are the faster: oneDNN
  // without AVX-512 (measured: docs/performance.md, "The convolutions of our own").
  // (The loops between the convolutions take widths in multiples of 8, the pooling bias
  // and the value's hidden layer up to 64, the pooled value up to 128.)
  const bool shapes = m.channels % 16 == 0 && m.channels <= 64 && m.heads_conv.out() % 16 == 0 &&
                      m.policy_channels % 8 == 0 && m.value_channels % 8 == 0 &&
                      m.value_channels <= 64 && m.value_hidden % 8 == 0 && m.value_hidden <= 64 &&
                      m.input.kernel() == 3 &&
                      std::all_of(m.conv1.begin(), m.conv1.end(),
                                  [](const PackedLayer& l) { return l.kernel() == 3; }) &&
                      std::all_of(m.conv2.begin(), m.conv2.end(),
                                  [](const PackedLayer& l) { return l.kernel() == 3; });
  const bool bf16 = precision == InferencePrecision::kBf16;
  const bool int8 = precision == InferencePrecision::kInt8;
  const bool can = shapes && (int8   ? direct_int8_supported()
                              : bf16 ? direct_bf16_supported()
                                     : direct_convolution_supported());
  // int8 runs on the kernels of our own only (oneDNN's would need calibrated scales).
  if (int8 && (!can || kernels == ConvolutionKernels::kOneDnn))
    throw std::runtime_error(
        "int8 inference runs on the convolutions of our own: a CPU with AVX-512 VNNI, kernels "
        "of 3 and channels in multiples of 16 (KUMALAK_PRECISION=auto runs without)");
  if (kernels == ConvolutionKernels::kDirect && !can)
    throw std::runtime_error(
        "the convolutions of our own need a CPU with AVX2 and FMA (fp32) or avx512_bf16 "
        "(bf16), kernels of 3 and channels in multiples of 16");
  const auto effective = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto has = [effective](dnnl::cpu_isa isa) {
    return (effective & static_cast<unsigned>(isa)) == static_cast<unsigned>(isa);
  };
  // fp32: ours where oneDNN runs no AVX-512. bf16: ours where oneDNN has no AMX tiles
  // (with them its bf16 products outrun vdpbf16ps several times over).
  const bool auto_direct =
      int8 || (bf16 ? !has(dnnl::cpu_isa::avx512_core_amx) : !has(dnnl::cpu_isa::avx512_core));
  m.direct = can && (kernels == ConvolutionKernels::kDirect ||
                     (kernels == ConvolutionKernels::kAuto && auto_direct));
  if (m.direct) {
    using Arithmetic = DirectConvolution::Arithmetic;
    const Arithmetic arithmetic = int8   ? Arithmetic::kInt8
                                  : bf16 ? Arithmetic::kBf16
                                         : Arithmetic::kFp32;
    m.input_stride = (m.input.in() + 7) / 8 * 8;
    m.direct_input =
        DirectConvolution(m.input.source->weight, m.input.source->bias, m.input_stride, arithmetic);
    for (size_t b = 0; b < m.conv1.size(); ++b) {
      m.direct_conv1.emplace_back(m.conv1[b].source->weight, m.conv1[b].source->bias, m.channels,
                                  arithmetic);
      m.direct_conv2.emplace_back(m.conv2[b].source->weight, m.conv2[b].source->bias, m.channels,
                                  arithmetic);
    }
    m.direct_heads = DirectConvolution(m.heads_conv.source->weight, m.heads_conv.source->bias,
                                       m.channels, arithmetic);
  }
}

OnednnNetwork::~OnednnNetwork() = default;

InferencePrecision OnednnNetwork::precision() const {
  return impl_->precision;
}

std::string OnednnNetwork::implementation() const {
  if (impl_->direct)
    return impl_->precision == InferencePrecision::kInt8   ? "direct:avx512_vnni"
           : impl_->precision == InferencePrecision::kBf16 ? "direct:avx512_bf16"
                                                           : "direct:avx2";
  std::lock_guard lock(impl_->mutex);
  return impl_->implementation;
}

bool OnednnNetwork::direct() const {
  return impl_->direct;
}

int64_t OnednnNetwork::head_outputs() const {
  return impl_->head_outputs;
}

void OnednnNetwork::forward(const float* features, int64_t batch, int64_t L, int pits,
                            float* policy_out, float* heads_out, FeatureLayout layout) const {
  Impl& m = *impl_;
  // Debian's oneDNN runs on OpenMP, whose thread count is per calling thread (all cores
  // on a thread that never set it): give it inference_threads() (nn/folded_network.h) on every
  // thread. A primitive splits its work for the thread count it was created with and
  // starts that many threads whatever the caller's setting, so the plans are per count.
  const int threads = std::max(1, inference_threads());
  // int8 has no oneDNN primitives here: its forward stays on the calling thread.
  if (m.direct && (threads == 1 || m.precision == InferencePrecision::kInt8)) {
    forward_direct(features, batch, L, pits, policy_out, heads_out, layout);
    return;
  }
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);

  // Per-thread buffers, shared by every network this thread runs (calls never overlap
  // on one thread, and the outputs are copied out before returning).
  struct Buffers {
    AlignedBuffer x0, x, y, yb, hh, scratchpad, loops;
  };
  thread_local Buffers buf;
  thread_local dnnl::stream stream(cpu_engine());
  auto& engine = cpu_engine();
  auto mem = [&](const memory::desc& d, AlignedBuffer& b) {
    return memory(d, engine, b.get(d.get_size()));
  };

  const size_t per = size_t(kNumPlanes) * size_t(L);
  // The batch runs through the whole network in chunks of kChunkPerThread positions per
  // thread: one chunk's activations ([64, 18, 32] fp32: 147 KB each) stay in the core's
  // L2 cache from layer to layer, where a whole batch of 256 (590 KB each) does not
  // (measured: docs/performance.md).
  const int64_t chunk = int64_t(kChunkPerThread) * threads;
  for (int64_t first = 0; first < batch; first += chunk) {
    const int64_t count = std::min(chunk, batch - first);
    const int64_t n = batch_bucket(count);
    Impl::Plan& p = m.plan(n, L, threads);
    memory x = mem(p.x_md, buf.x);
    const float* chunk_features = features + size_t(first) * per;
    const bool cells_major = layout == FeatureLayout::kCellsMajor;
    memory x0;
    // Padded with zero positions up to the bucket. fp32 features that are channels last
    // already and fill the bucket are read where they are (oneDNN only reads a source).
    if (m.precision == InferencePrecision::kBf16) {
      x0 = mem(p.x0_md, buf.x0);
      planes_to_channels_last_bf16(chunk_features, static_cast<uint16_t*>(x0.get_data_handle()),
                                   count, n, kNumPlanes, L, cells_major);
    } else if (cells_major && count == n) {
      x0 = memory(p.x0_md, engine, const_cast<float*>(chunk_features));
    } else if (cells_major) {
      x0 = mem(p.x0_md, buf.x0);
      float* data = static_cast<float*>(x0.get_data_handle());
      std::memcpy(data, chunk_features, size_t(count) * per * sizeof(float));
      std::memset(data + size_t(count) * per, 0, size_t(n - count) * per * sizeof(float));
    } else {
      x0 = mem(p.x0_md, buf.x0);
      planes_to_channels_last(chunk_features, static_cast<float*>(x0.get_data_handle()), count, n,
                              kNumPlanes, L);
    }
    memory scratchpad(dnnl::memory::desc({int64_t(p.scratchpad_bytes)}, dt::u8, tag::x), engine,
                      buf.scratchpad.get(std::max<size_t>(p.scratchpad_bytes, 64)));
    auto conv = [&](dnnl::convolution_forward& prim, memory& src, memory& weights, memory& bias,
                    memory& dst) {
      prim.execute(stream, {{DNNL_ARG_SRC, src},
                            {DNNL_ARG_WEIGHTS, weights},
                            {DNNL_ARG_BIAS, bias},
                            {DNNL_ARG_DST, dst},
                            {DNNL_ARG_SCRATCHPAD, scratchpad}});
    };
    // The loops' rows (a block's means and biases; the value head's pooling and hidden
    // layer).
    float* loop_scratch = static_cast<float*>(
        buf.loops.get(size_t(n * std::max(2 * m.channels, 2 * m.value_channels + m.value_hidden)) *
                      sizeof(float)));

    conv(p.input_conv, x0, p.input_w, m.input.bias, x);

    if (!m.conv1.empty()) {
      memory y = mem(p.y_md, buf.y);
      const bool bf16 = m.precision == InferencePrecision::kBf16;
      memory yb = bf16 ? mem(p.yb_md, buf.yb) : y;
      float* y_data = static_cast<float*>(y.get_data_handle());
      uint16_t* yb_data = bf16 ? static_cast<uint16_t*>(yb.get_data_handle()) : nullptr;
      for (size_t b = 0; b < m.conv1.size(); ++b) {
        conv(p.conv1, x, p.conv1_w[b], m.conv1[b].bias, y);
        // The global pooling bias: y += pool_fc(mean over the ring of y).
        pooling_bias(y_data, yb_data, n, L, m.channels, m.pool_fc[b].weights(), loop_scratch);
        // x = relu(conv2(y) + x): the residual stream is the destination it sums into.
        conv(p.conv2, yb, p.conv2_w[b], m.conv2[b].bias, x);
      }
    }

    // Both heads' first convolution at once; the policy's channels come first in a cell.
    memory hh = mem(p.hh_md, buf.hh);
    conv(p.heads_conv, x, p.heads_w, m.heads_conv.bias, hh);
    stream.wait();  // the loops below read its output on this thread
    const HeadWeights hw{m.policy_w.data(), m.policy_b.data(),    m.policy_channels,
                         m.value_channels,  m.value_fc.weights(), m.head.weights()};
    heads_after_conv(static_cast<const float*>(hh.get_data_handle()), count, L, m.heads_conv.out(),
                     pits, hw, policy_out + first * pits, heads_out + first * m.head_outputs,
                     loop_scratch);
  }
}

// The forward on one thread with the convolutions of our own: chunks of 64 positions
// (no padding to a bucket: the kernels take any count), activations padded channels last.
void OnednnNetwork::forward_direct(const float* features, int64_t batch, int64_t L, int pits,
                                   float* policy_out, float* heads_out,
                                   FeatureLayout layout) const {
  const Impl& m = *impl_;
  struct Buffers {
    AlignedBuffer x0, x, y, hh, sums;
  };
  thread_local Buffers buf;
  const int64_t C = m.channels, rows = L + 2, H = m.heads_conv.out();
  const size_t per = size_t(kNumPlanes) * size_t(L);
  const int64_t chunk = kChunkPerThread;
  const bool cells_major = layout == FeatureLayout::kCellsMajor;
  for (int64_t first = 0; first < batch; first += chunk) {
    const int64_t n = std::min(chunk, batch - first);
    float* x0 = static_cast<float*>(buf.x0.get(size_t(n * rows * m.input_stride) * sizeof(float)));
    float* x = static_cast<float*>(buf.x.get(size_t(n * rows * C) * sizeof(float)));
    float* hh = static_cast<float*>(buf.hh.get(size_t(n * L * H) * sizeof(float)));
    features_to_padded(features + size_t(first) * per, x0, n, kNumPlanes, L, m.input_stride,
                       cells_major);
    zero_padding_rows(x, n, L, C);
    m.direct_input.run(x0, n, L, x + C, rows * C, DirectConvolution::Then::kRelu);
    if (!m.direct_conv1.empty()) {
      float* y = static_cast<float*>(buf.y.get(size_t(n * rows * C) * sizeof(float)));
      float* sums = static_cast<float*>(buf.sums.get(size_t(n * C) * sizeof(float)));
      zero_padding_rows(y, n, L, C);
      for (size_t b = 0; b < m.direct_conv1.size(); ++b) {
        std::memset(sums, 0, size_t(n * C) * sizeof(float));
        m.direct_conv1[b].run(x, n, L, y + C, rows * C, DirectConvolution::Then::kRelu, sums);
        direct_pooling_bias(y, n, L, C, sums, m.pool_fc[b].wt.data(), m.pool_fc[b].bias.data());
        m.direct_conv2[b].run(y, n, L, x + C, rows * C, DirectConvolution::Then::kAddRelu);
      }
    }
    m.direct_heads.run(x, n, L, hh, L * H, DirectConvolution::Then::kRelu);
    const DirectHeadWeights hw{m.policy_w.data(), m.policy_b.data(),    m.policy_channels,
                               m.value_channels,  m.value_fc.wt.data(), m.value_fc.bias.data(),
                               m.value_hidden,    m.head.w.data(),      m.head.bias.data(),
                               m.head_outputs};
    direct_heads(hh, n, L, H, pits, hw, policy_out + first * pits,
                 heads_out + first * m.head_outputs);
  }
}

#endif  // KZ_HAVE_ONEDNN

}  // namespace kz
