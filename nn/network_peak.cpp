#include "nn/network_peak.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nn/cpu_peak.h"
#include "nn/direct_convolution.h"
#include "nn/features.h"
#include "nn/inference_network.h"
#include "nn/network_flops.h"
#include "nn/onednn_conv_timing.h"

namespace kz {

double round_to(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(x * scale) / scale;
}

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Calls of `f` per second over about `seconds` (after two warm-up calls), on the
// calling thread.
template <typename F>
double calls_per_second(F f, double seconds) {
  f();
  f();
  int64_t calls = 0;
  const auto t0 = Clock::now();
  while (since(t0) < seconds) {
    f();
    ++calls;
  }
  return double(calls) / since(t0);
}

// CPU seconds of the calling thread so far: on a machine shared with other work a
// wall-clock rate measures the share of the cores this process got; a rate per CPU
// second measures the code.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// `gflops` as a fraction of `peak` GFLOP/s, rounded; null where the peak is unknown.
nlohmann::ordered_json fraction_of_peak(double gflops, double peak) {
  return peak > 0 ? nlohmann::ordered_json(round_to(gflops / peak, 3))
                  : nlohmann::ordered_json(nullptr);
}

// One kernel-3 tower convolution of `net`'s width at `batch` positions of `L` cells,
// as a matrix product, through torch::conv1d and through oneDNN's convolutions.
void add_convolution_rates(nlohmann::ordered_json& j, const Network& net, int64_t batch, int64_t L,
                           const torch::Device& device, bool onednn, double seconds, double peak) {
  const int64_t C = net->config.channels;
  auto of_peak = [peak](double gflops) { return fraction_of_peak(gflops, peak); };
  // One kernel-3 tower convolution: [B*L, 3C] x [3C, C] as a matrix product, and the
  // same through conv1d on [B, C, L]; 2 FLOPs per multiply-add.
  const double conv_flops = 2.0 * double(batch * L) * double(3 * C) * double(C);
  const auto fopt = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  const torch::Tensor columns = torch::randn({batch * L, 3 * C}, fopt);
  const torch::Tensor weights = torch::randn({3 * C, C}, fopt);
  const double mm_rate = calls_per_second([&] { torch::mm(columns, weights); }, 0.5);
  const torch::Tensor activations = torch::randn({batch, C, L}, fopt);
  const torch::Tensor kernel = torch::randn({C, C, 3}, fopt);
  const double conv_rate =
      calls_per_second([&] { torch::conv1d(activations, kernel, {}, 1, 1); }, 0.5);
  // Appended, not "[" + ...: GCC 12 warns falsely (-Wrestrict) about that form.
  std::string shape = "[";
  shape += std::to_string(batch * L) + " x " + std::to_string(3 * C) + "] x [" +
           std::to_string(3 * C) + " x " + std::to_string(C) + "]";
  j["conv_matmul_shape"] = shape;
  j["conv_matmul_gflops"] = round_to(mm_rate * conv_flops / 1e9, 2);
  j["conv_matmul_of_peak"] = of_peak(mm_rate * conv_flops / 1e9);
  j["conv1d_gflops"] = round_to(conv_rate * conv_flops / 1e9, 2);
  j["conv1d_of_peak"] = of_peak(conv_rate * conv_flops / 1e9);
  {
    const std::vector<ConvolutionTiming> timings =
        onednn ? time_onednn_tower_convolutions(64, L, C, std::max(0.3, seconds / 5))
               : std::vector<ConvolutionTiming>{};
    auto find = [&](const std::string& precision) -> const ConvolutionTiming* {
      for (const auto& t : timings)
        if (t.precision == precision) return &t;
      return nullptr;
    };
    for (const std::string precision : {"fp32", "bf16", "int8"}) {
      const ConvolutionTiming* t = find(precision);
      const std::string key = "onednn_conv_" + precision;
      j[key + "_gflops"] = t ? nlohmann::ordered_json(round_to(t->gflops, 2)) : nullptr;
      j[key + "_implementation"] = t ? nlohmann::ordered_json(t->implementation) : nullptr;
    }
    const ConvolutionTiming* int8 = find("int8");
    for (const std::string other : {"bf16", "fp32"}) {
      const ConvolutionTiming* t = find(other);
      j["onednn_conv_int8_over_" + other] =
          int8 && t ? nlohmann::ordered_json(round_to(int8->calls_per_s / t->calls_per_s, 3))
                    : nullptr;
    }
  }
}

// The forwards through oneDNN where it runs, each with its name: every precision this
// CPU has, each by the default convolutions and by the others where they can run.
using NamedForwards = std::vector<std::pair<std::string, std::unique_ptr<InferenceNetwork>>>;
NamedForwards fast_forwards(const Network& net, const torch::Device& device, bool onednn) {
  NamedForwards fast;
  if (onednn) {
    std::vector<std::pair<std::string, InferencePrecision>> precisions{
        {"fp32", InferencePrecision::kFp32}};
    if (onednn_bf16_supported()) precisions.emplace_back("bf16", InferencePrecision::kBf16);
    for (const auto& [name, precision] : precisions) {
      fast.emplace_back(name,
                        std::make_unique<InferenceNetwork>(
                            net, device, InferenceOptions{InferenceBackend::kOneDnn, precision}));
      // The other convolutions beside the default's: oneDNN's where it runs ours, ours
      // where they can run and it runs oneDNN's.
      const OnednnNetwork* chosen = fast.back().second->onednn();
      if (!chosen) continue;
      try {
        const bool direct = chosen->direct();
        fast.emplace_back(name + (direct ? "-onednn-kernels" : "-direct"),
                          std::make_unique<InferenceNetwork>(
                              net, device,
                              InferenceOptions{InferenceBackend::kOneDnn, precision,
                                               direct ? ConvolutionKernels::kOneDnn
                                                      : ConvolutionKernels::kDirect}));
      } catch (const std::runtime_error&) {
        // This CPU or network cannot run ours: the keys below stay null.
      }
    }
    // int8 (our kernels only, where the CPU has VNNI and the network's widths suit them).
    if (direct_int8_supported()) {
      try {
        fast.emplace_back(
            "int8", std::make_unique<InferenceNetwork>(
                        net, device,
                        InferenceOptions{InferenceBackend::kOneDnn, InferencePrecision::kInt8}));
      } catch (const std::runtime_error&) {
        // The keys below stay null.
      }
    }
  }
  return fast;
}

// The forward folded, unfolded and through oneDNN, alternated.
void add_forward_rates(nlohmann::ordered_json& j, const Network& net, const torch::Tensor& input,
                       int pits, const torch::Device& device, bool onednn, double seconds,
                       const PeakMeasurement& fp32, const PeakMeasurement& bf16) {
  const int64_t batch = input.size(0), L = input.size(2);
  auto of_peak = [peak = fp32.gflops](double gflops) { return fraction_of_peak(gflops, peak); };
  // The forward every way, in alternating rounds so that a change in the machine's
  // load falls on all.
  const InferenceNetwork folded(net, device, InferenceOptions{InferenceBackend::kLibTorch}),
      unfolded(net, device, InferenceOptions{InferenceBackend::kReference});
  const auto fast = fast_forwards(net, device, onednn);
  const double flops = double(forward_flops_per_position(net->config, int(L)));
  double folded_calls = 0, unfolded_calls = 0;
  std::vector<double> fast_calls(fast.size(), 0);
  const int rounds = 6;
  const double share = seconds / double(2 + fast.size()) / rounds;
  for (int r = 0; r < rounds; ++r) {
    folded_calls +=
        calls_per_second([&] { folded.forward(input, pits).policy_logits.to(torch::kCPU); }, share);
    unfolded_calls += calls_per_second(
        [&] { unfolded.forward(input, pits).policy_logits.to(torch::kCPU); }, share);
    for (size_t f = 0; f < fast.size(); ++f)
      fast_calls[f] += calls_per_second(
          [&] { fast[f].second->forward(input, pits).policy_logits.to(torch::kCPU); }, share);
  }
  const double folded_rate = folded_calls / rounds * double(batch);
  const double unfolded_rate = unfolded_calls / rounds * double(batch);
  j["folded_net_evals_per_s"] = std::round(folded_rate);
  j["unfolded_net_evals_per_s"] = std::round(unfolded_rate);
  j["fold_speedup"] = round_to(folded_rate / unfolded_rate, 3);
  j["folded_net_gflops"] = round_to(folded_rate * flops / 1e9, 2);
  j["unfolded_net_gflops"] = round_to(unfolded_rate * flops / 1e9, 2);
  j["folded_net_of_peak"] = of_peak(folded_rate * flops / 1e9);
  j["unfolded_net_of_peak"] = of_peak(unfolded_rate * flops / 1e9);
  // Each precision's forward through oneDNN's kernels and through ours, where both can
  // run (whichever the default is): each one's rate and fraction of the peak, and ours
  // over theirs (null where only one runs).
  for (const std::string precision : {"fp32", "bf16"}) {
    size_t onednn_kernels = fast.size(), direct = fast.size();
    for (size_t i = 0; i < fast.size(); ++i)
      if ((fast[i].first == precision || fast[i].first.starts_with(precision + "-")) &&
          fast[i].second->onednn())
        (fast[i].second->onednn()->direct() ? direct : onednn_kernels) = i;
    const std::string theirs_key = "onednn_kernels_" + precision + "_net_",
                      ours_key = "direct_" + precision + "_net_",
                      ratio_key = precision == "fp32" ? "direct_over_onednn_kernels"
                                                      : "direct_bf16_over_onednn_kernels";
    if (onednn_kernels == fast.size() || direct == fast.size()) {
      for (const std::string& k : {theirs_key + "evals_per_s", theirs_key + "of_peak",
                                   ours_key + "evals_per_s", ours_key + "of_peak", ratio_key})
        j[k] = nullptr;
      continue;
    }
    const double theirs = fast_calls[onednn_kernels] / rounds * double(batch),
                 ours = fast_calls[direct] / rounds * double(batch);
    j[theirs_key + "evals_per_s"] = std::round(theirs);
    j[theirs_key + "of_peak"] = of_peak(theirs * flops / 1e9);
    j[ours_key + "evals_per_s"] = std::round(ours);
    j[ours_key + "of_peak"] = of_peak(ours * flops / 1e9);
    j[ratio_key] = round_to(ours / theirs, 3);
  }
  for (const std::string precision : {"fp32", "bf16", "int8"}) {
    const std::string key = "onednn_" + precision + "_";
    size_t f = 0;
    while (f < fast.size() && fast[f].first != precision) ++f;
    if (f == fast.size()) {
      for (const char* k : {"net_evals_per_s", "net_gflops", "net_of_peak", "speedup",
                            "over_folded", "implementation"})
        j[key + k] = nullptr;
      if (precision == "bf16") j["onednn_bf16_net_of_bf16_peak"] = nullptr;
      continue;
    }
    const double rate = fast_calls[f] / rounds * double(batch);
    j[key + "net_evals_per_s"] = std::round(rate);
    j[key + "net_gflops"] = round_to(rate * flops / 1e9, 2);
    j[key + "net_of_peak"] = of_peak(rate * flops / 1e9);
    j[key + "speedup"] = round_to(rate / unfolded_rate, 3);
    j[key + "over_folded"] = round_to(rate / folded_rate, 3);
    j[key + "implementation"] = fast[f].second->describe();
    if (precision == "bf16")
      j["onednn_bf16_net_of_bf16_peak"] =
          bf16.gflops > 0 ? nlohmann::ordered_json(round_to(rate * flops / 1e9 / bf16.gflops, 3))
                          : nlohmann::ordered_json(nullptr);
  }
  j["onednn_int8_over_bf16"] =
      j["onednn_int8_net_evals_per_s"].is_null() || j["onednn_bf16_net_evals_per_s"].is_null()
          ? nlohmann::ordered_json(nullptr)
          : nlohmann::ordered_json(round_to(j["onednn_int8_net_evals_per_s"].get<double>() /
                                                j["onednn_bf16_net_evals_per_s"].get<double>(),
                                            3));
}

}  // namespace

