// The policy/value network: a residual tower of 1-D convolutions along the ring of pits
// (nn/features.h explains the ring and the input planes).
//
//   input [B, kNumPlanes, L]
//   -> conv3 to `channels`, BN, ReLU
//   -> `blocks` x residual block: conv3-BN-ReLU, + a bias computed from the mean over
//      the ring (global pooling), conv3-BN, + skip, ReLU
//   -> policy head: conv1 to policy_channels, BN, ReLU, conv1 to 1 -> the mover's m
//      cells -> one logit per pit (illegal moves are masked by the evaluator)
//   -> value head: conv1 to value_channels, BN, ReLU, mean- and max-pool over the ring,
//      FC to value_hidden, ReLU, then
//        * FC to 3: win/draw/loss logits for the side to move
//        * FC to 1: expected final margin / (all stones / 2), the "score" head
//
// Nothing depends on L, so one architecture serves Togyz (L = 18) and any Kalah size;
// a model file still records the one game it was trained for.
#pragma once

#include <torch/torch.h>

#include "nn/net_config.h"

namespace kz {

struct NetOutput {
  torch::Tensor policy_logits;  // [B, m]
  torch::Tensor wdl_logits;     // [B, 3]: win, draw, loss for the side to move
  torch::Tensor margin;         // [B]: final margin / (all stones / 2), mover's view
};

struct ResidualBlockImpl : torch::nn::Module {
  explicit ResidualBlockImpl(int channels);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Conv1d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm1d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear pool_fc{nullptr};
};
TORCH_MODULE(ResidualBlock);

struct NetworkImpl : torch::nn::Module {
  explicit NetworkImpl(const NetConfig& config);
  // `pits` = m: the policy takes the first m cells (the mover's row).
  NetOutput forward(const torch::Tensor& features, int pits);
  int64_t parameter_count();

  NetConfig config;
  torch::nn::Conv1d input_conv{nullptr};
  torch::nn::BatchNorm1d input_bn{nullptr};
  torch::nn::ModuleList tower{nullptr};
  torch::nn::Conv1d policy_conv{nullptr}, policy_out{nullptr};
  torch::nn::BatchNorm1d policy_bn{nullptr};
  torch::nn::Conv1d value_conv{nullptr};
  torch::nn::BatchNorm1d value_bn{nullptr};
  torch::nn::Linear value_fc{nullptr}, wdl_out{nullptr}, margin_out{nullptr};
};
TORCH_MODULE(Network);

}  // namespace kz
