// The network's tensors without LibTorch: which tensors a network of a NetConfig has
// (names, dtypes and shapes, in nn/network.cpp's registration order), the weights
// checksum over them, and the fold of its batch norms into the convolutions that play
// evaluates (nn/folded_network.h). A model file's safetensors payload is checked against
// network_tensor_specs before it is read; a test checks the specs against the LibTorch
// module's own named parameters and buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "nn/folded_network.h"
#include "nn/net_config.h"
#include "nn/safetensors.h"

namespace kz {

// Every tensor of nn/network.h's network for `config`: its parameters, then its buffers
// (each batch norm's running_mean, running_var and num_batches_tracked), each group in
// registration order, named as LibTorch names them ("tower.0.conv1.weight").
std::vector<TensorSpec> network_tensor_specs(const NetConfig& config);

// FNV-1a 64 over every tensor's bytes in the order given (network_tensor_specs' order:
// the same number as weights_checksum of the LibTorch module, nn/model_file.h).
uint64_t plain_weights_checksum(const NamedTensors& tensors);

// The layers play evaluates, each batch norm folded into the convolution before it in
// double precision: W'[o] = W[o] s[o], b'[o] = (b[o] - mean[o]) s[o] + beta[o],
// s[o] = gamma[o] / sqrt(var[o] + 1e-5) (nn/inference_network.h), rounded to fp32 once.
// `tensors` must hold network_tensor_specs(config) (read_safetensors checks that).
FoldedWeights fold_network_weights(const NamedTensors& tensors, const NetConfig& config);

// The batch norm epsilon of every batch norm of the network (LibTorch's default).
inline constexpr double kBatchNormEps = 1e-5;

}  // namespace kz
