#include "nn/portable_network.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "nn/features.h"
#include "nn/portable_int_convolution.h"
#include "nn/portable_vector.h"

namespace kz {

namespace {

using portable::kBlockOutputs;
using portable::load;
using portable::store;
using portable::v4;

// A convolution with its weights as [kernel][in][out] (the output channels innermost),
// or a fully connected layer as a convolution of kernel 1.
struct Conv {
  int64_t in = 0, out = 0, kernel = 1;
  std::vector<float> w;         // [kernel][in][out]
  std::vector<float> b;         // [out]
  std::vector<float> zero_row;  // [in] zeros: run_blocked's cells outside the ring
  std::vector<float> winograd;  // [6][in][out]: G g (run_winograd), where made
  // Where set (kInt8), the layer runs through it instead (nn/portable_int_convolution.h).
  std::shared_ptr<const PortableIntConvolution> integer;

  Conv() = default;
  explicit Conv(const FoldedLayer& layer) {
    const PlainTensor& weight = layer.weight;
    if (weight.shape.size() < 2 || layer.bias.numel() != weight.size(0))
      throw std::invalid_argument("PortableNetwork: a layer's weight and bias do not match");
    out = weight.size(0);
    in = weight.size(1);
    kernel = weight.shape.size() == 3 ? weight.size(2) : 1;
    w.resize(size_t(kernel * in * out));
    for (int64_t o = 0; o < out; ++o)
      for (int64_t i = 0; i < in; ++i)
        for (int64_t k = 0; k < kernel; ++k)
          w[size_t((k * in + i) * out + o)] = weight.f32[size_t((o * in + i) * kernel + k)];
    b = layer.bias.f32;
    zero_row.assign(size_t(in), 0.f);
  }

  // y[l][o] = b[o] + sum over taps and inputs of x[l + k - kernel / 2][i] w[k][i][o], for
  // `length` cells of channels-last x (zero outside the ring's cells). kBlocked gives
  // run_scalar's floats to the bit but where make_winograd() was called (run_winograd).
  void run(const float* x, int64_t length, float* y, PortableKernels kernels) const {
    if (integer)
      integer->run(x, length, y, kernels);
    else if (kernels == PortableKernels::kBlocked && length == 1 && kernel == 1)
      run_one(x, y);
    else if (kernels == PortableKernels::kBlocked && kernel == 1 && out < 4)
      run_cells(x, length, y);
    else if (kernels == PortableKernels::kBlocked && out % kBlockOutputs == 0)
      winograd.empty() ? run_blocked(x, length, y) : run_winograd(x, length, y);
    else
      run_scalar(x, length, y);
  }

  void run_scalar(const float* x, int64_t length, float* y) const {
    const int64_t half = kernel / 2;
    for (int64_t l = 0; l < length; ++l) {
      float* out_row = y + l * out;
      std::copy(b.begin(), b.end(), out_row);
      for (int64_t k = 0; k < kernel; ++k) {
        const int64_t src = l + k - half;
        if (src < 0 || src >= length) continue;
        const float* in_row = x + src * in;
        const float* wk = w.data() + k * in * out;
        for (int64_t i = 0; i < in; ++i) {
          const float v = in_row[i];
          const float* wi = wk + i * out;
          for (int64_t o = 0; o < out; ++o) out_row[o] += v * wi[o];
        }
      }
    }
  }

  // One cell of a kernel-1 layer (the fully connected layers: the pooling bias's, the
  // value head's): the same sums in the same order as run_scalar's, so the same floats,
  // 32 outputs at a time in eight vectors (independent sums, so that the adds' latency
  // overlaps), then 4, then one; run_blocked would add a second cell of zeros.
  void run_one(const float* x, float* y) const {
    int64_t o0 = 0;
    for (; o0 + 32 <= out; o0 += 32) {
      const float* bo = b.data() + o0;
      v4 a[8];
      for (int64_t q = 0; q < 8; ++q) a[q] = load(bo + 4 * q);
      for (int64_t i = 0; i < in; ++i) {
        const float* wi = w.data() + i * out + o0;
        const v4 v = v4{} + x[i];
        for (int64_t q = 0; q < 8; ++q) a[q] += v * load(wi + 4 * q);
      }
      for (int64_t q = 0; q < 8; ++q) store(y + o0 + 4 * q, a[q]);
    }
    for (; o0 + 4 <= out; o0 += 4) {
      v4 a = load(b.data() + o0);
      for (int64_t i = 0; i < in; ++i) a += (v4{} + x[i]) * load(w.data() + i * out + o0);
      store(y + o0, a);
    }
    for (; o0 < out; ++o0) {
      float a = b[size_t(o0)];
      for (int64_t i = 0; i < in; ++i) a += x[i] * w[size_t(i * out + o0)];
      y[o0] = a;
    }
  }

