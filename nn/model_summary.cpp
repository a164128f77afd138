#include "nn/model_summary.h"

#include <cmath>
#include <string>

#include "nn/human_rating.h"

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
  if (meta.network.human_policy_head) {
    j["human"] = {{"rating_min", meta.human.rating_min},
                  {"rating_max", meta.human.rating_max},
                  {"rating_mean", meta.human.rating_mean}};
    // The search mixture's lambda at the knots of the rating inputs: the fit (what players
    // do) and, where calibrated, what the levels play (a lambda, or a filter's tau).
    if (!meta.human.search_mix_weights.empty()) {
      nlohmann::ordered_json knots = nlohmann::ordered_json::array(),
                             fitted = nlohmann::ordered_json::array(),
                             played = nlohmann::ordered_json::array(),
                             filter = nlohmann::ordered_json::array();
      for (int r : human_rating_knots(meta.human)) {
        knots.push_back(r);
        fitted.push_back(std::round(human_search_mix(meta.human, r) * 1e4) / 1e4);
        played.push_back(std::round(human_play_mix(meta.human, r) * 1e4) / 1e4);
        filter.push_back(std::round(human_play_filter(meta.human, r) * 1e4) / 1e4);
      }
      j["human"]["search_mix"] = {
          {"visits", meta.human.search_mix_visits}, {"ratings", knots}, {"lambda", fitted}};
      if (!meta.human.search_mix_play_weights.empty())
        j["human"]["search_mix"]["play_lambda"] = played;
      if (!meta.human.search_filter_play_weights.empty())
        j["human"]["search_mix"]["play_filter"] = filter;
      if (meta.human.search_play_visits > 0)
        j["human"]["search_mix"]["play_visits"] = meta.human.search_play_visits;
    }
  }
  j["weights_checksum"] = std::to_string(weights_checksum);
  j["created"] = meta.created;
  j["note"] = meta.note;
  return j;
}

}  // namespace kz
