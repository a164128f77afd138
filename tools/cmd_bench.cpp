// kumalak bench: how fast the network evaluates and how well the search keeps it busy.
// Prints one JSON object: bench_json's keys (tools/search_bench.h), measured here.
// With --tree-only, only the tree's own speed (run_tree_bench() lists its keys).
// With --peak, first the CPU's limit and the network against it, one thread each
// (docs/performance.md, "CPU peak and the network"):
//   fp32_peak_isa, fp32_peak_gflops    register-only FMA loop (nn/cpu_peak.h); "absent"
//                                      and 0 without AVX2+FMA
//   bf16_peak_isa, bf16_peak_gflops    vdpbf16ps loop; "absent" and null without
//                                      avx512_bf16; bf16_peak_of_fp32 their ratio
//   conv_matmul_shape, conv_matmul_gflops  one kernel-3 tower convolution of the model
//                       at the bench's batch as the matrix product it is (torch::mm of
//                       the unfolded input [B*L, 3C] by the weights [3C, C])
//   conv1d_gflops       the same convolution through torch::conv1d, as the forward runs it
//   onednn_conv_{fp32,bf16,int8}_gflops, _implementation  the same convolution through
//                       oneDNN at the forward's chunk of 64 positions, with its bias and
//                       ReLU, in each precision this CPU's oneDNN runs (null where not;
//                       nn/onednn_conv_timing.h); onednn_conv_int8_over_bf16 and
//                       _over_fp32: what int8 would give the convolutions
//   folded_net_evals_per_s, unfolded_net_evals_per_s  the forward at the bench's batch
//                       both ways, alternated in rounds within this one run;
//                       fold_speedup = folded / unfolded
//   folded_net_gflops, unfolded_net_gflops  the same in GFLOP/s
//   onednn_fp32_net_*, onednn_bf16_net_*, onednn_int8_net_*  the oneDNN forward (play's
//                       path) in fp32 and, where the CPU has it, bf16 and int8 (our
//                       kernels, AVX-512 VNNI; null without), in the same rounds:
//                       evals_per_s, gflops, of_peak; onednn_bf16_net_of_bf16_peak;
//                       onednn_*_speedup: over unfolded_net (the LibTorch reference)
//                       and onednn_*_over_folded: over folded_net
//   onednn_int8_over_bf16  the int8 forward over the bf16 one (null unless both ran)
//   onednn_kernels_fp32_net_*, direct_fp32_net_*  the fp32 forward with oneDNN's
//                       convolutions and with ours (nn/direct_convolution.h), where both
//                       can run, whichever is the default: evals_per_s, of_peak; and
//                       direct_over_onednn_kernels (null where only one can run)
//   onednn_kernels_bf16_net_*, direct_bf16_net_*, direct_bf16_over_onednn_kernels  the
//                       same in bf16, where the CPU has avx512_bf16
//   *_of_peak           each GFLOP/s figure as a fraction of fp32_peak_gflops
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "mcts/driver.h"
#include "mcts/game_runner.h"
#include "nn/cpu_peak.h"
#include "nn/direct_convolution.h"
#include "nn/features.h"
#include "nn/inference_network.h"
#include "nn/network_flops.h"
#include "nn/network_peak.h"
#include "nn/nn_evaluator.h"
#include "nn/onednn_conv_timing.h"
#include "tools/command_error.h"
#include "tools/commands.h"
#include "tools/json_text.h"
#include "tools/search_bench.h"

