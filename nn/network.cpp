#include "nn/network.h"

#include "nn/convolution_check.h"
#include "nn/features.h"
#include "nn/human_rating.h"

namespace kz {

namespace {
torch::nn::Conv1dOptions conv_options(int in, int out, int kernel) {
  // Zero padding, not circular: LibTorch 1.13 runs circular padding through a slow
  // generic path (about 5x slower here), while the global-pooling bias in each block
  // gives every cell a view of the whole ring anyway.
  return torch::nn::Conv1dOptions(in, out, kernel).bias(false).padding(kernel / 2);
}
}  // namespace

ResidualBlockImpl::ResidualBlockImpl(int channels) {
  conv1 = register_module("conv1", torch::nn::Conv1d(conv_options(channels, channels, 3)));
  bn1 = register_module("bn1", torch::nn::BatchNorm1d(channels));
  pool_fc = register_module("pool_fc", torch::nn::Linear(channels, channels));
  conv2 = register_module("conv2", torch::nn::Conv1d(conv_options(channels, channels, 3)));
  bn2 = register_module("bn2", torch::nn::BatchNorm1d(channels));
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x) {
  auto y = torch::relu(bn1(conv1(x)));
  // Global pooling bias: what happens anywhere on the ring (a big pile that will lap
  // the board, a tuzdyk far away) reaches every cell in one block.
  y = y + pool_fc(y.mean(2)).unsqueeze(2);
  y = bn2(conv2(y));
  return torch::relu(x + y);
}

NetworkImpl::NetworkImpl(const NetConfig& c) : config(c) {
  ensure_sound_cpu_convolution();  // once per process: see nn/convolution_check.h
  input_conv =
      register_module("input_conv", torch::nn::Conv1d(conv_options(kNumPlanes, c.channels, 3)));
  input_bn = register_module("input_bn", torch::nn::BatchNorm1d(c.channels));
  tower = register_module("tower", torch::nn::ModuleList());
  for (int b = 0; b < c.blocks; ++b) tower->push_back(ResidualBlock(c.channels));
  policy_conv = register_module("policy_conv",
                                torch::nn::Conv1d(conv_options(c.channels, c.policy_channels, 1)));
  policy_bn = register_module("policy_bn", torch::nn::BatchNorm1d(c.policy_channels));
  policy_out = register_module(
      "policy_out",
      torch::nn::Conv1d(torch::nn::Conv1dOptions(c.policy_channels, 1, 1).bias(true)));
  value_conv = register_module("value_conv",
                               torch::nn::Conv1d(conv_options(c.channels, c.value_channels, 1)));
  value_bn = register_module("value_bn", torch::nn::BatchNorm1d(c.value_channels));
  value_fc = register_module("value_fc", torch::nn::Linear(2 * c.value_channels, c.value_hidden));
  wdl_out = register_module("wdl_out", torch::nn::Linear(c.value_hidden, 3));
  margin_out = register_module("margin_out", torch::nn::Linear(c.value_hidden, 1));
  if (c.opponent_policy_head) {
    opponent_policy_conv = register_module(
        "opponent_policy_conv", torch::nn::Conv1d(conv_options(c.channels, c.policy_channels, 1)));
    opponent_policy_bn =
        register_module("opponent_policy_bn", torch::nn::BatchNorm1d(c.policy_channels));
    opponent_policy_out = register_module(
        "opponent_policy_out",
        torch::nn::Conv1d(torch::nn::Conv1dOptions(c.policy_channels, 1, 1).bias(true)));
  }
  if (c.score_distribution_head) {
    TORCH_CHECK(c.score_max_margin > 0,
                "a score distribution head needs the game's largest margin (score_max_margin)");
    score_out =
        register_module("score_out", torch::nn::Linear(c.value_hidden, 2 * c.score_max_margin + 1));
  }
  if (c.human_policy_head) {
    human_conv = register_module("human_conv",
                                 torch::nn::Conv1d(conv_options(c.channels, c.policy_channels, 1)));
    human_rating_fc = register_module(
        "human_rating_fc",
        torch::nn::Linear(
            torch::nn::LinearOptions(kHumanRatingInputs, c.policy_channels).bias(false)));
    human_bn = register_module("human_bn", torch::nn::BatchNorm1d(c.policy_channels));
    human_out = register_module(
        "human_out",
        torch::nn::Conv1d(torch::nn::Conv1dOptions(c.policy_channels, 1, 1).bias(true)));
    if (c.human_rating_temperature)
      human_temperature_fc = register_module(
          "human_temperature_fc",
          torch::nn::Linear(torch::nn::LinearOptions(kHumanRatingInputs, 1).bias(false)));
  }
}

torch::Tensor NetworkImpl::trunk(const torch::Tensor& features) {
  auto x = torch::relu(input_bn(input_conv(features)));
  for (auto& block : *tower) x = block->as<ResidualBlock>()->forward(x);
  return x;
}

torch::Tensor NetworkImpl::human_policy(const torch::Tensor& trunk_out,
                                        const torch::Tensor& rating_inputs, int pits) {
  TORCH_CHECK(config.human_policy_head,
              "the human policy was asked for, but this network has none");
  auto h = human_conv(trunk_out) + human_rating_fc(rating_inputs).unsqueeze(2);
  h = torch::relu(human_bn(h));
  auto logits = human_out(h).squeeze(1).narrow(1, 0, pits);
  if (human_temperature_fc) logits = logits * torch::exp(human_temperature_fc(rating_inputs));
  return logits;
}

torch::Tensor NetworkImpl::human_policy_grid(const torch::Tensor& trunk_out,
                                             const torch::Tensor& rating_inputs, int pits) {
  TORCH_CHECK(config.human_policy_head,
              "the human policy was asked for, but this network has none");
  const auto base = human_conv(trunk_out.narrow(2, 0, pits));   // [B, P, m]: only the mover's row
  const auto bias = human_rating_fc(rating_inputs);             // [G, P]
  auto h = base.unsqueeze(0) + bias.unsqueeze(1).unsqueeze(3);  // [G, B, P, m]
  const int64_t G = h.size(0), B = h.size(1), P = h.size(2);
  h = torch::relu(human_bn(h.reshape({G * B, P, pits})));
  auto logits = human_out(h).reshape({G, B, pits});
  if (human_temperature_fc)
    logits = logits * torch::exp(human_temperature_fc(rating_inputs)).unsqueeze(2);  // [G, 1, 1]
  return logits;
}

NetOutput NetworkImpl::forward(const torch::Tensor& features, int pits, bool opponent_policy) {
  const auto x = trunk(features);

  auto p = torch::relu(policy_bn(policy_conv(x)));
  p = policy_out(p).squeeze(1).narrow(1, 0, pits);  // [B, m]: the mover's row

  auto v = torch::relu(value_bn(value_conv(x)));
  v = torch::cat({v.mean(2), std::get<0>(v.max(2))}, 1);
  v = torch::relu(value_fc(v));
  NetOutput out{p, wdl_out(v), margin_out(v).squeeze(1), {}, {}};
  if (config.score_distribution_head) out.score_logits = score_out(v);
  if (opponent_policy) {
    TORCH_CHECK(config.opponent_policy_head,
                "the opponent-policy head was asked for, but this network has none");
    auto q = torch::relu(opponent_policy_bn(opponent_policy_conv(x)));
    out.opponent_policy_logits = opponent_policy_out(q).squeeze(1);  // [B, 2m]: the whole ring
  }
  return out;
}

int64_t NetworkImpl::parameter_count() const {
  int64_t n = 0;
  for (const auto& t : parameters()) n += t.numel();
  return n;
}

}  // namespace kz
