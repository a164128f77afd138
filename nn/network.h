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
//   -> with NetConfig::opponent_policy_head, an opponent-policy head of the policy
//      head's shape over the whole ring: the move that will be played from the next
//      position (KataGo's auxiliary target), on the cells of whoever moves then. Only
//      training asks for it (forward's `opponent_policy`); play never computes it.
//   -> with NetConfig::score_distribution_head, FC from value_hidden to one logit per
//      final margin -M..+M stones (M = the game's total seeds): the score distribution,
//      whose expectation the evaluator gives the search instead of the scalar margin.
//   -> with NetConfig::human_policy_head, a human policy head of the policy head's shape
//      whose hidden channels also get a bias computed from the player's rating inputs
//      (nn/human_rating.h: FC, no bias, constant over the ring): the move a human player
//      of that rating plays. forward never computes it; human_policy does.
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
  // [B, 2m]: logits of the next position's move over every cell of the ring (cells
  // 0..m-1 when the mover moves again, m..2m-1 when the opponent replies); undefined
  // unless forward was asked for it.
  torch::Tensor opponent_policy_logits;
  // [B, 2M+1]: logits of the final margin -M..+M stones, mover's view; undefined
  // without the score distribution head.
  torch::Tensor score_logits;
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
  // `opponent_policy`: also compute the opponent-policy head (the network must have
  // one); training only, so that play does not pay for it.
  NetOutput forward(const torch::Tensor& features, int pits, bool opponent_policy = false);
  int64_t parameter_count() const;
  // The tower's output [B, channels, L] (what every head reads).
  torch::Tensor trunk(const torch::Tensor& features);
  // The human policy head's logits [B, m] from `trunk`'s output and each row's rating
  // inputs [B, kHumanRatingInputs] (the network must have the head).
  torch::Tensor human_policy(const torch::Tensor& trunk_out, const torch::Tensor& rating_inputs,
                             int pits);
  // The same for many ratings at once: the head's tower part is computed once, then
  // each rating adds its bias. `rating_inputs` [G, kHumanRatingInputs]; result [G, B, m].
  torch::Tensor human_policy_grid(const torch::Tensor& trunk_out,
                                  const torch::Tensor& rating_inputs, int pits);

  NetConfig config;
  torch::nn::Conv1d input_conv{nullptr};
  torch::nn::BatchNorm1d input_bn{nullptr};
  torch::nn::ModuleList tower{nullptr};
  torch::nn::Conv1d policy_conv{nullptr}, policy_out{nullptr};
  torch::nn::BatchNorm1d policy_bn{nullptr};
  torch::nn::Conv1d value_conv{nullptr};
  torch::nn::BatchNorm1d value_bn{nullptr};
  torch::nn::Linear value_fc{nullptr}, wdl_out{nullptr}, margin_out{nullptr};
  // Registered (last, after every module of older models) only with the head.
  torch::nn::Conv1d opponent_policy_conv{nullptr}, opponent_policy_out{nullptr};
  torch::nn::BatchNorm1d opponent_policy_bn{nullptr};
  torch::nn::Linear score_out{nullptr};  // with the score distribution head only
  // With the human policy head only (registered after everything else).
  torch::nn::Conv1d human_conv{nullptr}, human_out{nullptr};
  torch::nn::Linear human_rating_fc{nullptr};
  torch::nn::BatchNorm1d human_bn{nullptr};
  // With NetConfig::human_rating_temperature: the log of the head's inverse temperature.
  torch::nn::Linear human_temperature_fc{nullptr};
};
TORCH_MODULE(Network);

}  // namespace kz
