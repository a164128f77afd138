#include "nn/onednn_network.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

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
  throw std::invalid_argument("precision '" + text + "': expected auto, fp32 or bf16");
}

std::string to_string(InferencePrecision precision) {
  switch (precision) {
    case InferencePrecision::kAuto:
      return "auto";
    case InferencePrecision::kFp32:
      return "fp32";
    case InferencePrecision::kBf16:
      return "bf16";
  }
  return "?";
}

#ifndef KZ_HAVE_ONEDNN

bool onednn_compiled() {
  return false;
}
bool onednn_bf16_supported() {
  return false;
}

struct OnednnNetwork::Impl {};

OnednnNetwork::OnednnNetwork(const FoldedWeights&, InferencePrecision) {
  throw std::runtime_error("this build has no oneDNN (libdnnl-dev was not found)");
}
OnednnNetwork::~OnednnNetwork() = default;
NetOutput OnednnNetwork::forward(const torch::Tensor&, int) const {
  return {};
}
void OnednnNetwork::forward(const float*, int64_t, int64_t, int, float*, float*) const {}
int64_t OnednnNetwork::head_outputs() const {
  return 0;
}
InferencePrecision OnednnNetwork::precision() const {
  return InferencePrecision::kFp32;
}
std::string OnednnNetwork::implementation() const {
  return "";
}

#else

bool onednn_compiled() {
  return true;
}

bool onednn_bf16_supported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bf16") != 0;
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

// mean[n][c] = average over the ring of y[n][l][c] (channels last).
KZ_VECTOR_CLONES void ring_mean(const float* y, float* mean, int64_t n, int64_t length,
                                int64_t channels) {
  const float scale = 1.f / float(length);
  for (int64_t i = 0; i < n; ++i) {
    float* m = mean + i * channels;
    for (int64_t c = 0; c < channels; ++c) m[c] = 0.f;
    for (int64_t l = 0; l < length; ++l) {
      const float* row = y + (i * length + l) * channels;
      for (int64_t c = 0; c < channels; ++c) m[c] += row[c];
    }
    for (int64_t c = 0; c < channels; ++c) m[c] *= scale;
  }
}

// y[n][l][c] += bias[n][c], in place.
KZ_VECTOR_CLONES void add_ring_bias(float* y, const float* bias, int64_t n, int64_t length,
                                    int64_t channels) {
  for (int64_t i = 0; i < n; ++i) {
    const float* b = bias + i * channels;
    for (int64_t l = 0; l < length; ++l) {
      float* row = y + (i * length + l) * channels;
      for (int64_t c = 0; c < channels; ++c) row[c] += b[c];
    }
  }
}

// out[n][l][c] = bf16(y[n][l][c] + bias[n][c]).
KZ_VECTOR_CLONES void add_ring_bias_to_bf16(const float* y, const float* bias, uint16_t* out,
                                            int64_t n, int64_t length, int64_t channels) {
  for (int64_t i = 0; i < n; ++i) {
    const float* b = bias + i * channels;
    for (int64_t l = 0; l < length; ++l) {
      const float* row = y + (i * length + l) * channels;
      uint16_t* o = out + (i * length + l) * channels;
      for (int64_t c = 0; c < channels; ++c) o[c] = to_bf16(row[c] + b[c]);
    }
  }
}

