#include "train/gradient_averaging.h"

#include <chrono>
#include <string>

namespace kz {

GradientAverager::GradientAverager(Network& net, const BatchSplit& split, Communicator& comm)
    : split_(split), comm_(comm), params_(net->parameters()), buffers_(net->buffers()) {
  for (const auto& b : buffers_)
    if (b.is_floating_point()) stats_.push_back(b);
}

void GradientAverager::begin_slice(int k) {
  if (split_.slices == 1) return;
  if (k == 0) {
    start_buffers_.clear();
    for (const auto& b : buffers_) start_buffers_.push_back(b.detach().clone());
    return;
  }
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].copy_(start_buffers_[i]);
}

void GradientAverager::end_slice(int k, const torch::Tensor& packed_losses) {
  // The losses stay on the device until a step reports them: reading them every step
  // would make the CPU wait for the GPU.
  loss_sum_ = k == 0 ? packed_losses : loss_sum_ + packed_losses;
  if (split_.slices == 1) return;
  torch::NoGradGuard no_grad;
  if (k == 0) stats_sum_.clear();
  for (size_t i = 0; i < stats_.size(); ++i) {
    if (k == 0)
      stats_sum_.push_back(stats_[i].detach().clone());
    else
      stats_sum_[i].add_(stats_[i]);
  }
}

torch::Tensor GradientAverager::average(int step, double& allreduce_seconds) {
  if (split_.parts() == 1) return loss_sum_;
  torch::NoGradGuard no_grad;
  if (split_.slices > 1)
    for (size_t i = 0; i < stats_.size(); ++i) stats_[i].copy_(stats_sum_[i]);
  const double scale = 1.0 / split_.parts();
  if (split_.world == 1) {
    for (const auto& p : params_)
      if (p.grad().defined()) p.mutable_grad().mul_(scale);
    for (const auto& b : stats_) b.mul_(scale);
    return loss_sum_ * scale;
  }
  // One all-reduce of everything, flattened: gradients (zeros for a parameter without
  // one), statistics, losses.
  const auto started = std::chrono::steady_clock::now();
  std::vector<torch::Tensor> pieces;
  pieces.reserve(params_.size() + stats_.size() + 1);
  for (const auto& p : params_)
    pieces.push_back(p.grad().defined() ? p.grad().reshape(-1)
                                        : torch::zeros({p.numel()}, p.options()));
  for (const auto& b : stats_) pieces.push_back(b.reshape(-1));
  pieces.push_back(loss_sum_);
  torch::Tensor flat = torch::cat(pieces);
  comm_.all_reduce_sum(flat, "step " + std::to_string(step) + "'s gradients");
  flat.mul_(scale);
  int64_t at = 0;
  for (const auto& p : params_) {
    if (p.grad().defined()) p.mutable_grad().view(-1).copy_(flat.narrow(0, at, p.numel()));
    at += p.numel();
  }
  for (const auto& b : stats_) {
    b.view(-1).copy_(flat.narrow(0, at, b.numel()));
    at += b.numel();
  }
  const torch::Tensor losses = flat.narrow(0, at, loss_sum_.numel());
  allreduce_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return losses;
}

}  // namespace kz
