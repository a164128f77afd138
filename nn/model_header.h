// The checks of a model file that come before LibTorch sees a byte (nn/model_file.h
// describes the container): magic, version, lengths, CRC, the metadata JSON, the game
// it names, the feature version, the network's sizes against the accepted limits and
// against the size of the weights. A huge network declared in otherwise valid metadata
// is refused here, before anything is allocated for it. Kept free of LibTorch so that
// the engine protocol can check a Model path at once and a fuzz target can run it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "nn/human_rating.h"
#include "nn/net_config.h"

namespace kz {

struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ModelMetadata {
  std::string game = "togyz";
  NetConfig network;
  int feature_version = 0;  // filled in on save
  int generation = 0;
  int64_t training_steps = 0;
  std::string created;
  std::string note;
  // With network.human_policy_head only: the head's rating range ("human" in the
  // metadata: rating_min, rating_max, rating_mean); all 0 without the head.
  HumanHeadInfo human;
};

// The container's layout (nn/model_file.h).
inline constexpr char kModelMagic[8] = {'K', 'Z', 'M', 'O', 'D', 'E', 'L', '\0'};
inline constexpr size_t kModelHeaderBytes = 28;
inline constexpr int kModelFormatVersion = 1;
inline constexpr const char* kModelFormatName = "kumalakzero-model";
inline constexpr uint64_t kMaxModelBytes = uint64_t(4) << 30;

// How a model file's payload holds the weights: safetensors (nn/safetensors.h, what
// every model is written as), or a LibTorch archive (files written before; read only by
// builds with LibTorch). The metadata's "weights_format" says which; absent: the archive.
enum class WeightsFormat { kLibTorchArchive, kSafetensors };
// "libtorch-archive", "safetensors"
std::string to_string(WeightsFormat format);

struct CheckedModel {
  ModelMetadata meta;
  WeightsFormat weights_format = WeightsFormat::kSafetensors;
  std::string_view payload;       // the weights, inside the bytes given
  uint64_t weights_checksum = 0;  // as the metadata states it
};

// Checks a whole model file's bytes. `where` starts every message ("model 'x.pt': ").
// Throws ModelError saying what is wrong.
CheckedModel check_model_bytes(std::string_view bytes, const std::string& where);

// Reads and checks the file at `path` (a missing file, a directory, an empty or huge
// file are ModelErrors too). `bytes` receives the file, which the result points into.
CheckedModel read_checked_model(const std::string& path, std::string& bytes);

}  // namespace kz