namespace kz::cli {

namespace {

struct BenchOptions {
  std::string game = "togyz";
  std::string model;
  std::string device = "cpu";
  int batch = 256;
  // One LibTorch thread: the pipelined search runs the tree on the other core (on two
  // cores, a second network thread would fight the tree thread for it).
  int threads = 1;
  // Search threads of the pipelined measurement (mcts/game_runner.h): each plays its
  // share of the games, all leaves through one batching front. 0 = half the cores.
  int search_threads = 0;
  double seconds = 10;
  int channels = 64, blocks = 6;
  int leaves_per_search = 8;
  int visits = 200;
  bool score_bounds = true;  // SearchParams::score_bounds (off: to compare its cost)
  // Run the network with its batch norms unfolded (the model's own forward), to compare
  // against the folded inference path that play uses.
  bool no_fold = false;
  // The forward's backend (onednn, libtorch, reference; --no-fold is reference) and the
  // oneDNN path's precision (auto, fp32, bf16, int8; default: KUMALAK_PRECISION or auto);
  // empty: default_inference_backend() (KUMALAK_BACKEND or onednn).
  std::string backend;
  std::string precision;
  // Also measure the CPU's peak and set the network's convolutions and forward against
  // it (the keys listed at the top of this file); adds seconds / 3 + about 3 s.
  bool peak = false;
  // Only the tree: the searches against a constant evaluator, no network (the keys of
  // run_tree_bench()).
  bool tree_only = false;
};

// How the searching games are set up, from the options.
SearchBenchSettings search_settings(const BenchOptions& o) {
  return {o.batch, o.leaves_per_search, o.visits};
}

int run_tree_bench(const BenchOptions& o) {
  const GameSpec spec = GameSpec::parse(o.game);
  std::cout << json_text(tree_bench(spec, search_settings(o), o.score_bounds, o.seconds))
            << std::endl;
  return 0;
}

int run_bench(const BenchOptions& o) {
  if (o.tree_only) return run_tree_bench(o);
  const GameSpec spec = GameSpec::parse(o.game);
  torch::set_num_threads(o.threads);
  const torch::Device device = parse_device(o.device);
  Model model = o.model.empty() ? make_random_model(spec, NetConfig{o.channels, o.blocks}, 1)
                                : load_model(o.model, &spec, device);
  std::mt19937_64 rng(7);

  // 1. The network alone: the same batch of encoded positions, forward after forward.
  std::vector<Position> batch;
  for (int i = 0; i < o.batch; ++i) batch.push_back(random_bench_position(spec, rng));
  const int L = 2 * spec.pits;
  std::vector<float> features(size_t(o.batch) * kNumPlanes * L);
  for (int i = 0; i < o.batch; ++i)
    encode_features(batch[i],
                    std::span<float>(features).subspan(size_t(i) * kNumPlanes * L, kNumPlanes * L));
  model.net->eval();
  model.net->to(device);
  if (!o.precision.empty()) set_default_inference_precision(parse_inference_precision(o.precision));
  InferenceOptions inference_options;
  inference_options.backend = o.no_fold           ? InferenceBackend::kReference
                              : o.backend.empty() ? default_inference_backend()
                                                  : parse_inference_backend(o.backend);
  const InferenceNetwork inference(model.net, device, inference_options);
  // With --peak, first, on this one thread and with the machine otherwise idle: the
  // peaks are one thread's.
  nlohmann::ordered_json peak_figures = nlohmann::ordered_json::object();
  if (o.peak)
    peak_figures = measure_network_peak(
        model.net,
        torch::from_blob(features.data(), {o.batch, kNumPlanes, L}, torch::kFloat32).to(device),
        spec.pits, device, o.seconds / 3);
  // Measured twice, before and after the searches, and on a thread of its own as the
  // pipelined search runs the network, so that neither a change in the machine's load
  // nor the thread the network runs on favours one side of busy_ratio.
  NetFigures net;
  auto measure_net = [&](double seconds) {
    const ForwardTiming t = time_forward(inference, features, o.batch, spec.pits, device, seconds);
    net.evals += t.positions;
    net.seconds += t.seconds;
    net.cpu_seconds += t.cpu_seconds;
  };
  measure_net(o.seconds / 6);

  // 2. Search: enough games that their leaves fill one batch; each game plays on when
  // its search reaches the visit target, as in self-play. Measured twice: one round at
  // a time (step), and pipelined (two halves of twice the games taking turns, so the
  // tree work of one half overlaps the network's work on the other; what self-play
  // uses).
  NnEvaluator evaluator(model, device, inference_options);
  SearchParams params;
  params.leaves_per_batch = o.leaves_per_search;
  params.score_bounds = o.score_bounds;
  const int search_threads = search_threads_or_default(o.search_threads);
  auto measure = [&](bool pipelined, double seconds) {
    return measure_search(spec, evaluator, params, search_settings(o), pipelined, seconds,
                          search_threads, rng);
  };
  const SearchFigures serial = measure(false, o.seconds / 3);
  const SearchFigures piped = measure(true, o.seconds / 3);
  measure_net(o.seconds / 6);
  const BenchNetwork network{evaluator.describe(),
                             evaluator.inference().describe(),
                             to_string(evaluator.inference().precision()),
                             inference.folded(),
                             model.net->parameter_count(),
                             forward_flops_per_position(model.net->config, L)};
  nlohmann::ordered_json j =
      bench_json(spec, {search_settings(o), o.threads, search_threads, o.score_bounds}, network,
                 net, serial, piped);
  for (const auto& [key, value] : peak_figures.items()) j[key] = value;
  std::cout << json_text(j) << std::endl;
  return 0;
}

}  // namespace

void register_bench(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<BenchOptions>();
  auto* cmd =
      app.add_subcommand("bench", "Measure network and search speed; prints one JSON object");
  add_game_option(cmd, opt->game);
  cmd->add_option("--model", opt->model, "model file (default: a freshly initialised network)");
  cmd->add_option("--batch", opt->batch, "positions per network call")->check(in_range(1, 65536));
  cmd->add_option("--threads", opt->threads, "LibTorch intra-op threads")
      ->check(in_range(1, kMaxThreads));
  cmd->add_option("--search-threads", opt->search_threads,
                  "search threads of the pipelined search (default: half the cores)")
      ->check(in_range(0, kMaxThreads));
  cmd->add_option("--seconds", opt->seconds, "total time, split between the three measurements")
      ->check(in_range(0.2, 3600.0));
  cmd->add_option("--device", opt->device, "cpu, cuda or cuda:N");
  cmd->add_option("--channels", opt->channels, "network width for a fresh network")
      ->check(in_range(1, 1024));
  cmd->add_option("--blocks", opt->blocks, "residual blocks for a fresh network")
      ->check(in_range(0, 64));
  cmd->add_option("--leaves-per-search", opt->leaves_per_search, "leaves each game adds to a batch")
      ->check(in_range(1, 1024));
  cmd->add_option("--visits", opt->visits, "visits per move in the searching games")
      ->check(in_range(1, 1000000));
  cmd->add_option("--score-bounds", opt->score_bounds,
                  "exact margins in the search (true/false; false to compare the cost)");
  cmd->add_flag("--no-fold", opt->no_fold,
                "run the network with its batch norms unfolded (the model's own forward), to "
                "compare with the folded inference path play uses");
  cmd->add_option("--backend", opt->backend,
                  "the forward: onednn (play's: oneDNN, where the build has it), libtorch "
                  "(folded, LibTorch operators) or reference (the model's own, as --no-fold); "
                  "default: KUMALAK_BACKEND, else onednn")
      ->check(CLI::IsMember({"onednn", "libtorch", "reference"}));
  cmd->add_option("--precision", opt->precision,
                  "the oneDNN path's arithmetic: auto (bf16 where the CPU and oneDNN have it, "
                  "else fp32), fp32, bf16 or int8 (AVX-512 VNNI; default: KUMALAK_PRECISION, "
                  "else auto)")
      ->check(CLI::IsMember({"auto", "fp32", "bf16", "int8"}));
  cmd->add_flag("--peak", opt->peak,
                "also measure the CPU's fp32/bf16 peak and the network's convolutions and "
                "forward (folded and unfolded, alternated) against it; takes about "
                "--seconds / 3 + 3 s more");
  cmd->add_flag("--tree-only", opt->tree_only,
                "measure only the tree: the searches one round at a time against a constant "
                "evaluator, no network; prints tree_visits_per_s and tree_ns_per_visit");
  cmd->callback([opt, &exit_code] {
    try {
      exit_code = run_bench(*opt);
    } catch (const std::exception& e) {
      print_command_error("kumalak bench", e);
      exit_code = 1;
    }
  });
}

}  // namespace kz::cli
