#include "nn/net_config.h"

#include "nn/features.h"
#include "nn/human_rating.h"

namespace kz {

std::string net_config_problem(const NetConfig& c) {
  struct Limit {
    const char* name;
    int value, lo, hi;
  };
  const Limit limits[] = {{"channels", c.channels, 1, 1024},
                          {"blocks", c.blocks, 0, 64},
                          {"policy_channels", c.policy_channels, 1, 1024},
                          {"value_channels", c.value_channels, 1, 1024},
                          {"value_hidden", c.value_hidden, 1, 8192},
                          {"score_max_margin", c.score_max_margin, 0, 1000}};
  for (const Limit& l : limits)
    if (l.value < l.lo || l.value > l.hi)
      return std::string(l.name) + " = " + std::to_string(l.value) + " is outside " +
             std::to_string(l.lo) + ".." + std::to_string(l.hi);
  return "";
}

int64_t expected_parameter_count(const NetConfig& c) {
  const int64_t C = c.channels, P = c.policy_channels, V = c.value_channels, H = c.value_hidden;
  const int64_t input = int64_t(kNumPlanes) * C * 3 + 2 * C;    // conv3 (no bias), BN
  const int64_t block = 2 * (3 * C * C + 2 * C) + (C * C + C);  // 2x (conv3, BN), pool FC
  const int64_t policy = C * P + 2 * P + (P + 1);               // conv1, BN, conv1 with bias
  const int64_t value = C * V + 2 * V + (2 * V * H + H) + (3 * H + 3) + (H + 1);
  const int64_t opponent_policy = c.opponent_policy_head ? policy : 0;  // the same shape
  const int64_t margins = 2 * int64_t(c.score_max_margin) + 1;
  const int64_t score = c.score_distribution_head ? H * margins + margins : 0;  // FC
  // conv1 from the tower and FC from the rating inputs (neither with a bias), BN,
  // conv1 to one logit with a bias.
  const int64_t human =
      c.human_policy_head ? C * P + int64_t(kHumanRatingInputs) * P + 2 * P + (P + 1) : 0;
  const int64_t temperature =
      c.human_policy_head && c.human_rating_temperature ? int64_t(kHumanRatingInputs) : 0;
  return input + c.blocks * block + policy + value + opponent_policy + score + human + temperature;
}

}  // namespace kz