  // A kernel-1 layer with fewer outputs than a vector holds (the policy's last layer, one
  // output a cell): four cells in a vector's lanes, each lane the same sum in the same
  // order as run_scalar's.
  void run_cells(const float* x, int64_t length, float* y) const {
    int64_t l = 0;
    for (; l + 4 <= length; l += 4) {
      const float* x0 = x + l * in;
      for (int64_t o = 0; o < out; ++o) {
        v4 a = v4{} + b[size_t(o)];
        for (int64_t i = 0; i < in; ++i)
          a += v4{x0[i], x0[in + i], x0[2 * in + i], x0[3 * in + i]} * w[size_t(i * out + o)];
        for (int k = 0; k < 4; ++k) y[(l + k) * out + o] = a[k];
      }
    }
    for (; l < length; ++l)
      for (int64_t o = 0; o < out; ++o) {
        float a = b[size_t(o)];
        for (int64_t i = 0; i < in; ++i) a += x[l * in + i] * w[size_t(i * out + o)];
        y[l * out + o] = a;
      }
  }

  // The same sums in the same order (so the same floats, to the bit), with two cells by
  // kBlockOutputs outputs kept in sixteen-byte vectors across all taps and inputs: the
  // scalar loop loads and stores its outputs once per input, which is most of its time
  // where the vectors are short (WebAssembly's 128 bits). Two cells share each weight
  // load; 8 accumulators, 4 weights and 2 broadcasts fit the 16 vector registers that
  // x86-64 gives WebAssembly engines.
  void run_blocked(const float* x, int64_t length, float* y) const {
    const int64_t half = kernel / 2;
    const float* zeros = zero_row.data();  // a cell outside the ring
    for (int64_t o0 = 0; o0 < out; o0 += kBlockOutputs) {
      const v4 bias[4] = {load(&b[size_t(o0)]), load(&b[size_t(o0 + 4)]), load(&b[size_t(o0 + 8)]),
                          load(&b[size_t(o0 + 12)])};
      for (int64_t l = 0; l < length; l += 2) {
        const bool second = l + 1 < length;
        v4 a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3];
        v4 c0 = bias[0], c1 = bias[1], c2 = bias[2], c3 = bias[3];
        for (int64_t k = 0; k < kernel; ++k) {
          const int64_t s0 = l + k - half, s1 = s0 + 1;
          const bool in0 = s0 >= 0 && s0 < length, in1 = second && s1 >= 0 && s1 < length;
          if (!in0 && !in1) continue;
          // A cell outside the ring reads zeros: adding 0 * w leaves every sum as the
          // scalar loop, which skips it, leaves it (x + 0 == x, finite weights).
          const float* r0 = in0 ? x + s0 * in : zeros;
          const float* r1 = in1 ? x + s1 * in : zeros;
          const float* wk = w.data() + k * in * out + o0;
          for (int64_t i = 0; i < in; ++i) {
            const float* wi = wk + i * out;
            const v4 w0 = load(wi), w1 = load(wi + 4), w2 = load(wi + 8), w3 = load(wi + 12);
            const v4 v0 = v4{} + r0[i], v1 = v4{} + r1[i];
            a0 += v0 * w0, a1 += v0 * w1, a2 += v0 * w2, a3 += v0 * w3;
            c0 += v1 * w0, c1 += v1 * w1, c2 += v1 * w2, c3 += v1 * w3;
          }
        }
        float* y0 = y + l * out + o0;
        store(y0, a0), store(y0 + 4, a1), store(y0 + 8, a2), store(y0 + 12, a3);
        if (second) {
          float* y1 = y0 + out;
          store(y1, c0), store(y1 + 4, c1), store(y1 + 8, c2), store(y1 + 12, c3);
        }
      }
    }
  }

