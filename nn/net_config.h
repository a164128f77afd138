// The network's sizes, apart from LibTorch, so that configs, model metadata and the fuzz
// targets (tests/fuzz/) can check them without building a network.
#pragma once

#include <cstdint>
#include <string>

namespace kz {

// Sizes, from the config's [network] section (configs/*.toml) or a model's metadata.
struct NetConfig {
  int channels = 64;         // width of the residual tower
  int blocks = 6;            // residual blocks; 6 reach across the 18-hole ring
  int policy_channels = 32;  // width of the policy head's hidden conv
  int value_channels = 32;   // width of the value head's conv before pooling
  int value_hidden = 64;     // hidden units of the value/score MLP
  // A second policy head that predicts the reply to the move played (KataGo's
  // auxiliary opponent-policy target): trained only, never evaluated at play time, it
  // makes the tower learn what the opponent will do. A model's metadata says whether it
  // has one; models from before it have not.
  bool opponent_policy_head = false;
  // A distribution over the final margin (KataGo's score belief): one logit for every
  // margin -score_max_margin..+score_max_margin stones, beside the W/D/L head; the
  // search takes its margin from it (its expectation) instead of the scalar margin head.
  // The switch comes from the config or a model's metadata; the size is the game's total
  // seeds, set wherever a network is made for a game (make_random_model, model files),
  // and 0 without the head.
  bool score_distribution_head = false;
  int score_max_margin = 0;
  // A human policy head (nn/network.h): the move a human player of a given rating plays,
  // with the rating as an input (nn/human_rating.h). Trained on rated games by
  // `kumalak human-train`; the model's metadata then carries its rating range.
  bool human_policy_head = false;
  // With the human head only: the rating also sets the head's temperature (its logits
  // times exp(w . rating inputs), w zero at the start), so that how sure a player's
  // choice is may depend on the rating as well as which moves it favours.
  bool human_rating_temperature = false;
  bool operator==(const NetConfig&) const = default;
};

// The accepted sizes, the same for configs and model files: "" when every size is in
// range, else which one is not ("channels = 4096 is outside 1..1024").
std::string net_config_problem(const NetConfig& c);

// Trainable parameters of the network nn/network.h builds for `c` (checked against
// NetworkImpl::parameter_count() by a test). A model file's weights hold at least four
// bytes for each, which is how a metadata/weights mismatch is caught before the
// network is allocated.
int64_t expected_parameter_count(const NetConfig& c);

}  // namespace kz
