// The search half of `kumalak bench` without the binary or LibTorch
// (tools/search_bench.h): positions to search from, a short measurement one round at a
// time and pipelined, `--tree-only`'s object, and bench's object from what was measured.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "mcts/constant_evaluator.h"
#include "tools/search_bench.h"

namespace kz::cli {
namespace {

TEST(SearchBench, PositionsAreUndecidedAndSeeded) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  std::mt19937_64 a(7), b(7);
  for (int i = 0; i < 20; ++i) {
    const Position p = random_bench_position(spec, a);
    EXPECT_FALSE(p.is_decided());
    EXPECT_EQ(p.to_string(), random_bench_position(spec, b).to_string());
  }
}

TEST(SearchBench, BothSchedulesSearchAndCount) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  ConstantEvaluator evaluator;
  SearchParams params;
  params.leaves_per_batch = 4;
  const SearchBenchSettings settings{.batch = 16, .leaves_per_search = 4, .visits = 32};
  std::mt19937_64 rng(7);
  for (bool pipelined : {false, true}) {
    const SearchFigures f =
        measure_search(spec, evaluator, params, settings, pipelined, 0.05, 2, rng);
    EXPECT_GT(f.visits, 0) << pipelined;
    EXPECT_GT(f.stats.evaluated, 0u) << pipelined;
    EXPECT_GE(f.seconds, 0.05) << pipelined;
    EXPECT_GT(f.peak_nodes, 0u) << pipelined;
  }
  const nlohmann::ordered_json j = tree_bench(spec, settings, true, 0.05);
  EXPECT_EQ(j["game"], spec.name());
  EXPECT_EQ(j["batch"], 16);
  EXPECT_GT(j["tree_visits_per_s"].get<double>(), 0);
  EXPECT_EQ(j["bytes_per_node"], Search::bytes_per_node());
  EXPECT_TRUE(j.contains("tree_ns_per_visit"));
}

// bench's object from figures made up to give round numbers: each key in its order,
// the rates and shares computed from them.
TEST(SearchBench, TheObjectFromWhatWasMeasured) {
  const GameSpec spec = GameSpec::kalah(4, 3);
  const BenchRun run{{.batch = 16, .leaves_per_search = 4, .visits = 32}, 1, 64, true};
  const BenchNetwork network{"evaluator e", "onednn fp32 (x)", "fp32", true, 1234, 2000000};
  const NetFigures net{1000, 2.0, 1.0};  // 500 a second, 1000 a CPU second
  SearchFigures serial, piped;
  serial.stats.evaluated = 100;
  serial.stats.eval_seconds = 0.5;
  serial.seconds = 1;
  piped.stats.evaluated = 400;
  piped.stats.batches = 40;
  piped.stats.eval_seconds = 1;
  piped.seconds = 2;
  piped.cpu_seconds = 3;
  piped.visits = 1000;
  piped.peak_nodes = 10;
  piped.visits_at_peak = 20;
  const nlohmann::ordered_json j = bench_json(spec, run, network, net, serial, piped);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  const std::vector<std::string> expected = {"game",
                                             "evaluator",
                                             "parameters",
                                             "batch",
                                             "threads",
                                             "search_threads",
                                             "games_in_parallel",
                                             "leaves_per_search",
                                             "score_bounds",
                                             "net_evals_per_s",
                                             "search_evals_per_s",
                                             "search_visits_per_s",
                                             "busy_ratio",
                                             "net_evals_per_cpu_s",
                                             "search_evals_per_cpu_s",
                                             "search_cpu_share",
                                             "avg_batch",
                                             "cache_hit_rate",
                                             "eval_time_share",
                                             "serial_search_evals_per_s",
                                             "serial_busy_ratio",
                                             "serial_eval_time_share",
                                             "bytes_per_node",
                                             "bytes_per_visit",
                                             "nodes_per_gib",
                                             "fold_batch_norm",
                                             "inference",
                                             "precision",
                                             "net_flops_per_position",
                                             "net_gflops"};
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(j["game"], spec.name());
  EXPECT_EQ(j["evaluator"], "evaluator e");
  EXPECT_EQ(j["parameters"], 1234);
  EXPECT_EQ(j["search_threads"], 8) << "at most one a game: 2 x 16 / 4";
  EXPECT_EQ(j["games_in_parallel"], 8);
  EXPECT_EQ(j["net_evals_per_s"], 500.0);
  EXPECT_EQ(j["search_evals_per_s"], 200.0);
  EXPECT_EQ(j["search_visits_per_s"], 500.0);
  EXPECT_EQ(j["busy_ratio"], 0.4);
  EXPECT_EQ(j["net_evals_per_cpu_s"], 1000.0);
  EXPECT_DOUBLE_EQ(j["search_evals_per_cpu_s"].get<double>(), 133.0);
  EXPECT_EQ(j["search_cpu_share"], 1.5);
  EXPECT_EQ(j["avg_batch"], 10.0);
  EXPECT_EQ(j["eval_time_share"], 0.5);
  EXPECT_EQ(j["serial_search_evals_per_s"], 100.0);
  EXPECT_EQ(j["serial_busy_ratio"], 0.2);
  EXPECT_EQ(j["serial_eval_time_share"], 0.5);
  EXPECT_EQ(j["bytes_per_visit"], std::round(10.0 * double(Search::bytes_per_node()) / 20.0));
  EXPECT_EQ(j["fold_batch_norm"], true);
  EXPECT_EQ(j["precision"], "fp32");
  EXPECT_EQ(j["net_flops_per_position"], 2000000);
  EXPECT_EQ(j["net_gflops"], 1.0);  // 500 x 2e6 / 1e9
}

}  // namespace
}  // namespace kz::cli
