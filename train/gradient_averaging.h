// One optimizer step's averaging over the parts of its global batch (train/trainer.h):
// the slices a rank computes one after another (--batch-slices) and the ranks of the job
// (train/distributed.h). Averaged: every gradient, the batch norms' running statistics
// (so that every rank, and rank 0's checkpoint, holds the statistics of all parts' rows)
// and the step's packed losses (train/training_losses.h), the last two in one all-reduce
// with the gradients.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "nn/network.h"
#include "train/distributed.h"
#include "train/training_batch.h"

namespace kz {

class GradientAverager {
 public:
  // `net`'s parameters and buffers, averaged over `split`'s parts through `comm`.
  GradientAverager(Network& net, const BatchSplit& split, Communicator& comm);

  // Before slice `k` of a step's slices on this rank: slice 0 remembers the running
  // statistics the step starts from, later slices start from them again (as the other
  // ranks' slices do), so that batch norm normalises each slice on its own.
  void begin_slice(int k);
  // After slice `k`'s backward pass: adds its running statistics and `packed_losses`.
  void end_slice(int k, const torch::Tensor& packed_losses);
  // After the last slice: the gradients and running statistics in place, and the packed
  // losses returned, as their means over every part of the global batch. `step` (1 = the
  // run's first) names the step in errors; the time spent in the all-reduce, waiting for
  // slower ranks included, is added to `allreduce_seconds`.
  torch::Tensor average(int step, double& allreduce_seconds);

 private:
  const BatchSplit split_;
  Communicator& comm_;
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> buffers_;  // all of them: restored before each later slice
  std::vector<torch::Tensor> stats_;    // the floating-point ones: running mean and variance
  std::vector<torch::Tensor> start_buffers_, stats_sum_;
  torch::Tensor loss_sum_;
};

}  // namespace kz
