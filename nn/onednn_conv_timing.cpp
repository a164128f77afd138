#include "nn/onednn_conv_timing.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <random>

#ifdef KZ_HAVE_ONEDNN
#include <omp.h>

#include <dnnl.hpp>
#endif

namespace kz {

#ifndef KZ_HAVE_ONEDNN

std::vector<ConvolutionTiming> time_onednn_tower_convolutions(int64_t, int64_t, int64_t, double) {
  return {};
}

#else

namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

// One precision's convolution, its memory filled with small values of its type.
struct TimedConvolution {
  std::string precision;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  memory src, weights, bias, dst, scratchpad;

  void run(dnnl::stream& stream) {
    conv.execute(stream, {{DNNL_ARG_SRC, src},
                          {DNNL_ARG_WEIGHTS, weights},
                          {DNNL_ARG_BIAS, bias},
                          {DNNL_ARG_DST, dst},
                          {DNNL_ARG_SCRATCHPAD, scratchpad}});
    stream.wait();
  }
};

// Fills `m` (of its descriptor's type) with values a network's layer might hold.
void fill(memory& m, dt type, std::mt19937& rng) {
  const size_t bytes = m.get_desc().get_size();
  auto* p = static_cast<unsigned char*>(m.get_data_handle());
  std::uniform_int_distribution<int> byte(0, 255);
  switch (type) {
    case dt::f32: {
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      for (size_t i = 0; i < bytes / 4; ++i) reinterpret_cast<float*>(p)[i] = u(rng);
      break;
    }
    case dt::bf16:  // the high half of a float in [-1, 1)
    {
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      for (size_t i = 0; i < bytes / 2; ++i) {
        const float f = u(rng);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        reinterpret_cast<uint16_t*>(p)[i] = uint16_t(bits >> 16);
      }
      break;
    }
    default:  // u8 and s8: any byte
      for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(byte(rng));
  }
}

std::unique_ptr<TimedConvolution> make(const std::string& precision, int64_t n, int64_t length,
                                       int64_t channels, const dnnl::engine& engine,
                                       std::mt19937& rng) {
  const bool int8 = precision == "int8";
  const dt act = int8 ? dt::u8 : precision == "bf16" ? dt::bf16 : dt::f32;
  const dt wei = int8 ? dt::s8 : act;
  const memory::desc src_md({n, channels, length}, act, tag::nwc);
  const memory::desc weights_md({channels, channels, 3}, wei, tag::any);
  const memory::desc bias_md({channels}, dt::f32, tag::x);
  const memory::desc dst_md({n, channels, length}, act, tag::nwc);
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_direct, src_md, weights_md,
                                          bias_md, dst_md, {1}, {1}, {1});
  dnnl::post_ops ops;
  ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  // The s32 sums back to the next layer's u8 scale (one scale for the whole tensor).
  if (int8) attr.set_output_scales(0, {1.f / 64});
  auto t = std::make_unique<TimedConvolution>();
  t->precision = precision;
  try {
    t->pd = dnnl::convolution_forward::primitive_desc(d, attr, engine);
  } catch (const dnnl::error&) {
    return nullptr;  // oneDNN has no kernel for it here
  }
  // Only the kernels a network would be built on: a reference loop says the CPU lacks it.
  if (std::string(t->pd.impl_info_str()).find("ref") != std::string::npos) return nullptr;
  t->conv = dnnl::convolution_forward(t->pd);
  t->src = memory(t->pd.src_desc(), engine);
  t->weights = memory(t->pd.weights_desc(), engine);
  t->bias = memory(t->pd.bias_desc(), engine);
  t->dst = memory(t->pd.dst_desc(), engine);
  t->scratchpad = memory(t->pd.scratchpad_desc(), engine);
  fill(t->src, act, rng);
  fill(t->weights, wei, rng);
  fill(t->bias, dt::f32, rng);
  return t;
}

}  // namespace

std::vector<ConvolutionTiming> time_onednn_tower_convolutions(int64_t positions, int64_t length,
                                                              int64_t channels, double seconds) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::mt19937 rng(17);
  // One thread, as the forward of a search runs (oneDNN's OpenMP count is the caller's).
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(1);
  std::vector<std::unique_ptr<TimedConvolution> > convs;
  for (const char* precision : {"fp32", "bf16", "int8"})
    if (auto t = make(precision, positions, length, channels, engine, rng))
      convs.push_back(std::move(t));
  using Clock = std::chrono::steady_clock;
  std::vector<double> busy(convs.size(), 0);
  std::vector<int64_t> calls(convs.size(), 0);
  const int rounds = 6;
  const double share = convs.empty() ? 0 : seconds / double(convs.size()) / rounds;
  for (auto& c : convs) c->run(stream);  // first calls (page faults, caches) untimed
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < convs.size(); ++i) {
      const auto t0 = Clock::now();
      double elapsed = 0;
      do {
        convs[i]->run(stream);
        ++calls[i];
        elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
      } while (elapsed < share);
      busy[i] += elapsed;
    }
  omp_set_num_threads(threads_before);
  const double flops = 2.0 * double(positions * length) * double(3 * channels) * double(channels);
  std::vector<ConvolutionTiming> out;
  for (size_t i = 0; i < convs.size(); ++i) {
    const double rate = double(calls[i]) / busy[i];
    out.push_back({convs[i]->precision, convs[i]->pd.impl_info_str(), rate, rate * flops / 1e9});
  }
  return out;
}

#endif

}  // namespace kz
