// kumalak bench --peak and --no-fold: the CPU's peak and the network against it, and the
// unfolded path kept for comparison; --tree-only: the tree alone (tools/cmd_bench.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/test_util.h"

namespace kz {
namespace {

// The bench's command line; `environment`: variables set for it (after KUMALAK_PRECISION
// is taken away, so that the default precision is the build's own).
std::string bench_command(const std::string& args, const std::string& environment = "") {
  return "env -u KUMALAK_PRECISION " + environment + " " + test::bin("kumalak") +
         " bench --game kalah --seconds 0.6 --channels 8 --blocks 1 --batch 32 --threads 1 " + args;
}

nlohmann::json bench(const std::string& args, const std::string& environment = "") {
  std::string out;
  const int status = test::run_command(bench_command(args, environment), &out);
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
  // The oneDNN path where the build has it (it names its kernel), else null; by default
  // in bf16 exactly where --peak could run the bf16 forward, else in fp32.
  EXPECT_TRUE(j.contains("onednn_fp32_net_evals_per_s"));
  if (!j["onednn_fp32_net_evals_per_s"].is_null()) {
    const std::string precision = j["onednn_bf16_net_evals_per_s"].is_null() ? "fp32" : "bf16";
    EXPECT_EQ(j["precision"], precision) << j.dump();
    EXPECT_NE(j["inference"].get<std::string>().find("onednn " + precision), std::string::npos)
        << j.dump();
  }
  EXPECT_EQ(j["bf16_peak_isa"] == "absent", j["bf16_peak_gflops"].is_null());
  // Both fp32 convolutions timed side by side wherever ours can run, whichever the
  // default is (null together where they cannot: the 8-channel network here).
  EXPECT_EQ(j["direct_fp32_net_evals_per_s"].is_null(),
            j["onednn_kernels_fp32_net_evals_per_s"].is_null())
      << j.dump();
  EXPECT_EQ(j["direct_bf16_net_evals_per_s"].is_null(),
            j["onednn_kernels_bf16_net_evals_per_s"].is_null())
      << j.dump();
  EXPECT_EQ(j["direct_bf16_over_onednn_kernels"].is_null(),
            j["direct_bf16_net_evals_per_s"].is_null())
      << j.dump();
  // int8 (our kernels, VNNI) beside bf16: its ratio exactly where both ran.
  EXPECT_TRUE(j.contains("onednn_int8_net_evals_per_s"));
  EXPECT_EQ(j["onednn_int8_over_bf16"].is_null(), j["onednn_int8_net_evals_per_s"].is_null() ||
                                                      j["onednn_bf16_net_evals_per_s"].is_null())
      << j.dump();
  if (!j["direct_fp32_net_evals_per_s"].is_null()) {
    const double ours = j["direct_fp32_net_evals_per_s"].get<double>(),
                 theirs = j["onednn_kernels_fp32_net_evals_per_s"].get<double>();
    EXPECT_GT(ours, 0);
    EXPECT_GT(theirs, 0);
    EXPECT_NEAR(j["direct_over_onednn_kernels"].get<double>(), ours / theirs, 0.01 * ours / theirs);
  }
  // The tower's convolution through oneDNN in each precision it runs here: fp32 wherever
  // the oneDNN forward runs, each with its kernel's name, and int8's ratios exactly
  // where both sides were timed.
  EXPECT_EQ(j["onednn_conv_fp32_gflops"].is_null(), j["onednn_fp32_net_evals_per_s"].is_null())
      << j.dump();
  for (const std::string precision : {"fp32", "bf16", "int8"}) {
    const std::string key = "onednn_conv_" + precision;
    ASSERT_TRUE(j.contains(key + "_gflops")) << key;
    EXPECT_EQ(j[key + "_gflops"].is_null(), j[key + "_implementation"].is_null()) << key;
    if (j[key + "_gflops"].is_null()) continue;
    EXPECT_GT(j[key + "_gflops"].get<double>(), 0) << key;
    EXPECT_FALSE(j[key + "_implementation"].get<std::string>().empty()) << key;
  }
  for (const std::string other : {"bf16", "fp32"}) {
    const nlohmann::json& ratio = j["onednn_conv_int8_over_" + other];
    EXPECT_EQ(ratio.is_null(), j["onednn_conv_int8_gflops"].is_null() ||
                                   j["onednn_conv_" + other + "_gflops"].is_null())
        << other;
    if (!ratio.is_null()) {
      EXPECT_NEAR(ratio.get<double>(),
                  j["onednn_conv_int8_gflops"].get<double>() /
                      j["onednn_conv_" + other + "_gflops"].get<double>(),
                  0.02 * ratio.get<double>());
    }
  }
}

TEST(BenchPeak, BackendAndPrecisionChooseTheForward) {
  const nlohmann::json j = bench("--backend libtorch --precision bf16");
  EXPECT_EQ(j["inference"], "libtorch fp32") << j.dump();
  EXPECT_EQ(j["precision"], "fp32") << j.dump();
  EXPECT_NE(test::run_command(test::bin("kumalak") + " bench --precision fp16", nullptr), 0);
  // KUMALAK_PRECISION sets the default; --precision wins over it.
  const nlohmann::json fp32 = bench("", "KUMALAK_PRECISION=fp32");
  EXPECT_EQ(fp32["precision"], "fp32") << fp32.dump();
  const nlohmann::json asked = bench("--precision fp32", "KUMALAK_PRECISION=bf16");
  EXPECT_EQ(asked["precision"], "fp32") << asked.dump();
  // A bad value is refused with the variable's name, not a crash.
  std::string out;
  EXPECT_EQ(test::run_command(bench_command("", "KUMALAK_PRECISION=fp16"), &out, true), 1);
  EXPECT_NE(out.find("KUMALAK_PRECISION"), std::string::npos) << out;
  EXPECT_NE(out.find("fp16"), std::string::npos) << out;
}

// oneDNN capped below bf16 (ONEDNN_MAX_CPU_ISA=AVX512_CORE: AVX-512 without its bf16
// instructions) on a CPU that has them: the default, auto, runs fp32 instead of failing,
// and bf16 asked for is refused with the reason.
TEST(BenchPeak, TheDefaultIsFp32WhereBf16IsAbsent) {
  const std::string capped = "ONEDNN_MAX_CPU_ISA=AVX512_CORE";
  const nlohmann::json j = bench("", capped);
  EXPECT_EQ(j["precision"], "fp32") << j.dump();
  if (j["inference"].get<std::string>().rfind("onednn", 0) == 0) {
    EXPECT_NE(j["inference"].get<std::string>().find("onednn fp32"), std::string::npos) << j.dump();
    std::string out;
    EXPECT_EQ(test::run_command(bench_command("--precision bf16", capped), &out, true), 1);
    EXPECT_NE(out.find("ONEDNN_MAX_CPU_ISA"), std::string::npos) << out;
  }
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
