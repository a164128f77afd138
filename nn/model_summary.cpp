#include "nn/model_summary.h"

#include <string>

namespace kz {

nlohmann::ordered_json model_summary_json(const ModelMetadata& meta, uint64_t weights_checksum) {
  nlohmann::ordered_json j = {{"game", meta.game},
                              {"generation", meta.generation},
                              {"training_steps", meta.training_steps},
                              {"feature_version", meta.feature_version},
                              {"channels", meta.network.channels},
                              {"blocks", meta.network.blocks},
                              {"opponent_policy_head", meta.network.opponent_policy_head},
                              {"score_distribution_head", meta.network.score_distribution_head},
                              {"human_policy_head", meta.network.human_policy_head}};
  if (meta.network.human_policy_head)
    j["human"] = {{"rating_min", meta.human.rating_min},
                  {"rating_max", meta.human.rating_max},
                  {"rating_mean", meta.human.rating_mean}};
  j["weights_checksum"] = std::to_string(weights_checksum);
  j["created"] = meta.created;
  j["note"] = meta.note;
  return j;
}

}  // namespace kz
