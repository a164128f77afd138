// A model's human policy head (nn/network.h) without LibTorch: the move probabilities of
// a human player of a given rating, as HumanPolicy (nn/human_policy.h) computes them with
// LibTorch, for the builds and the parts of the engine that have none (the rating levels,
// hints' "players at R play", the rating estimate, the browser build). The head's batch
// norm is folded into its convolution and its rating layer (it normalises their sum);
// the tower runs through the portable forward (nn/portable_network.h) and the children's
// values for the value term through the model's folded network (nn/folded_network.h).
// Answers equal HumanPolicy's up to float rounding (tests/nn_plain_weights_test.cpp).
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/position.h"
#include "nn/folded_network.h"
#include "nn/human_rating.h"
#include "nn/plain_model.h"
#include "nn/portable_network.h"

namespace kz {

class HumanHead {
 public:
  // `model` must have a human policy head (ModelError otherwise).
  explicit HumanHead(const PlainModel& model);

  const HumanHeadInfo& info() const { return info_; }
  // The model's game ("togyz").
  const std::string& game() const { return game_; }

  // The probability of every pit for a player of `rating` (clamped to the model's range;
  // `titled`: a titled over-the-board player instead), one array per position; illegal
  // moves 0.
  std::vector<std::array<float, kMaxPits>> probabilities(std::span<const Position> positions,
                                                         int rating, bool titled = false) const;
  // The same with a rating (and titled flag, 0/1; empty: none titled) per position.
  std::vector<std::array<float, kMaxPits>> probabilities(std::span<const Position> positions,
                                                         std::span<const int> ratings,
                                                         std::span<const char> titled) const;

  // The natural log of the probability that a player of each rating of `ratings` plays
  // `moves[b]` in `positions[b]`: result[g][b].
  std::vector<std::vector<double>> move_logprobs(std::span<const Position> positions,
                                                 std::span<const int> moves,
                                                 const std::vector<int>& ratings) const;

  // Q(m) of the value term for every pit: the model's value head's win minus loss of the
  // position after m, from the mover's view (the exact result where m ends or decides the
  // game); 0 for illegal moves.
  std::vector<std::array<float, kMaxPits>> move_values(std::span<const Position> positions) const;

 private:
  // What does not depend on the rating: the tower and the head's convolution (its batch
  // norm folded in) over the mover's cells, [positions][pits][head channels].
  std::vector<float> convolved(std::span<const Position> positions) const;
  // The head's logits [positions][pits] from `convolved` for the rating inputs of each
  // position, the value term added where the model has one, illegal moves at -1e30.
  std::vector<float> logits(std::span<const Position> positions,
                            const std::vector<float>& convolved,
                            std::span<const std::array<float, kHumanRatingInputs>> inputs,
                            const std::vector<std::array<float, kMaxPits>>& values) const;

  HumanHeadInfo info_;
  std::string game_;
  std::shared_ptr<const PortableNetwork> tower_;
  std::shared_ptr<const FoldedNetwork> value_net_;  // the model's own heads, for Q(m)
  int64_t channels_ = 0, head_channels_ = 0;
  std::vector<float> conv_;    // [head_channels][channels], the batch norm folded in
  std::vector<float> rating_;  // [head_channels][kHumanRatingInputs], folded too
  std::vector<float> bias_;    // [head_channels]
  std::vector<float> out_w_;   // [head_channels]
  float out_b_ = 0;
  std::vector<float> temperature_;  // [kHumanRatingInputs], empty without
};

// The most probable legal move of `probabilities` in `pos` (ties: the lowest pit).
int top_human_move(const std::array<float, kMaxPits>& probabilities, const Position& pos);

}  // namespace kz
