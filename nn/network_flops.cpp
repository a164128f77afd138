#include "nn/network_flops.h"

#include "nn/features.h"

namespace kz {

int64_t forward_flops_per_position(const NetConfig& c, int ring_length) {
  const int64_t L = ring_length, C = c.channels;
  // 2 FLOPs per multiply-add: a convolution of kernel k from `in` to `out` channels
  // over L cells, and a fully connected layer from `in` to `out`.
  auto conv = [L](int64_t in, int64_t out, int64_t kernel) { return 2 * L * in * out * kernel; };
  auto fc = [](int64_t in, int64_t out) { return 2 * in * out; };
  int64_t flops = conv(kNumPlanes, C, 3);
  flops += c.blocks * (2 * conv(C, C, 3) + fc(C, C));
  flops += conv(C, c.policy_channels, 1) + conv(c.policy_channels, 1, 1);
  flops += conv(C, c.value_channels, 1) + fc(2 * c.value_channels, c.value_hidden);
  flops += fc(c.value_hidden, 3) + fc(c.value_hidden, 1);
  if (c.score_distribution_head) flops += fc(c.value_hidden, 2 * c.score_max_margin + 1);
  return flops;
}

}  // namespace kz
