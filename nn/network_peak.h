// `kumalak bench --peak`'s figures: how close the network's forward comes to what the
// CPU can do. The CPU's fp32 and bf16 peaks (nn/cpu_peak.h), one tower convolution of
// the network's shape as a matrix product, through torch::conv1d and through oneDNN, and
// the forward folded, unfolded and through oneDNN in each precision this CPU has, in
// alternating rounds so that a change in the machine's load falls on all of them.
// tools/cmd_bench.cpp lists the keys.
#pragma once

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "nn/network.h"

namespace kz {

// `x` rounded to `decimals` decimal places, as the benchmark's figures are printed.
double round_to(double x, int decimals);

// The --peak figures as one JSON object, its keys in the order bench prints them.
//   net: the network to time
//   input: the features of a batch of positions, [batch, planes, cells], on `device`
//   pits: the pits of the network's game
//   device: where the forwards run (oneDNN only on the CPU)
//   seconds: about how long the forwards are timed, in all (the peaks and convolutions
//            take about 2.5 s more)
nlohmann::ordered_json measure_network_peak(const Network& net, const torch::Tensor& input,
                                            int pits, const torch::Device& device, double seconds);

}  // namespace kz