// pooled[n] = [mean over the ring of v[n][.][c] for every c, then max over the ring],
// as the value head's torch::cat({v.mean(2), v.max(2)}, 1).
// Cell l of position i starts at v + (i * length + l) * stride.
KZ_VECTOR_CLONES void mean_max_pool(const float* v, float* pooled, int64_t n, int64_t length,
                                    int64_t channels, int64_t stride) {
  const float scale = 1.f / float(length);
  for (int64_t i = 0; i < n; ++i) {
    float* mean = pooled + i * 2 * channels;
    float* mx = mean + channels;
    const float* first = v + i * length * stride;
    for (int64_t c = 0; c < channels; ++c) mean[c] = mx[c] = first[c];
    for (int64_t l = 1; l < length; ++l) {
      const float* row = first + l * stride;
      for (int64_t c = 0; c < channels; ++c) {
        mean[c] += row[c];
        mx[c] = std::max(mx[c], row[c]);
      }
    }
    for (int64_t c = 0; c < channels; ++c) mean[c] *= scale;
  }
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

KZ_VECTOR_CLONES void planes_to_channels_last_bf16(const float* features, uint16_t* x0,
                                                   int64_t count, int64_t n, int64_t planes,
                                                   int64_t length) {
  for (int64_t i = 0; i < count; ++i) {
    const float* f = features + i * planes * length;
    uint16_t* o = x0 + i * planes * length;
    for (int64_t l = 0; l < length; ++l)
      for (int64_t c = 0; c < planes; ++c) o[l * planes + c] = to_bf16(f[c * length + l]);
  }
  std::memset(x0 + count * planes * length, 0, size_t((n - count) * planes * length) * 2);
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

// One layer's weights and bias as oneDNN memory, the weights in every layout a
// primitive asked for (one, in practice).
struct PackedLayer {
  FoldedLayer source;
  memory bias;
  std::vector<std::pair<memory::desc, memory> > weights;
  memory::desc source_desc;  // the weights as LibTorch holds them

  PackedLayer() = default;
  PackedLayer(const FoldedLayer& layer, bool convolution) {
    source.weight = layer.weight.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    source.bias = layer.bias.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    const auto& w = source.weight;
    if (convolution) {
      source_desc = memory::desc({w.size(0), w.size(1), w.size(2)}, dt::f32, tag::oiw);
    } else {
      // A matmul's weights are [in, out]; LibTorch's [out, in] is that, column-major.
      source_desc = memory::desc({w.size(1), w.size(0)}, dt::f32, tag::ba);
    }
    const memory::dims bias_dims =
        convolution ? memory::dims{w.size(0)} : memory::dims{1, w.size(0)};
    bias = memory(memory::desc(bias_dims, dt::f32, convolution ? tag::x : tag::ab), cpu_engine(),
                  source.bias.data_ptr<float>());
  }
  int64_t out() const { return source.weight.size(0); }
  int64_t in() const { return source.weight.size(1); }
  int64_t kernel() const { return source.weight.dim() == 3 ? source.weight.size(2) : 1; }

  // The weights in layout `want`, reordered once (callers hold the network's mutex).
  memory weights_as(const memory::desc& want) {
    for (auto& [desc, mem] : weights)
      if (desc == want) return mem;
    memory user(source_desc, cpu_engine(), source.weight.data_ptr<float>());
    memory packed(want, cpu_engine());
    dnnl::stream stream(cpu_engine());
    dnnl::reorder(user, packed).execute(stream, user, packed);
    stream.wait();
    weights.emplace_back(want, packed);
    return packed;
  }
};

struct OnednnNetwork::Impl {
  // The primitives for one batch bucket, and the weights in the layouts they want.
  struct Plan {
    int64_t n = 0;
    dnnl::convolution_forward input_conv, conv1, conv2, heads_conv;
    dnnl::matmul pool_fc, policy_out, value_fc, head;
    memory::desc x0_md, x_md, y_md, yb_md, mean_md, bias_md, hh_md, ph_rows_md, po_md, vp_md, vf_md,
        h_md;
    memory input_w;
    std::vector<memory> conv1_w, conv2_w, pool_w;
    memory heads_w, policy_out_w, value_fc_w, head_w;
    size_t scratchpad_bytes = 0;
  };

  InferencePrecision precision = InferencePrecision::kFp32;
  int64_t channels = 0, policy_channels = 0, value_channels = 0, value_hidden = 0;
  int64_t head_outputs = 0;  // 3 W/D/L + 1 margin + the score distribution's
  bool score = false;
  // The policy and value heads' first convolutions (both kernel 1, over the tower's
  // output) as one: their weights stacked, [policy + value channels, C, 1]; the policy's
  // channels come first in each cell of its output.
  PackedLayer input, heads_conv, policy_out, value_fc, head;
  std::vector<PackedLayer> conv1, conv2, pool_fc;
  std::string implementation;

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

  // `row_stride`: floats from one source row to the next (0: layer.in(), dense).
  dnnl::matmul::primitive_desc matmul_desc(int64_t rows, const PackedLayer& layer, bool relu,
                                           int64_t row_stride = 0) const {
    const memory::desc src_md({rows, layer.in()}, dt::f32,
                              memory::dims{row_stride > 0 ? row_stride : layer.in(), 1});
    const memory::desc dst_md({rows, layer.out()}, dt::f32, tag::ab);
    const dnnl::matmul::desc d(src_md, layer.source_desc, layer.bias.get_desc(), dst_md);
    return {d, attributes(false, relu), cpu_engine()};
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
      const auto pool_pd = track(matmul_desc(n, pool_fc[0], false));
      p->conv1 = dnnl::convolution_forward(conv1_pd);
      p->conv2 = dnnl::convolution_forward(conv2_pd);
      p->pool_fc = dnnl::matmul(pool_pd);
      for (size_t b = 0; b < conv1.size(); ++b) {
        p->conv1_w.push_back(conv1[b].weights_as(conv1_pd.weights_desc()));
        p->conv2_w.push_back(conv2[b].weights_as(conv2_pd.weights_desc()));
        p->pool_w.push_back(pool_fc[b].weights_as(pool_pd.weights_desc()));
      }
      p->y_md = conv1_pd.dst_desc();
      p->yb_md = conv2_pd.src_desc();
      p->mean_md = pool_pd.src_desc();
      p->bias_md = pool_pd.dst_desc();
      if (implementation.empty()) implementation = conv2_pd.impl_info_str();
    } else if (implementation.empty()) {
      implementation = input_pd.impl_info_str();
    }

    const auto heads_pd = track(conv_desc(n, length, heads_conv, act, dt::f32, false, true));
    p->heads_conv = dnnl::convolution_forward(heads_pd);
    p->heads_w = heads_conv.weights_as(heads_pd.weights_desc());
    p->hh_md = heads_pd.dst_desc();
    // The policy's channels of every cell: rows of that output, heads_conv.out() apart.
    const auto policy_out_pd = track(matmul_desc(n * length, policy_out, false, heads_conv.out()));
    p->policy_out = dnnl::matmul(policy_out_pd);
    p->policy_out_w = policy_out.weights_as(policy_out_pd.weights_desc());
    p->ph_rows_md = policy_out_pd.src_desc();
    p->po_md = policy_out_pd.dst_desc();
    const auto value_fc_pd = track(matmul_desc(n, value_fc, true));
    p->value_fc = dnnl::matmul(value_fc_pd);
    p->value_fc_w = value_fc.weights_as(value_fc_pd.weights_desc());
    p->vp_md = value_fc_pd.src_desc();
    p->vf_md = value_fc_pd.dst_desc();
    const auto head_pd = track(matmul_desc(n, head, false));
    p->head = dnnl::matmul(head_pd);
    p->head_w = head.weights_as(head_pd.weights_desc());
    p->h_md = head_pd.dst_desc();
    p->scratchpad_bytes = scratch;
    slot = std::move(p);
    return *slot;
  }
};

OnednnNetwork::OnednnNetwork(const FoldedWeights& w, InferencePrecision precision)
    : impl_(std::make_unique<Impl>()) {
  if (precision == InferencePrecision::kAuto)
    precision = onednn_bf16_supported() ? InferencePrecision::kBf16 : InferencePrecision::kFp32;
  if (precision == InferencePrecision::kBf16 && !onednn_bf16_supported())
    throw std::runtime_error("bf16 inference needs a CPU with avx512_bf16");
  Impl& m = *impl_;
  m.precision = precision;
  m.input = PackedLayer(w.input, true);
  for (const auto& b : w.tower) {
    m.conv1.emplace_back(b.conv1, true);
    m.conv2.emplace_back(b.conv2, true);
    m.pool_fc.emplace_back(b.pool_fc, false);
  }
  if (w.policy.weight.size(2) != 1 || w.value.weight.size(2) != 1)
    throw std::invalid_argument(
        "OnednnNetwork: the policy and value heads' convolutions must "
        "have kernel 1");
  m.heads_conv = PackedLayer({torch::cat({w.policy.weight, w.value.weight}, 0),
                              torch::cat({w.policy.bias, w.value.bias}, 0)},
                             true);
  m.policy_out = PackedLayer({w.policy_out.weight.reshape({1, -1}), w.policy_out.bias}, false);
  m.value_fc = PackedLayer(w.value_fc, false);
  // The W/D/L, margin and score outputs read the same hidden layer: one matmul of their
  // weights stacked, [3 + 1 + score, hidden].
  std::vector<torch::Tensor> weights{w.wdl.weight, w.margin.weight},
      biases{w.wdl.bias, w.margin.bias};
  m.score = w.score.weight.defined();
  if (m.score) {
    weights.push_back(w.score.weight);
    biases.push_back(w.score.bias);
  }
  m.head = PackedLayer({torch::cat(weights, 0), torch::cat(biases, 0)}, false);
  m.channels = m.input.out();
  m.policy_channels = w.policy.weight.size(0);
  m.value_channels = w.value.weight.size(0);
  m.value_hidden = m.value_fc.out();
  m.head_outputs = m.head.out();
}

OnednnNetwork::~OnednnNetwork() = default;

InferencePrecision OnednnNetwork::precision() const {
  return impl_->precision;
}

std::string OnednnNetwork::implementation() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->implementation;
}

