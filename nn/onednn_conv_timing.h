// One convolution of the tower's shape timed through oneDNN in each data type it runs on
// this CPU: what a precision could give the forward before a network is built on it.
// `kumalak bench --peak` reports it beside the forward (docs/performance.md, "int8").
//
// The convolution is the one the forward runs most: kernel 3, `channels` in and out, on
// `positions` positions of `length` cells channels last, with its bias and ReLU fused,
// one thread. int8 is oneDNN's quantised convolution as a network would run it: u8
// activations (after a ReLU they are never negative), s8 weights, the s32 sums scaled
// back and written as u8 for the next layer; bf16 and fp32 as the forward runs them
// (nn/onednn_network.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kz {

struct ConvolutionTiming {
  std::string precision;       // "fp32", "bf16", "int8"
  std::string implementation;  // oneDNN's kernel ("brg:avx512_core", "jit_int8:...")
  double calls_per_s = 0;
  double gflops = 0;  // 2 x multiply-adds of one call x calls_per_s / 1e9
};

// The precisions this CPU's oneDNN runs (fp32 always, bf16 and int8 where it has them;
// a precision that only a reference kernel would run is left out), each timed for about
// `seconds` / (count) in alternating rounds. Empty when built without oneDNN.
std::vector<ConvolutionTiming> time_onednn_tower_convolutions(int64_t positions, int64_t length,
                                                              int64_t channels, double seconds);

}  // namespace kz