  // Winograd F(4,3) along the row, for the input convolution (kernel 3): each tile of 4
  // output cells from the 6 input cells x[4t - 1 .. 4t + 4] (0 outside the ring) in 6
  // products per input and output instead of 12, y = A^T [(G g) . (B^T d)] (Lavin and
  // Gray's matrices), the weights' G g made once (in double, then rounded), the inputs'
  // B^T d once per tile. Not the plain loop's floats: its rounding bound is
  // tests/infer_plain_model_test.cpp's. Under WebAssembly 1.9 us a position against 5.0 us
  // for the kernel it replaced (the same loop over each cell's non-zero features only);
  // natively both 2.1 us.
  void make_winograd() {
    if (kernel != 3) return;
    static constexpr double G[6][3] = {{1 / 4., 0, 0},
                                       {-1 / 6., -1 / 6., -1 / 6.},
                                       {-1 / 6., 1 / 6., -1 / 6.},
                                       {1 / 24., 1 / 12., 1 / 6.},
                                       {1 / 24., -1 / 12., 1 / 6.},
                                       {0, 0, 1}};
    winograd.resize(size_t(6 * in * out));
    for (int64_t e = 0; e < 6; ++e)
      for (int64_t i = 0; i < in; ++i)
        for (int64_t o = 0; o < out; ++o) {
          double sum = 0;
          for (int64_t k = 0; k < 3; ++k)
            sum += G[e][k] * double(w[size_t((k * in + i) * out + o)]);
          winograd[size_t((e * in + i) * out + o)] = float(sum);
        }
  }

  void run_winograd(const float* x, int64_t length, float* y) const {
    const int64_t tiles = (length + 3) / 4;
    thread_local std::vector<float> v;  // [tiles][6][in]: B^T d
    v.resize(size_t(tiles * 6 * in));
    const float* zeros = zero_row.data();
    for (int64_t t = 0; t < tiles; ++t) {
      const float* d[6];
      for (int64_t j = 0; j < 6; ++j) {
        const int64_t src = 4 * t - 1 + j;
        d[j] = src >= 0 && src < length ? x + src * in : zeros;
      }
      float* vt = v.data() + t * 6 * in;
      for (int64_t i = 0; i < in; ++i) {
        const float d0 = d[0][i], d1 = d[1][i], d2 = d[2][i], d3 = d[3][i], d4 = d[4][i],
                    d5 = d[5][i];
        vt[i] = 4 * d0 - 5 * d2 + d4;
        vt[in + i] = -4 * (d1 + d2) + d3 + d4;
        vt[2 * in + i] = 4 * (d1 - d2) - d3 + d4;
        vt[3 * in + i] = 2 * (d3 - d1) - d2 + d4;
        vt[4 * in + i] = 2 * (d1 - d3) - d2 + d4;
        vt[5 * in + i] = 4 * d1 - 5 * d3 + d5;
      }
    }
    for (int64_t o0 = 0; o0 < out; o0 += kBlockOutputs) {
      int64_t t = 0;
      for (; t + 2 <= tiles; t += 2) winograd_tiles<2>(v.data(), t, o0, length, y);
      if (t < tiles) winograd_tiles<1>(v.data(), t, o0, length, y);
    }
  }

  // `Tiles` (1 or 2) tiles from t by kBlockOutputs outputs from o0: for each of the 6
  // elements, the products' sums over the inputs in Tiles x 4 vectors (two tiles share
  // each weight load, as run_blocked's two cells), then A^T and the bias.
  template <int Tiles>
  void winograd_tiles(const float* v, int64_t t, int64_t o0, int64_t length, float* y) const {
    v4 m[Tiles][6][4];
    for (int64_t e = 0; e < 6; ++e) {
      v4 a[Tiles][4] = {};
      const float* we = winograd.data() + e * in * out + o0;
      const float* x0 = v + (t * 6 + e) * in;
      for (int64_t i = 0; i < in; ++i) {
        const float* wi = we + i * out;
        const v4 w0 = load(wi), w1 = load(wi + 4), w2 = load(wi + 8), w3 = load(wi + 12);
        for (int s = 0; s < Tiles; ++s) {
          const v4 d = v4{} + x0[s * 6 * in + i];
          a[s][0] += d * w0, a[s][1] += d * w1, a[s][2] += d * w2, a[s][3] += d * w3;
        }
      }
      for (int s = 0; s < Tiles; ++s)
        for (int q = 0; q < 4; ++q) m[s][e][q] = a[s][q];
    }
    for (int s = 0; s < Tiles; ++s) {
      const int64_t l0 = 4 * (t + s);
      for (int q = 0; q < 4; ++q) {
        const v4(&e)[6][4] = m[s];
        const v4 bias = load(b.data() + o0 + 4 * q);
        const v4 p = e[1][q] + e[2][q], n = e[1][q] - e[2][q];
        const v4 p2 = e[3][q] + e[4][q], n2 = e[3][q] - e[4][q];
        const v4 r[4] = {bias + (e[0][q] + p + p2), bias + (n + 2 * n2), bias + (p + 4 * p2),
                         bias + (n + 8 * n2 + e[5][q])};
        for (int64_t k = 0; k < 4 && l0 + k < length; ++k)
          store(y + (l0 + k) * out + o0 + 4 * q, r[k]);
      }
    }
  }
};

void relu(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = std::max(x[i], 0.f);
}

}  // namespace

