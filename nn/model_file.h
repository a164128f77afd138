// One model file = metadata + weights, in a small container of our own:
//   bytes 0..7    magic "KZMODEL\0"
//   u32           container version (1)
//   u32           metadata length M
//   u64           payload length P
//   u32           CRC-32 of the metadata and payload bytes
//   M bytes       metadata, a JSON object:
//     format            "kumalakzero-model"
//     game              GameSpec::name(), e.g. "togyz", "kalah:6,4"
//     feature_version   nn/features.h kFeatureVersion the net was trained with
//     network           {channels, blocks, policy_channels, value_channels, value_hidden,
//                        opponent_policy_head, score_distribution_head,
//                        human_policy_head (each only when true; absent = false)}
//     human             with the human policy head only: {rating_min, rating_max,
//                        rating_mean}, the ratings it was trained on, and rating_prior
//                        (optional): train-fold sides per 100-point bin (nn/human_rating.h),
//                        value_weights (optional): the kHumanRatingInputs weights of the
//                        rating-dependent value term beta(R) (nn/human_rating.h),
//                        rating_pair_prior (optional): train-fold games per pair of those
//                        bins, White's bin x Black's, flattened row by row
//                        (nn/human_rating.h)
//     generation        self-play generation (0 = the random initial net)
//     training_steps    optimizer steps behind these weights
//     weights_checksum  FNV-1a 64 over every parameter and buffer, in registration order
//     created, note     free text
//     weights_format    "safetensors" (absent in files written before it: a LibTorch
//                       archive, which builds with LibTorch still read)
//   P bytes       the weights: a safetensors file (nn/safetensors.h) of every parameter
//                 and buffer of the network, named and ordered as nn/network_layout.h
//                 lists them
// (integers little-endian). The container's lengths and CRC are checked before the
// weights are parsed (a damaged LibTorch archive could make LibTorch allocate memory
// without bound), and the safetensors header is checked against the network the
// metadata describes before a tensor is allocated. Reading and writing the file needs
// no LibTorch (nn/plain_model.h); this header fills and saves the trainer's modules. Loading checks
// everything and throws ModelError saying what is wrong: a missing, empty, truncated or corrupted
// file, a directory, metadata naming an unknown game, a network outside the config's limits or
// larger than its weights (nn/model_header.h, before anything is allocated), a model
// for another game or feature version. Saving writes a temporary file and
// renames it.
#pragma once

#include <stdexcept>
#include <string>

#include "core/position.h"
#include "nn/model_header.h"
#include "nn/network.h"
#include "nn/plain_model.h"
#include "nn/plain_tensor.h"

namespace kz {

struct Model {
  ModelMetadata meta;
  Network net{nullptr};
};

// A freshly initialised network for `game` (generation 0), seeded for reproducibility.
Model make_random_model(const GameSpec& game, const NetConfig& config, uint64_t seed);

void save_model(const std::string& path, const Model& model);

// Loads to CPU, then moves to `device`. `expected_game` (if non-null) must match.
Model load_model(const std::string& path, const GameSpec* expected_game = nullptr,
                 const torch::Device& device = torch::kCPU);

// The model at `path`, or a fresh generation-0 network of size `fresh` when `path` is
// empty (the start of every training run, and tests).
Model load_or_init_model(const std::string& path, const GameSpec& game, const NetConfig& fresh,
                         uint64_t seed, const torch::Device& device = torch::kCPU);

// `model` with (on) or without the opponent-policy head (nn/network.h): every other
// weight and statistic is copied, a new head is initialised from `seed`. The model
// itself when it already is so. Training from a model of another kind (`--init` a model
// without the head while the config asks for one) goes through here.
Model with_opponent_policy_head(const Model& model, bool on, uint64_t seed);
// The same for the score distribution head (its size is the model's game's).
Model with_score_distribution_head(const Model& model, bool on, uint64_t seed);
// `model` with a human policy head for ratings `info` (nn/human_rating.h), started as a
// copy of the model's own policy head with no weight on the rating: before training it
// plays exactly the model's policy at every rating. The model itself when it has one.
Model with_human_policy_head(const Model& model, const HumanHeadInfo& info);

// `model` (with a human head) whose head's temperature also depends on the rating
// (NetConfig::human_rating_temperature), started at 1 for every rating: the same answers.
Model with_human_rating_temperature(const Model& model);

// `model` grown to a wider (`channels`) and deeper (`blocks`) tower that computes exactly
// what `model` computes (Net2Net-style, up to float rounding): every weight is kept in
// its place; a new channel gets fresh weights (seeded) from every input but feeds none of
// the old channels or heads (those weights start at 0 and are learnt); a new block goes
// after the old ones with its last batch norm at 0, so it starts as the identity. A run
// can so take a larger network on from its trained one instead of starting it from
// scratch. The heads stay as they are. Throws ModelError for a smaller size.
Model grown_model(const Model& model, int channels, int blocks, uint64_t seed);

// Parses "cpu", "cuda", "cuda:N"; throws ModelError when CUDA is asked for and absent.
torch::Device parse_device(const std::string& name);

uint64_t weights_checksum(Network& net);

// Every parameter and buffer of `net` as plain tensors, in registration order (the
// order of nn/network_layout.h and of the weights checksum).
NamedTensors module_tensors(Network& net);

// `model` as the loaders without LibTorch hold it (its tensors copied).
PlainModel plain_model_of(Model& model);

// Lets the loaders without LibTorch (nn/plain_model.h) read model files whose weights
// are a LibTorch archive: executables of the full build call it once at start.
void install_libtorch_model_support();

}  // namespace kz
