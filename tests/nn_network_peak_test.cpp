// `kumalak bench --peak`'s figures as a library function (nn/network_peak.h), in-process
// on a tiny network: every key bench prints, in its order, with rates where they ran and
// null where this CPU or build cannot run a forward.
#include <gtest/gtest.h>

#include "nn/features.h"
#include "nn/network_peak.h"
#include "nn_test_util.h"

namespace kz {
namespace {

TEST(NetworkPeak, RoundsFiguresToTheirDecimals) {
  EXPECT_EQ(round_to(1.23456, 2), 1.23);
  EXPECT_EQ(round_to(1.235, 0), 1.0);
  EXPECT_EQ(round_to(-2.5, 0), -3.0);  // std::round: halves away from zero
}

TEST(NetworkPeak, EveryFigureOfATinyNetwork) {
  const GameSpec spec = GameSpec::togyz();
  Model m = make_random_model(spec, test::tiny_net_config(), 3);
  m.net->eval();
  const int64_t batch = 8, L = ring_length(Position::start(spec));
  const torch::Tensor input = torch::randn({batch, kNumPlanes, L});
  const nlohmann::ordered_json j = measure_network_peak(m.net, input, spec.pits, torch::kCPU, 0.3);
  // The order bench prints them in: the peaks first, the forwards last.
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.begin().key(), "fp32_peak_isa");
  const std::string rows = std::to_string(batch * L);  // batch x cells, 3C = 48, C = 16
  EXPECT_EQ(j.at("conv_matmul_shape").get<std::string>(), "[" + rows + " x 48] x [48 x 16]");
  for (const char* key : {"conv_matmul_gflops", "conv1d_gflops", "folded_net_evals_per_s",
                          "unfolded_net_evals_per_s", "fold_speedup", "folded_net_gflops"})
    EXPECT_GT(j.at(key).get<double>(), 0) << key;
  // Each precision's figures are there, numbers or null.
  for (const char* precision : {"fp32", "bf16", "int8"})
    for (const char* what : {"net_evals_per_s", "net_of_peak", "speedup", "implementation"}) {
      const std::string key = std::string("onednn_") + precision + "_" + what;
      EXPECT_TRUE(j.contains(key)) << key;
    }
  EXPECT_TRUE(j.contains("onednn_int8_over_bf16"));
  EXPECT_EQ(j.back().is_null() || j.back().is_number(), true);
}

// bench's network alone: forwards of one batch on a thread of their own, counted.
TEST(NetworkPeak, TheForwardTimedAlone) {
  const GameSpec spec = GameSpec::togyz();
  Model m = make_random_model(spec, test::tiny_net_config(), 3);
  m.net->eval();
  const int batch = 4, L = ring_length(Position::start(spec));
  const std::vector<float> features(size_t(batch) * kNumPlanes * L, 0.5f);
  const InferenceNetwork inference(m.net, torch::kCPU, InferenceOptions{});
  const ForwardTiming t = time_forward(inference, features, batch, spec.pits, torch::kCPU, 0.05);
  EXPECT_GT(t.positions, 0);
  EXPECT_EQ(t.positions % batch, 0) << "whole batches";
  EXPECT_GE(t.seconds, 0.05);
  EXPECT_GT(t.cpu_seconds, 0);
}

}  // namespace
}  // namespace kz