nlohmann::ordered_json measure_network_peak(const Network& net, const torch::Tensor& input,
                                            int pits, const torch::Device& device, double seconds) {
  // Rebuilt here: oneDNN only where this build and device have it.
  const bool onednn = onednn_compiled() && device.is_cpu();
  const int64_t batch = input.size(0), L = input.size(2);
  nlohmann::ordered_json j;
  const PeakMeasurement fp32 = measure_fp32_peak(1.0);
  const PeakMeasurement bf16 = measure_bf16_peak(0.6);
  const double peak = fp32.gflops;
  auto of_peak = [peak](double gflops) { return fraction_of_peak(gflops, peak); };
  j["fp32_peak_isa"] = fp32.isa.empty() ? "absent" : fp32.isa;
  j["fp32_peak_gflops"] = round_to(fp32.gflops, 1);
  j["bf16_peak_isa"] = bf16.isa.empty() ? "absent" : bf16.isa;
  j["bf16_peak_gflops"] = bf16.isa.empty() ? nlohmann::ordered_json(nullptr)
                                           : nlohmann::ordered_json(round_to(bf16.gflops, 1));
  j["bf16_peak_of_fp32"] =
      bf16.isa.empty() ? nlohmann::ordered_json(nullptr) : of_peak(bf16.gflops);

  c10::InferenceMode guard;
  add_convolution_rates(j, net, batch, L, device, onednn, seconds, peak);
  add_forward_rates(j, net, input, pits, device, onednn, seconds, fp32, bf16);
  return j;
}

ForwardTiming time_forward(const InferenceNetwork& inference, const std::vector<float>& features,
                           int batch, int pits, const torch::Device& device, double seconds) {
  ForwardTiming out;
  std::thread t([&] {
    c10::InferenceMode guard;
    auto input = torch::from_blob(const_cast<float*>(features.data()),
                                  {batch, kNumPlanes, 2 * pits}, torch::kFloat32)
                     .to(device);
    for (int w = 0; w < 3; ++w) inference.forward(input, pits);  // warm-up
    const auto t0 = Clock::now();
    const double cpu0 = thread_cpu_seconds();
    while (since(t0) < seconds) {
      auto result = inference.forward(input, pits);
      result.policy_logits.to(torch::kCPU);  // wait for the device, as the evaluator does
      out.positions += batch;
    }
    out.seconds = since(t0);
    out.cpu_seconds = thread_cpu_seconds() - cpu0;
  });
  t.join();
  return out;
}

}  // namespace kz
