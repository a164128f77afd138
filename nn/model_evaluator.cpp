#include "nn/model_evaluator.h"

#include <torch/torch.h>

#include <algorithm>
#include <thread>

#include "nn/nn_evaluator.h"

namespace kz {

std::shared_ptr<Evaluator> load_model_evaluator(const GameSpec& spec, const std::string& model_path,
                                                int threads) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  if (threads > 0) torch::set_num_threads(std::min(threads, cores));
  Model model = load_model(model_path, &spec);
  return std::make_shared<NnEvaluator>(std::move(model));
}

}  // namespace kz
