// What a model says of itself, as `kumalak model-info` prints it and the Run view of
// `kumalak serve --run` shows it (train/run_status.h): one JSON object, the same keys in
// both, so a script reading one reads the other.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "nn/model_header.h"

namespace kz {

// game, generation, training_steps, feature_version, channels, blocks, the optional
// heads (opponent_policy_head, score_distribution_head, human_policy_head), the human
// head's ratings ("human": {rating_min, rating_max, rating_mean}, only with that head),
// weights_checksum (a decimal string: JSON numbers lose 64-bit precision), created, note.
nlohmann::ordered_json model_summary_json(const ModelMetadata& meta, uint64_t weights_checksum);

}  // namespace kz
