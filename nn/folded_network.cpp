#include "nn/folded_network.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "nn/onednn_network.h"
#include "nn/portable_network.h"

namespace kz {

namespace {

// OMP_NUM_THREADS when set (what oneDNN's OpenMP, and LibTorch's, start with), else the
// core count.
int default_threads() {
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env && *env) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

std::atomic<int> threads_set{0};
std::atomic<int (*)()> threads_get{nullptr};
std::atomic<void (*)(int)> threads_put{nullptr};

std::mutex default_precision_mutex;
std::optional<InferencePrecision> default_precision;

}  // namespace

InferencePrecision default_inference_precision() {
  std::lock_guard lock(default_precision_mutex);
  if (!default_precision) {
    const char* env = std::getenv("KUMALAK_PRECISION");
    try {
      default_precision = env && *env ? parse_inference_precision(env) : InferencePrecision::kAuto;
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("environment variable KUMALAK_PRECISION: ") +
                                  e.what());
    }
  }
  return *default_precision;
}

void set_default_inference_precision(InferencePrecision precision) {
  std::lock_guard lock(default_precision_mutex);
  default_precision = precision;
}

int inference_threads() {
  if (const auto get = threads_get.load()) return get();
  const int n = threads_set.load(std::memory_order_relaxed);
  if (n > 0) return n;
  static const int fallback = default_threads();  // read once: every forward asks
  return fallback;
}

void set_inference_threads(int threads) {
  if (const auto put = threads_put.load()) return put(std::max(1, threads));
  threads_set.store(std::max(1, threads), std::memory_order_relaxed);
}

void set_inference_threads_source(int (*get)(), void (*set)(int)) {
  threads_get.store(get);
  threads_put.store(set);
}

std::shared_ptr<const FoldedNetwork> make_folded_network(const FoldedWeights& weights,
                                                         InferencePrecision precision,
                                                         ConvolutionKernels kernels) {
  if (onednn_compiled() && kernels != ConvolutionKernels::kPortable)
    return std::make_shared<const OnednnNetwork>(weights, precision, kernels);
  if (precision == InferencePrecision::kBf16)
    throw std::runtime_error(
        "the portable forward runs in fp32 or int8 only (bf16 was asked for; this build " +
        std::string(onednn_compiled() ? "runs bf16 without KUMALAK_BACKEND=portable)"
                                      : "has no oneDNN)"));
  if (precision == InferencePrecision::kAuto) precision = portable_auto_precision();
  return std::make_shared<const PortableNetwork>(weights, PortableKernels::kBlocked, precision);
}

InferencePrecision portable_auto_precision() {
#if defined(__EMSCRIPTEN__)
  // Measured (docs/browser.md, "The integer forward"): 1.43-1.52x fp32's visits in 1 s
  // and 1.44x its forward under Node, and +3 Elo [-8, +15] against fp32 at equal visits
  // over 1,000 games.
  return InferencePrecision::kInt8;
#else
  return InferencePrecision::kFp32;
#endif
}

}  // namespace kz
