// The arithmetic of one position's forward pass, counted from the network's shapes, so
// that a measured speed can be set against the CPU's peak (`kumalak bench --peak`).
#pragma once

#include <cstdint>

#include "nn/net_config.h"

namespace kz {

// FLOPs of one position through what play evaluates (InferenceNetwork::forward) on a
// ring of `ring_length` cells (2 x pits): every multiply-add of a convolution or a
// fully connected layer counts 2. Counted: the input convolution, each block's two
// kernel-3 convolutions and its pooling FC, the policy head's two 1x1 convolutions
// (over the whole ring: the mover's row is taken after), the value head's 1x1
// convolution, its FC and the W/D/L, margin and score distribution outputs. Not
// counted: biases, batch norms, ReLUs, pooling and the residual adds (one operation per
// value, under 2% of the total for the shipped networks) and the opponent-policy head,
// which play never computes.
int64_t forward_flops_per_position(const NetConfig& config, int ring_length);

}  // namespace kz
