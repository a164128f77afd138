// kumalak bench --peak and --no-fold: the CPU's peak and the network against it, and the
// unfolded path kept for comparison; --tree-only: the tree alone (tools/cmd_bench.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/test_util.h"

namespace kz {
namespace {

nlohmann::json bench(const std::string& args) {
  std::string out;
  const int status = test::run_command(
      test::bin("kumalak") +
          " bench --game kalah --seconds 0.6 --channels 8 --blocks 1 --batch 32 --threads 1 " +
          args,
      &out);
  EXPECT_EQ(status, 0) << out;
  return nlohmann::json::parse(out.substr(0, out.find('\n')));
}

TEST(BenchPeak, SetsTheNetworkAgainstTheMeasuredPeak) {
  const nlohmann::json j = bench("--peak");
  // The keys of a plain bench stay.
  for (const char* key : {"net_evals_per_s", "search_evals_per_s", "busy_ratio", "bytes_per_node"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["fold_batch_norm"], true);
  EXPECT_GT(j["net_flops_per_position"].get<double>(), 0);
#if defined(__x86_64__)
  EXPECT_NE(j["fp32_peak_isa"], "absent");
  EXPECT_GT(j["fp32_peak_gflops"].get<double>(), 1.0);
#endif
  for (const char* key : {"conv_matmul_gflops", "conv1d_gflops", "folded_net_evals_per_s",
                          "unfolded_net_evals_per_s", "fold_speedup", "folded_net_gflops"})
    EXPECT_GT(j[key].get<double>(), 0) << key;
  if (j["fp32_peak_isa"] != "absent") {
    // The network cannot beat the core's peak: a FLOP count or a peak loop gone wrong
    // (the compiler folding the loop away) shows here.
    EXPECT_LT(j["folded_net_of_peak"].get<double>(), 1.0);
    EXPECT_LT(j["unfolded_net_of_peak"].get<double>(), 1.0);
    if (!j["onednn_fp32_net_of_peak"].is_null()) {
      EXPECT_LT(j["onednn_fp32_net_of_peak"].get<double>(), 1.0);
    }
    if (!j["onednn_bf16_net_of_bf16_peak"].is_null()) {
      EXPECT_LT(j["onednn_bf16_net_of_bf16_peak"].get<double>(), 1.0);
    }
  }
  // The oneDNN path where the build has it (it names its kernel), else null.
  EXPECT_TRUE(j.contains("onednn_fp32_net_evals_per_s"));
  if (!j["onednn_fp32_net_evals_per_s"].is_null()) {
    EXPECT_NE(j["inference"].get<std::string>().find("onednn fp32"), std::string::npos) << j.dump();
  }
  EXPECT_EQ(j["bf16_peak_isa"] == "absent", j["bf16_peak_gflops"].is_null());
}

TEST(BenchPeak, BackendAndPrecisionChooseTheForward) {
  const nlohmann::json j = bench("--backend libtorch --precision bf16");
  EXPECT_EQ(j["inference"], "libtorch fp32") << j.dump();
  EXPECT_NE(test::run_command(test::bin("kumalak") + " bench --precision fp16", nullptr), 0);
}

TEST(BenchPeak, NoFoldRunsTheUnfoldedNetwork) {
  const nlohmann::json j = bench("--no-fold");
  EXPECT_EQ(j["fold_batch_norm"], false);
  EXPECT_NE(j["evaluator"].get<std::string>().find("unfolded"), std::string::npos) << j.dump();
  EXPECT_FALSE(j.contains("fp32_peak_gflops"));
}

TEST(BenchTreeOnly, MeasuresTheTreeWithoutTheNetwork) {
  const nlohmann::json j = bench("--tree-only");
  EXPECT_EQ(j["evaluator"], "constant");
  EXPECT_GT(j["tree_visits_per_s"].get<double>(), 0);
  EXPECT_GT(j["tree_ns_per_visit"].get<double>(), 0);
  EXPECT_GT(j["tree_leaves_per_s"].get<double>(), 0);
  EXPECT_LT(j["tree_eval_time_share"].get<double>(), 0.5);  // the evaluator costs nothing
  EXPECT_FALSE(j.contains("net_evals_per_s"));              // no network ran
}

}  // namespace
}  // namespace kz
