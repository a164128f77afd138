// The search half of `kumalak bench` without the binary or LibTorch
// (tools/search_bench.h): positions to search from, a short measurement one round at a
// time and pipelined, and `--tree-only`'s object.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kz::cli
