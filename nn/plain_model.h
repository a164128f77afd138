// A model file read without LibTorch: the container's checks (nn/model_header.h), then
// the safetensors payload checked against the network its metadata describes
// (nn/network_layout.h) and against the weights checksum, into plain tensors. What play,
// hints, analysis and the server load; the trainer reads the same files into its
// LibTorch modules (nn/model_file.h).
//
// Files from before the plain format carry their weights as a LibTorch archive: a build
// with LibTorch installs a reader for those (set_libtorch_archive_reader, done by the
// executables at start); without one they are refused with a message that says how to
// convert them.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/position.h"
#include "mcts/evaluator.h"
#include "nn/folded_network.h"
#include "nn/model_header.h"
#include "nn/plain_tensor.h"

namespace kz {

struct PlainModel {
  ModelMetadata meta;
  WeightsFormat weights_format = WeightsFormat::kSafetensors;
  // network_tensor_specs(meta.network), in that order.
  NamedTensors tensors;
};

// Reads a LibTorch archive's weights of the network `config` into plain tensors, in
// network_tensor_specs' order; throws ModelError starting with `where`.
using LibTorchArchiveReader = NamedTensors (*)(std::string_view payload, const NetConfig& config,
                                               const std::string& where);
void set_libtorch_archive_reader(LibTorchArchiveReader reader);

// The weights of a checked model file, checked against its metadata's network and its
// weights checksum. `where` starts every message ("model 'x.pt': ").
NamedTensors read_model_tensors(const CheckedModel& checked, const std::string& where);

// Writes a model file of `meta` with `tensors` (network_tensor_specs(meta.network), in
// that order) as its safetensors payload, to a temporary file renamed into place.
void save_plain_model(const std::string& path, const ModelMetadata& meta,
                      const NamedTensors& tensors);

// Loads `path`; `expected_game` (if non-null) must match. Throws ModelError.
PlainModel load_plain_model(const std::string& path, const GameSpec* expected_game = nullptr);

// The model's network as an evaluator on the CPU (nn/network_evaluator.h), in
// `precision` (kAuto: default_inference_precision()'s choice) with `kernels`.
std::shared_ptr<Evaluator> make_network_evaluator(
    const PlainModel& model, InferencePrecision precision = InferencePrecision::kAuto,
    ConvolutionKernels kernels = ConvolutionKernels::kAuto);

}  // namespace kz
