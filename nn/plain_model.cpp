#include "nn/plain_model.h"

#include <atomic>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/checksum.h"
#include "core/little_endian.h"
#include "core/timestamp.h"
#include "nn/features.h"
#include "nn/network_evaluator.h"
#include "nn/network_layout.h"
#include "nn/safetensors.h"

namespace kz {

namespace {
std::atomic<LibTorchArchiveReader> archive_reader{nullptr};
}  // namespace

void set_libtorch_archive_reader(LibTorchArchiveReader reader) {
  archive_reader.store(reader);
}

NamedTensors read_model_tensors(const CheckedModel& checked, const std::string& where) {
  NamedTensors tensors;
  if (checked.weights_format == WeightsFormat::kSafetensors) {
    const std::vector<TensorSpec> specs = network_tensor_specs(checked.meta.network);
    tensors = read_safetensors(checked.payload, where, &specs);
  } else if (const LibTorchArchiveReader reader = archive_reader.load()) {
    tensors = reader(checked.payload, checked.meta.network, where);
  } else {
    throw ModelError(where +
                     "its weights are a LibTorch archive (a file written before the plain "
                     "safetensors format), which this build without LibTorch cannot read; "
                     "convert it once with a full build: kumalak model-info --convert FILE");
  }
  if (plain_weights_checksum(tensors) != checked.weights_checksum)
    throw ModelError(where + "weights checksum mismatch: the file is corrupted");
  return tensors;
}

PlainModel load_plain_model(const std::string& path, const GameSpec* expected_game) {
  const std::string where = "model '" + path + "': ";
  std::string bytes;
  const CheckedModel checked = read_checked_model(path, bytes);
  if (expected_game && GameSpec::parse(checked.meta.game) != *expected_game)
    throw ModelError(where + "was trained for game '" + checked.meta.game + "', not '" +
                     expected_game->name() + "'");
  PlainModel m;
  m.meta = checked.meta;
  m.weights_format = checked.weights_format;
  m.tensors = read_model_tensors(checked, where);
  return m;
}

void save_plain_model(const std::string& path, const ModelMetadata& meta,
                      const NamedTensors& tensors) {
  // The tensors must be the network's own, in its order: the order is the checksum's.
  const std::vector<TensorSpec> specs = network_tensor_specs(meta.network);
  bool matches = specs.size() == tensors.size();
  for (size_t i = 0; matches && i < specs.size(); ++i)
    matches = specs[i].name == tensors[i].first && specs[i].shape == tensors[i].second.shape &&
              specs[i].dtype == tensors[i].second.dtype;
  if (!matches)
    throw ModelError("cannot write model '" + path +
                     "': its tensors are not those of the network its metadata describes");
  nlohmann::ordered_json j;
  j["format"] = kModelFormatName;
  j["format_version"] = kModelFormatVersion;
  j["game"] = meta.game;
  j["weights_format"] = to_string(WeightsFormat::kSafetensors);
  j["feature_version"] = kFeatureVersion;
  j["network"] = {{"channels", meta.network.channels},
                  {"blocks", meta.network.blocks},
                  {"policy_channels", meta.network.policy_channels},
                  {"value_channels", meta.network.value_channels},
                  {"value_hidden", meta.network.value_hidden}};
  // Written only when there is a head, so that a model without one has the metadata
  // it had before the keys existed. (A program from before them refuses a model with a
  // head: its weights checksum covers the head, which that program does not build.)
  if (meta.network.opponent_policy_head) j["network"]["opponent_policy_head"] = true;
  if (meta.network.score_distribution_head) j["network"]["score_distribution_head"] = true;
  if (meta.network.human_policy_head) {
    j["network"]["human_policy_head"] = true;
    if (meta.network.human_rating_temperature) j["network"]["human_rating_temperature"] = true;
    j["human"] = {{"rating_min", meta.human.rating_min},
                  {"rating_max", meta.human.rating_max},
                  {"rating_mean", meta.human.rating_mean}};
    if (!meta.human.rating_prior.empty()) j["human"]["rating_prior"] = meta.human.rating_prior;
    if (!meta.human.value_weights.empty()) j["human"]["value_weights"] = meta.human.value_weights;
    if (!meta.human.rating_pair_prior.empty())
      j["human"]["rating_pair_prior"] = meta.human.rating_pair_prior;
    if (!meta.human.search_mix_weights.empty()) {
      j["human"]["search_mix"] = {{"visits", meta.human.search_mix_visits},
                                  {"weights", meta.human.search_mix_weights}};
      if (!meta.human.search_mix_play_weights.empty())
        j["human"]["search_mix"]["play_weights"] = meta.human.search_mix_play_weights;
      if (!meta.human.search_filter_play_weights.empty())
        j["human"]["search_mix"]["play_filter"] = meta.human.search_filter_play_weights;
      if (meta.human.search_play_visits > 0)
        j["human"]["search_mix"]["play_visits"] = meta.human.search_play_visits;
    }
  }
  j["generation"] = meta.generation;
  j["training_steps"] = meta.training_steps;
  j["weights_checksum"] = std::to_string(plain_weights_checksum(tensors));
  j["created"] = meta.created.empty() ? utc_timestamp_now() : meta.created;
  j["note"] = meta.note;
  const std::string metadata = j.dump();
  const std::string payload = write_safetensors(tensors);
  uint8_t header[kModelHeaderBytes] = {};
  std::memcpy(header, kModelMagic, 8);
  put_le(header + 8, uint32_t(kModelFormatVersion));
  put_le(header + 12, uint32_t(metadata.size()));
  put_le(header + 16, uint64_t(payload.size()));
  put_le(header + 24,
         crc32(payload.data(), payload.size(), crc32(metadata.data(), metadata.size())));
  write_file_atomically(path, [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(header), kModelHeaderBytes);
    out.write(metadata.data(), std::streamsize(metadata.size()));
    out.write(payload.data(), std::streamsize(payload.size()));
  });
}

std::shared_ptr<Evaluator> make_network_evaluator(const PlainModel& model,
                                                  InferencePrecision precision,
                                                  ConvolutionKernels kernels) {
  if (precision == InferencePrecision::kAuto) precision = default_inference_precision();
  auto net = make_folded_network(fold_network_weights(model.tensors, model.meta.network), precision,
                                 kernels);
  const NetConfig& c = model.meta.network;
  // As NnEvaluator describes itself, so that logs read the same with either.
  std::string description = "net " + std::to_string(c.channels) + "x" + std::to_string(c.blocks) +
                            " gen " + std::to_string(model.meta.generation) + " cpu";
  if (net->precision() == InferencePrecision::kBf16) description += " bf16";
  if (net->precision() == InferencePrecision::kInt8) description += " int8";
  return std::make_shared<NetworkEvaluator>(std::move(net), std::move(description));
}

}  // namespace kz
