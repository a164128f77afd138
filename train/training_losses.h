// The trainer's losses by name: the six terms a step or a validation pass reports, how
// they are packed into one tensor (to be summed over slices and ranks in the step's
// all-reduce without reading them back every step) and unpacked, and the metrics log's
// column of each. The order of the terms is declared once, in kLossTerms; nothing else
// reads losses by position.
#pragma once

#include <torch/torch.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nn/network.h"
#include "train/config.h"
#include "train/training_batch.h"

namespace kz {

// T = torch::Tensor: a step's losses as scalars on the device, the total still attached
// to the graph (LossTensors); T = double: the same numbers read back (TrainingLosses).
template <class T>
struct LossTerms {
  T total{};               // what the optimizer descends: the [train] *_weight sum of the rest
  T policy{};              // cross-entropy of the search policy, over full-search rows
  T value{};               // W/D/L cross-entropy
  T margin{};              // Huber loss of the final margin / (all stones / 2)
  T opponent_policy{};     // the opponent-policy head's cross-entropy; 0 without the head
  T score_distribution{};  // the score distribution head's cross-entropy; 0 without it
};
using LossTensors = LossTerms<torch::Tensor>;
using TrainingLosses = LossTerms<double>;

// The heads whose losses exist only when the network has them ([network] section).
enum class OptionalHead { kNone, kOpponentPolicy, kScoreDistribution };
struct LossHeads {
  bool opponent_policy = false;
  bool score_distribution = false;
  bool has(OptionalHead head) const {
    return head == OptionalHead::kNone ||
           (head == OptionalHead::kOpponentPolicy && opponent_policy) ||
           (head == OptionalHead::kScoreDistribution && score_distribution);
  }
};

template <class T>
struct LossTerm {
  std::string_view log_name;  // its metrics-log column; validation's has kValidationPrefix
  T LossTerms<T>::*member;
  OptionalHead head;  // its column is logged only when the network has this head
};

// Every term, in the one order that packing, unpacking and the metrics log's columns
// follow. The log's column names are those of every run so far: plots and tools read them.
template <class T>
inline constexpr std::array<LossTerm<T>, 6> kLossTerms = {{
    {"loss", &LossTerms<T>::total, OptionalHead::kNone},
    {"policy", &LossTerms<T>::policy, OptionalHead::kNone},
    {"value", &LossTerms<T>::value, OptionalHead::kNone},
    {"margin", &LossTerms<T>::margin, OptionalHead::kNone},
    {"opponent", &LossTerms<T>::opponent_policy, OptionalHead::kOpponentPolicy},
    {"score", &LossTerms<T>::score_distribution, OptionalHead::kScoreDistribution},
}};
inline constexpr int64_t kLossTermCount = int64_t(kLossTerms<double>.size());
inline constexpr std::string_view kValidationPrefix = "val_";

// The terms stacked in kLossTerms order: a detached [kLossTermCount] tensor on the
// losses' device, in their dtype. Packed tensors add up term by term.
torch::Tensor pack(const LossTensors& losses);
// A packed tensor (any device or floating dtype) read back. Throws std::invalid_argument
// unless it has kLossTermCount elements.
TrainingLosses unpack(const torch::Tensor& packed);

// sum + weight x losses, term by term (validation's weighted mean over its batches).
TrainingLosses add_weighted(const TrainingLosses& sum, const TrainingLosses& losses, double weight);
// Every term divided by `count`.
TrainingLosses divided_by(const TrainingLosses& losses, double count);

// The metrics log's (column, value) pairs of `losses` in kLossTerms order, without the
// terms of heads the network lacks; columns start with `prefix` ("" or kValidationPrefix).
std::vector<std::pair<std::string, double>> metrics_fields(const TrainingLosses& losses,
                                                           const LossHeads& heads,
                                                           std::string_view prefix);

// The columns of the loss plot: the terms every network has, and the validation total.
std::vector<std::string> loss_plot_columns();

// The losses of `net` on batch `b` (an optimizer step's slice or a validation batch):
// `pits` moves per position, the weights of [train] `tc`. `bf16`: the forward pass under
// autocast ([train] precision = "bf16"); the losses themselves are float32 either way.
// A head's loss is a zero when the batch has no target for it.
LossTensors compute_losses(Network& net, const Batch& b, int pits, const TrainConfig& tc,
                           bool bf16);

}  // namespace kz