struct PortableNetwork::Impl {
  Conv input;
  struct Block {
    Conv conv1, conv2, pool_fc;
  };
  std::vector<Block> tower;
  Conv policy, policy_out, value, value_fc, head;  // head: W/D/L, margin, score stacked
  int64_t channels = 0, head_outputs = 0;
  PortableKernels kernels = PortableKernels::kBlocked;
  InferencePrecision precision = InferencePrecision::kFp32;
};

namespace {

// The input convolution and the residual tower on one position: `in` [L][kNumPlanes]
// into `x` [L][C]; y, z, pooled and hidden are work buffers (sized by the caller).
void tower(const PortableNetwork::Impl& m, const float* in, int64_t L, float* x,
           std::vector<float>& y, std::vector<float>& z, std::vector<float>& pooled,
           std::vector<float>& hidden) {
  const int64_t C = m.channels;
  const PortableKernels K = m.kernels;
  m.input.run(in, L, x, K);
  relu(x, L * C);
  for (const PortableNetwork::Impl::Block& b : m.tower) {
    b.conv1.run(x, L, y.data(), K);
    // The global pooling bias: the mean over the ring through pool_fc, added to every
    // cell; the ReLU in the same pass as the sums (the same sums in the same order).
    float* sum = pooled.data();
    std::fill(sum, sum + C, 0.f);
    for (int64_t l = 0; l < L; ++l) {
      float* yl = y.data() + l * C;
      for (int64_t c = 0; c < C; ++c) {
        yl[c] = std::max(yl[c], 0.f);
        sum[c] += yl[c];
      }
    }
    for (int64_t c = 0; c < C; ++c) sum[c] /= float(L);
    b.pool_fc.run(pooled.data(), 1, hidden.data(), K);
    for (int64_t l = 0; l < L; ++l)
      for (int64_t c = 0; c < C; ++c) y[size_t(l * C + c)] += hidden[size_t(c)];
    b.conv2.run(y.data(), L, z.data(), K);
    for (int64_t i = 0; i < L * C; ++i) x[i] = std::max(x[i] + z[size_t(i)], 0.f);
  }
}

}  // namespace

void PortableNetwork::trunk(const float* features, int64_t L, float* out) const {
  const Impl& m = *impl_;
  thread_local std::vector<float> y, z, pooled, hidden;
  y.resize(size_t(L * m.channels));
  z.resize(size_t(L * m.channels));
  pooled.resize(size_t(m.channels));
  hidden.resize(size_t(m.channels));
  tower(m, features, L, out, y, z, pooled, hidden);
}

int64_t PortableNetwork::channels() const {
  return impl_->channels;
}

PortableNetwork::PortableNetwork(const FoldedWeights& w, PortableKernels kernels,
                                 InferencePrecision precision)
    : impl_(std::make_unique<Impl>()) {
  if (precision == InferencePrecision::kAuto) precision = InferencePrecision::kFp32;
  if (precision == InferencePrecision::kBf16)
    throw std::invalid_argument("PortableNetwork: runs fp32 or int8, not bf16");
  Impl& m = *impl_;
  m.kernels = kernels;
  m.precision = precision;
  const bool integer = precision == InferencePrecision::kInt8;
  // kInt8: the tower's convolutions in integers (nearly all of the arithmetic). The input
  // convolution stays fp32: its features mix 0/1 planes with counts of up to several
  // (kPlaneCount, captures) and fine fractions (stores / 81, laps / 18), which one u8
  // scale per position rounds away (quantised, it carried half of the forward's
  // difference from fp32: mean |win - loss| 0.0071 against 0.0033 without, togyz.pt);
  // and the pooling bias's and the heads' small layers stay fp32.
  const auto conv = [&](const FoldedLayer& layer) {
    Conv c(layer);
    if (integer) c.integer = std::make_shared<const PortableIntConvolution>(layer);
    return c;
  };
  m.input = Conv(w.input);
  m.input.make_winograd();
  m.channels = m.input.out;
  if (m.input.in != kNumPlanes)
    throw std::invalid_argument(
        "PortableNetwork: the input convolution does not read the features");
  for (const auto& b : w.tower) {
    m.tower.push_back({conv(b.conv1), conv(b.conv2), Conv(b.pool_fc)});
    const Impl::Block& k = m.tower.back();
    if (k.conv1.in != m.channels || k.conv1.out != m.channels || k.conv2.out != m.channels ||
        k.pool_fc.in != m.channels || k.pool_fc.out != m.channels)
      throw std::invalid_argument("PortableNetwork: a residual block's widths do not chain");
  }
  m.policy = Conv(w.policy);
  m.policy_out = Conv(w.policy_out);
  m.value = Conv(w.value);
  m.value_fc = Conv(w.value_fc);
  if (m.policy.kernel != 1 || m.value.kernel != 1 || m.policy_out.out != 1 ||
      m.value_fc.in != 2 * m.value.out)
    throw std::invalid_argument("PortableNetwork: the heads' shapes do not chain");
  // The W/D/L, margin and score outputs stacked into one layer, in that order.
  FoldedLayer head;
  head.weight.shape = {0, w.wdl.weight.size(1)};
  for (const FoldedLayer* part : {&w.wdl, &w.margin, &w.score}) {
    if (!part->weight.defined()) continue;
    head.weight.shape[0] += part->weight.size(0);
    head.weight.f32.insert(head.weight.f32.end(), part->weight.f32.begin(), part->weight.f32.end());
    head.bias.f32.insert(head.bias.f32.end(), part->bias.f32.begin(), part->bias.f32.end());
  }
  head.bias.shape = {head.weight.size(0)};
  m.head = Conv(head);
  m.head_outputs = m.head.out;
}

