#include "train/training_losses.h"

#include <ATen/autocast_mode.h>

#include <stdexcept>

#include "nn/features.h"

namespace kz {

torch::Tensor pack(const LossTensors& losses) {
  std::vector<torch::Tensor> terms;
  terms.reserve(kLossTerms<torch::Tensor>.size());
  for (const auto& term : kLossTerms<torch::Tensor>) terms.push_back(losses.*term.member);
  return torch::stack(terms).detach();
}

TrainingLosses unpack(const torch::Tensor& packed) {
  if (packed.numel() != kLossTermCount)
    throw std::invalid_argument("packed losses: " + std::to_string(packed.numel()) +
                                " values, expected " + std::to_string(kLossTermCount));
  const torch::Tensor values = packed.reshape(-1).to(torch::kCPU, torch::kFloat64);
  const auto at = values.accessor<double, 1>();
  TrainingLosses losses;
  int64_t i = 0;
  for (const auto& term : kLossTerms<double>) losses.*term.member = at[i++];
  return losses;
}

TrainingLosses add_weighted(const TrainingLosses& sum, const TrainingLosses& losses,
                            double weight) {
  TrainingLosses out = sum;
  for (const auto& term : kLossTerms<double>) out.*term.member += losses.*term.member * weight;
  return out;
}

TrainingLosses divided_by(const TrainingLosses& losses, double count) {
  TrainingLosses out = losses;
  for (const auto& term : kLossTerms<double>) out.*term.member /= count;
  return out;
}

std::vector<std::pair<std::string, double>> metrics_fields(const TrainingLosses& losses,
                                                           const LossHeads& heads,
                                                           std::string_view prefix) {
  std::vector<std::pair<std::string, double>> fields;
  for (const auto& term : kLossTerms<double>)
    if (heads.has(term.head))
      fields.emplace_back(std::string(prefix) + std::string(term.log_name), losses.*term.member);
  return fields;
}

std::vector<std::string> loss_plot_columns() {
  std::vector<std::string> columns;
  for (const auto& term : kLossTerms<double>)
    if (term.head == OptionalHead::kNone) columns.emplace_back(term.log_name);
  columns.push_back(std::string(kValidationPrefix) + std::string(kLossTerms<double>[0].log_name));
  return columns;
}

namespace {

// Mixed precision ([train] precision = "bf16"): the forward pass under LibTorch's
// autocast (matrix products and convolutions in bfloat16, reductions and the losses in
// float32); weights, gradients and the optimizer stay float32. Autocast is per thread.
class AutocastScope {
 public:
  AutocastScope(bool on, const torch::Device& device) : on_(on), cuda_(device.is_cuda()) {
    if (!on_) return;
    if (cuda_) {
      at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
      at::autocast::set_enabled(true);
    } else {
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
      at::autocast::set_cpu_enabled(true);
    }
  }
  ~AutocastScope() {
    if (!on_) return;
    if (cuda_)
      at::autocast::set_enabled(false);
    else
      at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool on_, cuda_;
};

}  // namespace

LossTensors compute_losses(Network& net, const Batch& b, int pits, const TrainConfig& tc,
                           bool bf16) {
  const bool opponent = b.opponent_policy.defined();
  NetOutput out;
  {
    AutocastScope autocast(bf16, b.features.device());
    out = net->forward(b.features, pits, opponent);
  }
  if (bf16) {
    out.policy_logits = out.policy_logits.to(torch::kFloat32);
    out.wdl_logits = out.wdl_logits.to(torch::kFloat32);
    out.margin = out.margin.to(torch::kFloat32);
    if (opponent) out.opponent_policy_logits = out.opponent_policy_logits.to(torch::kFloat32);
    if (out.score_logits.defined()) out.score_logits = out.score_logits.to(torch::kFloat32);
  }
  // Illegal moves: a large negative logit (not -inf, whose 0 * -inf would be NaN).
  const auto legal = b.features.select(1, kPlaneMyLegal).narrow(1, 0, pits) > 0.5;
  auto logits = out.policy_logits.masked_fill(legal.logical_not(), -1e9);
  auto logp = torch::log_softmax(logits, 1);
  auto per_row = -(b.policy * logp).sum(1);
  auto rows = b.policy_mask.sum().clamp_min(1);
  LossTensors l;
  l.policy = (per_row * b.policy_mask).sum() / rows;
  l.value = b.wdl_soft.defined()
                ? -(b.wdl_soft * torch::log_softmax(out.wdl_logits, 1)).sum(1).mean()
                : torch::nn::functional::cross_entropy(out.wdl_logits, b.wdl);
  l.margin = torch::nn::functional::smooth_l1_loss(out.margin, b.margin);
  l.total = tc.policy_weight * l.policy + tc.value_weight * l.value + tc.margin_weight * l.margin;
  if (opponent) {
    // Over the whole ring, unmasked: the target has no mass on cells that cannot be the
    // next move, and the head learns which those are.
    auto opp_logp = torch::log_softmax(out.opponent_policy_logits, 1);
    auto opp_row = -(b.opponent_policy * opp_logp).sum(1);
    l.opponent_policy = (opp_row * b.opponent_mask).sum() / b.opponent_mask.sum().clamp_min(1);
    l.total = l.total + tc.opponent_policy_weight * l.opponent_policy;
  } else {
    l.opponent_policy = torch::zeros({}, l.total.options());
  }
  if (b.score_class.defined()) {
    l.score_distribution = torch::nn::functional::cross_entropy(out.score_logits, b.score_class);
    l.total = l.total + tc.score_distribution_weight * l.score_distribution;
  } else {
    l.score_distribution = torch::zeros({}, l.total.options());
  }
  return l;
}

}  // namespace kz
