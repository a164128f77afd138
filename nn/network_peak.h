// `kumalak bench --peak`'s figures: how close the network's forward comes to what the
// CPU can do. The CPU's fp32 and bf16 peaks (nn/cpu_peak.h), one tower convolution of
// the network's shape as a matrix product, through torch::conv1d and through oneDNN, and
// the forward folded, unfolded and through oneDNN in each precision this CPU has, in
// alternating rounds so that a change in the machine's load falls on all of them.
// tools/cmd_bench.cpp lists the keys. And the forward alone at the bench's batch, timed
// on a thread of its own (bench's net_evals_per_s).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "nn/inference_network.h"
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

// What a forward timed alone did.
struct ForwardTiming {
  int64_t positions = 0;   // positions evaluated
  double seconds = 0;      // wall time
  double cpu_seconds = 0;  // its thread's CPU time
};

// `inference`'s forward of one batch, on a thread of its own (as the pipelined search
// runs the network), three warm-up calls, then forward after forward for `seconds`, each
// output brought back to the CPU as the evaluator does (which waits for the device).
//   inference: the forward to time
//   features: the batch's features, `batch` rows of [planes, 2 * pits] one after another
//   batch: the positions in `features`
//   pits: the pits of the network's game
//   device: where the forwards run
//   seconds: about how long to time them
ForwardTiming time_forward(const InferenceNetwork& inference, const std::vector<float>& features,
                           int batch, int pits, const torch::Device& device, double seconds);

}  // namespace kz
