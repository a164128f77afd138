// The trainer's checkpoint: the weights, the optimizer's state (momentum) and the step, in
// one file written atomically, so that --resume continues exactly where a killed run
// stopped (train/trainer.h).
#pragma once

#include <torch/torch.h>

#include <string>

#include "nn/model_file.h"

namespace kz {

// Writes the checkpoint of `step` steps of this run to `path` (temporary file + rename).
// `model`'s metadata records the game, the generation and the steps behind the initial
// model; the weights' checksum is stored to be checked on loading.
void save_checkpoint(const std::string& path, Network& net, torch::optim::SGD& opt, int step,
                     const Model& model);

// Loads `path` into `net` and `opt` (tensors to `device`) and returns the step to continue
// from, or -1 when there is no usable checkpoint: none, another game's, or one that fails
// to read or to match its checksum (warned about; the run then starts from the initial
// weights).
int load_checkpoint(const std::string& path, Network& net, torch::optim::SGD& opt,
                    const Model& model, const torch::Device& device);

}  // namespace kz