int64_t OnednnNetwork::head_outputs() const {
  return impl_->head_outputs;
}

NetOutput OnednnNetwork::forward(const torch::Tensor& features, int pits) const {
  TORCH_CHECK(features.dim() == 3 && features.size(1) == kNumPlanes && features.device().is_cpu(),
              "OnednnNetwork::forward: features must be [B, kNumPlanes, L] on the CPU");
  const Impl& m = *impl_;
  const int64_t batch = features.size(0), L = features.size(2);
  torch::Tensor input = features.to(torch::kFloat32).contiguous();
  const auto options = torch::TensorOptions().dtype(torch::kFloat32);
  torch::Tensor policy = torch::empty({batch, pits}, options);
  torch::Tensor heads = torch::empty({batch, m.head_outputs}, options);
  forward(input.data_ptr<float>(), batch, L, pits, policy.data_ptr<float>(),
          heads.data_ptr<float>());
  NetOutput out{policy, heads.narrow(1, 0, 3), heads.select(1, 3), {}, {}};
  if (m.score) out.score_logits = heads.narrow(1, 4, m.head_outputs - 4);
  return out;
}

void OnednnNetwork::forward(const float* features, int64_t batch, int64_t L, int pits,
                            float* policy_out, float* heads_out) const {
  Impl& m = *impl_;
  // Debian's oneDNN runs on OpenMP, whose thread count is per calling thread (all cores
  // on a thread that never set it): give it LibTorch's (torch::set_num_threads) on every
  // thread. A primitive splits its work for the thread count it was created with and
  // starts that many threads whatever the caller's setting, so the plans are per count.
  const int threads = std::max(1, at::get_num_threads());
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);

  // Per-thread buffers, shared by every network this thread runs (calls never overlap
  // on one thread, and the outputs are copied out before returning).
  struct Buffers {
    AlignedBuffer x0, x, y, yb, mean, bias, hh, po, vp, vf, h, scratchpad;
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
    memory x0 = mem(p.x0_md, buf.x0), x = mem(p.x_md, buf.x);
    // Padded with zero positions up to the bucket.
    if (m.precision == InferencePrecision::kBf16)
      planes_to_channels_last_bf16(features + size_t(first) * per,
                                   static_cast<uint16_t*>(x0.get_data_handle()), count, n,
                                   kNumPlanes, L);
    else
      planes_to_channels_last(features + size_t(first) * per,
                              static_cast<float*>(x0.get_data_handle()), count, n, kNumPlanes, L);
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
    auto matmul = [&](dnnl::matmul& prim, memory& src, memory& weights, memory& bias, memory& dst) {
      prim.execute(stream, {{DNNL_ARG_SRC, src},
                            {DNNL_ARG_WEIGHTS, weights},
                            {DNNL_ARG_BIAS, bias},
                            {DNNL_ARG_DST, dst},
                            {DNNL_ARG_SCRATCHPAD, scratchpad}});
    };

    conv(p.input_conv, x0, p.input_w, m.input.bias, x);

    if (!m.conv1.empty()) {
      memory y = mem(p.y_md, buf.y);
      const bool bf16 = m.precision == InferencePrecision::kBf16;
      memory yb = bf16 ? mem(p.yb_md, buf.yb) : y;
      memory mean = mem(p.mean_md, buf.mean), bias = mem(p.bias_md, buf.bias);
      float* y_data = static_cast<float*>(y.get_data_handle());
      float* mean_data = static_cast<float*>(mean.get_data_handle());
      float* bias_data = static_cast<float*>(bias.get_data_handle());
      const int64_t C = m.channels;
      for (size_t b = 0; b < m.conv1.size(); ++b) {
        conv(p.conv1, x, p.conv1_w[b], m.conv1[b].bias, y);
        // The global pooling bias: y += pool_fc(mean over the ring of y).
        ring_mean(y_data, mean_data, n, L, C);
        matmul(p.pool_fc, mean, p.pool_w[b], m.pool_fc[b].bias, bias);
        if (bf16)
          add_ring_bias_to_bf16(y_data, bias_data, static_cast<uint16_t*>(yb.get_data_handle()), n,
                                L, C);
        else
          add_ring_bias(y_data, bias_data, n, L, C);
        // x = relu(conv2(y) + x): the residual stream is the destination it sums into.
        conv(p.conv2, yb, p.conv2_w[b], m.conv2[b].bias, x);
      }
    }

    // Both heads' first convolution at once; the policy's channels come first in a cell.
    memory hh = mem(p.hh_md, buf.hh), po = mem(p.po_md, buf.po);
    conv(p.heads_conv, x, p.heads_w, m.heads_conv.bias, hh);
    memory ph_rows(p.ph_rows_md, engine, hh.get_data_handle());
    matmul(p.policy_out, ph_rows, p.policy_out_w, m.policy_out.bias, po);

    memory vp = mem(p.vp_md, buf.vp), vf = mem(p.vf_md, buf.vf), h = mem(p.h_md, buf.h);
    stream.wait();  // the pooling below reads the value's channels on this thread
    mean_max_pool(static_cast<const float*>(hh.get_data_handle()) + m.policy_channels,
                  static_cast<float*>(vp.get_data_handle()), n, L, m.value_channels,
                  m.heads_conv.out());
    matmul(p.value_fc, vp, p.value_fc_w, m.value_fc.bias, vf);
    matmul(p.head, vf, p.head_w, m.head.bias, h);
    stream.wait();

    const float* po_data = static_cast<const float*>(po.get_data_handle());
    float* policy_data = policy_out + first * pits;
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(policy_data + i * pits, po_data + i * L, size_t(pits) * sizeof(float));
    std::memcpy(heads_out + first * m.head_outputs, h.get_data_handle(),
                size_t(count * m.head_outputs) * sizeof(float));
  }
}

#endif  // KZ_HAVE_ONEDNN

}  // namespace kz
