// A model's human policy head (nn/network.h) as play and measurement ask it: the move
// probabilities of a human player of a given rating, and the log-probability of the
// moves players actually made at each rating of a grid (for the rating estimate,
// nn/human_rating.h). Every answer is over legal moves only (illegal moves get 0).
// Where the model has value weights (HumanHeadInfo::value_weights), every answer includes
// the rating-dependent value term: p(m | R) proportional to p_head(m | R) *
// exp(beta(R) * Q(m)), Q(m) the model's own value of the position after m (move_values).
#pragma once

#include <array>
#include <span>
#include <vector>

#include "core/position.h"
#include "nn/human_head.h"  // top_human_move
#include "nn/model_file.h"

namespace kz {

class HumanPolicy {
 public:
  // `model` must have a human policy head (ModelError otherwise); it is put in eval mode.
  explicit HumanPolicy(Model model);

  const HumanHeadInfo& info() const { return model_.meta.human; }
  const Model& model() const { return model_; }

  // The probability of every pit for a player of `rating` (clamped to the model's
  // range; `titled`: a titled over-the-board player instead), one array per position.
  std::vector<std::array<float, kMaxPits>> probabilities(std::span<const Position> positions,
                                                         int rating, bool titled = false);

  // The same with a rating (and titled flag, 0/1; empty: none titled) per position.
  std::vector<std::array<float, kMaxPits>> probabilities(std::span<const Position> positions,
                                                         std::span<const int> ratings,
                                                         std::span<const char> titled);

  // The natural log of the probability that a player of each rating of `ratings` plays
  // `moves[b]` in `positions[b]`: result[g][b]. The tower runs once for all ratings.
  std::vector<std::vector<double>> move_logprobs(std::span<const Position> positions,
                                                 std::span<const int> moves,
                                                 const std::vector<int>& ratings);

  // Q(m) of the value term for every pit: the model's own value head's win minus loss
  // probability of the position after m, from the mover's view (-1..1; the exact result
  // where m ends or decides the game); 0 for illegal moves. One network call over every
  // child of every position.
  std::vector<std::array<float, kMaxPits>> move_values(std::span<const Position> positions);

  // The head's own log-probabilities, without the value term, at a rating (and titled
  // flag; empty: none titled) per position: [B, m], illegal moves -inf-like. For fitting
  // the value weights (fit_value_weights, nn/human_training.h).
  torch::Tensor head_logprobs(std::span<const Position> positions, std::span<const int> ratings,
                              std::span<const char> titled);

 private:
  torch::Tensor features(std::span<const Position> positions) const;
  torch::Tensor legal_mask(std::span<const Position> positions) const;
  torch::Tensor move_value_tensor(std::span<const Position> positions);  // [B, m]
  Model model_;
};

// The rating inputs of `ratings` (nn/human_rating.h) as a [N, kHumanRatingInputs] tensor.
torch::Tensor human_rating_tensor(const HumanHeadInfo& info, std::span<const int> ratings,
                                  std::span<const char> titled = {});

}  // namespace kz