PortableNetwork::~PortableNetwork() = default;

int64_t PortableNetwork::head_outputs() const {
  return impl_->head_outputs;
}

InferencePrecision PortableNetwork::precision() const {
  return impl_->precision;
}

void PortableNetwork::forward(const float* features, int64_t batch, int64_t L, int pits,
                              float* policy_out, float* heads_out, FeatureLayout layout) const {
  const Impl& m = *impl_;
  const int64_t C = m.channels, P = m.policy.out, V = m.value.out;
  thread_local std::vector<float> in, x, y, z, pooled, hidden, p, v, pv;
  in.resize(size_t(L * kNumPlanes));
  x.resize(size_t(L * C));
  y.resize(size_t(L * C));
  z.resize(size_t(L * C));
  pooled.resize(size_t(std::max<int64_t>(2 * V, C)));
  hidden.resize(size_t(std::max<int64_t>(m.value_fc.out, C)));
  p.resize(size_t(L * P));
  v.resize(size_t(L * V));
  pv.resize(size_t(L));
  const size_t per = size_t(kNumPlanes * L);
  for (int64_t n = 0; n < batch; ++n) {
    const float* f = features + n * per;
    if (layout == FeatureLayout::kCellsMajor) {
      std::copy(f, f + per, in.begin());
    } else {
      for (int64_t c = 0; c < kNumPlanes; ++c)
        for (int64_t l = 0; l < L; ++l) in[size_t(l * kNumPlanes + c)] = f[c * L + l];
    }
    tower(m, in.data(), L, x.data(), y, z, pooled, hidden);
    // Policy: the mover's `pits` cells.
    m.policy.run(x.data(), L, p.data(), m.kernels);
    relu(p.data(), L * P);
    m.policy_out.run(p.data(), L, pv.data(), m.kernels);
    std::copy(pv.begin(), pv.begin() + pits, policy_out + n * pits);
    // Value: mean- and max-pooled over the ring, then the hidden layer and the outputs.
    // Cell by cell, the channels innermost (contiguous, so in vectors), the ReLU in the
    // same pass: each channel's sum in the same order as one channel at a time.
    m.value.run(x.data(), L, v.data(), m.kernels);
    float *sum = pooled.data(), *top = pooled.data() + V;
    for (int64_t c = 0; c < V; ++c) sum[c] = 0, top[c] = std::max(v[size_t(c)], 0.f);
    for (int64_t l = 0; l < L; ++l) {
      const float* vl = v.data() + l * V;
      for (int64_t c = 0; c < V; ++c) {
        const float a = std::max(vl[c], 0.f);
        sum[c] += a;
        top[c] = std::max(top[c], a);
      }
    }
    for (int64_t c = 0; c < V; ++c) sum[c] /= float(L);
    m.value_fc.run(pooled.data(), 1, hidden.data(), m.kernels);
    relu(hidden.data(), m.value_fc.out);
    m.head.run(hidden.data(), 1, heads_out + n * m.head_outputs, m.kernels);
  }
}

}  // namespace kz
