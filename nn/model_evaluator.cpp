#include "nn/model_evaluator.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "nn/plain_model.h"

namespace kz {

namespace {
std::atomic<LibTorchEvaluatorLoader> libtorch_loader{nullptr};
}  // namespace

void set_libtorch_evaluator_loader(LibTorchEvaluatorLoader loader) {
  libtorch_loader.store(loader);
}

std::shared_ptr<Evaluator> load_model_evaluator(const GameSpec& spec, const std::string& model_path,
                                                int threads) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  if (threads > 0) set_inference_threads(std::min(threads, cores));
  // KUMALAK_BACKEND=libtorch or reference asks for LibTorch's own forwards (to compare),
  // portable for the forward of builds without oneDNN (nn/portable_network.h).
  const char* backend = std::getenv("KUMALAK_BACKEND");
  if (backend && std::string(backend) == "portable")
    return make_network_evaluator(load_plain_model(model_path, &spec), InferencePrecision::kAuto,
                                  ConvolutionKernels::kPortable);
  if (backend && *backend && std::string(backend) != "onednn") {
    if (const LibTorchEvaluatorLoader loader = libtorch_loader.load())
      return loader(spec, model_path);
    throw ModelError("KUMALAK_BACKEND=" + std::string(backend) +
                     ": this build has no LibTorch (only onednn, the default, runs here)");
  }
  return make_network_evaluator(load_plain_model(model_path, &spec));
}

}  // namespace kz
