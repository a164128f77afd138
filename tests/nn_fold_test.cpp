// The folded inference network (nn/inference_network.h) against the model's own
// eval-mode forward: the shipped models and random networks with random batch norm
// statistics, raw outputs and the evaluator's probabilities; and the FLOP count of
// nn/network_flops.h.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "nn/features.h"
#include "nn/inference_network.h"
#include "nn/network_flops.h"
#include "nn_test_util.h"
#include "tests/test_util.h"

namespace kz {
namespace {

// Largest absolute difference between two tensors of the same shape.
double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

torch::Tensor features_of(const std::vector<Position>& positions) {
  const int L = 2 * positions[0].npits;
  const int64_t per = int64_t(kNumPlanes) * L;
  torch::Tensor t = torch::zeros({int64_t(positions.size()), kNumPlanes, L});
  for (size_t i = 0; i < positions.size(); ++i)
    encode_features(positions[i], std::span<float>(t.data_ptr<float>() + per * i, per));
  return t;
}

// Gives every batch norm of `net` random running statistics and affine parameters, as
// training leaves them (a fresh network has mean 0, variance 1, gamma 1, beta 0, which
// a fold that ignored them would pass).
void randomise_batch_norms(Network& net, uint64_t seed) {
  torch::manual_seed(seed);
  torch::NoGradGuard no_grad;
  int found = 0;
  for (auto& module : net->modules(/*include_self=*/false)) {
    auto* bn = module->as<torch::nn::BatchNorm1dImpl>();
    if (!bn) continue;
    ++found;
    const int64_t n = bn->running_mean.size(0);
    bn->running_mean.copy_(torch::randn({n}) * 0.5);
    bn->running_var.copy_(torch::rand({n}) * 2 + 0.05);
    bn->weight.copy_(torch::randn({n}) * 0.5 + 1);
    bn->bias.copy_(torch::randn({n}) * 0.3);
  }
  ASSERT_GT(found, 0);
}

// Every output head of the folded network against the model's eval-mode forward; the
// largest difference of each must stay under `tolerance` (logits and margin).
void expect_fold_matches(Model& model, const GameSpec& spec, double tolerance) {
  model.net->eval();
  const auto positions = test::random_positions(spec, 64, 11);
  const torch::Tensor input = features_of(positions);
  // The folded LibTorch forward (the oneDNN path has its own test: nn_onednn_test.cpp).
  const InferenceNetwork folded(model.net, torch::kCPU,
                                InferenceOptions{InferenceBackend::kLibTorch});
  ASSERT_EQ(folded.backend(), InferenceBackend::kLibTorch);
  c10::InferenceMode guard;
  const NetOutput want = model.net->forward(input, spec.pits);
  const NetOutput got = folded.forward(input, spec.pits);
  const double policy = max_abs_diff(got.policy_logits, want.policy_logits);
  const double wdl = max_abs_diff(got.wdl_logits, want.wdl_logits);
  const double margin = max_abs_diff(got.margin, want.margin);
  EXPECT_LT(policy, tolerance);
  EXPECT_LT(wdl, tolerance);
  EXPECT_LT(margin, tolerance);
  ASSERT_EQ(got.score_logits.defined(), want.score_logits.defined());
  double score = 0;
  if (want.score_logits.defined()) {
    score = max_abs_diff(got.score_logits, want.score_logits);
    EXPECT_LT(score, tolerance);
  }
  // The differences themselves, for docs/performance.md.
  std::cout << "  folded - reference, max |diff|: policy logits " << policy << ", W/D/L logits "
            << wdl << ", margin " << margin << ", score logits " << score << "\n";
}

// The evaluator's priors, W/D/L and margin folded and unfolded: probabilities within
// 1e-5, the margin (in stones) within `margin_tolerance`.
void expect_evaluator_matches(const Model& model, const GameSpec& spec, double margin_tolerance) {
  // Folded and unfolded differ only by the fold's rounding in fp32 (bf16's own bound is
  // nn_onednn_test.cpp's).
  const test::PrecisionGuard fp32(InferencePrecision::kFp32);
  const auto positions = test::random_positions(spec, 64, 12);
  NnEvaluator folded(model, torch::kCPU, true), unfolded(model, torch::kCPU, false);
  std::vector<EvalOutput> a(positions.size()), b(positions.size());
  folded.evaluate(positions, a);
  unfolded.evaluate(positions, b);
  double worst_probability = 0, worst_margin = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    for (size_t k = 0; k < a[i].policy.size(); ++k)
      worst_probability =
          std::max(worst_probability, double(std::abs(a[i].policy[k] - b[i].policy[k])));
    worst_probability = std::max({worst_probability, double(std::abs(a[i].win - b[i].win)),
                                  double(std::abs(a[i].draw - b[i].draw)),
                                  double(std::abs(a[i].loss - b[i].loss))});
    worst_margin = std::max(worst_margin, double(std::abs(a[i].margin - b[i].margin)));
  }
  EXPECT_LT(worst_probability, 1e-5);
  EXPECT_LT(worst_margin, margin_tolerance);
  std::cout << "  evaluator folded - unfolded, max |diff|: probabilities " << worst_probability
            << ", margin (stones) " << worst_margin << "\n";
}

TEST(FoldedNetwork, ShippedModelsGiveTheReferenceOutputs) {
  for (const std::string name : {"togyz", "kalah"}) {
    SCOPED_TRACE(name);
    Model model = load_model(test::source_dir() + "/models/" + name + ".pt");
    const GameSpec spec = GameSpec::parse(model.meta.game);
    expect_fold_matches(model, spec, 1e-4);
    expect_evaluator_matches(model, spec, 1e-3);
  }
}

TEST(FoldedNetwork, RandomBatchNormStatisticsFoldExactly) {
  for (const std::string game : {"togyz", "kalah"}) {
    SCOPED_TRACE(game);
    const GameSpec spec = GameSpec::parse(game);
    NetConfig config = test::tiny_net_config();
    config.score_distribution_head = true;
    config.opponent_policy_head = true;
    for (uint64_t seed : {1, 2, 3}) {
      Model model = make_random_model(spec, config, seed);
      randomise_batch_norms(model.net, seed + 100);
      expect_fold_matches(model, spec, 1e-4);
      expect_evaluator_matches(model, spec, 1e-3);
    }
  }
}

TEST(FoldedNetwork, TheModelsOwnNetworkStaysAsItWas) {
  const GameSpec spec = GameSpec::parse("togyz");
  Model model = make_random_model(spec, test::tiny_net_config(), 5);
  randomise_batch_norms(model.net, 6);
  std::vector<torch::Tensor> before;
  for (const auto& t : model.net->parameters()) before.push_back(t.detach().clone());
  for (const auto& t : model.net->buffers()) before.push_back(t.detach().clone());
  NnEvaluator evaluator(model);
  std::vector<EvalOutput> out(1);
  evaluator.evaluate(test::random_positions(spec, 1, 3), out);
  size_t i = 0;
  for (const auto& t : model.net->parameters()) EXPECT_TRUE(torch::equal(t, before[i++]));
  for (const auto& t : model.net->buffers()) EXPECT_TRUE(torch::equal(t, before[i++]));
  // Still the trainer's modules: every batch norm is there.
  EXPECT_FALSE(model.net->input_bn.is_empty());
}

TEST(NetworkFlops, CountsEveryProductOfTheForward) {
  // channels 16, 2 blocks, policy 8, value 8, hidden 16 on Togyz's ring of 18 cells.
  const NetConfig c = test::tiny_net_config();
  const int64_t L = 18;
  const int64_t want = 2 * L * kNumPlanes * 16 * 3                      // input convolution
                       + 2 * (2 * (2 * L * 16 * 16 * 3) + 2 * 16 * 16)  // blocks
                       + 2 * L * 16 * 8 + 2 * L * 8                     // policy head
                       + 2 * L * 16 * 8 + 2 * 16 * 16                   // value conv, FC
                       + 2 * 16 * 3 + 2 * 16;                           // W/D/L, margin
  EXPECT_EQ(forward_flops_per_position(c, int(L)), want);
  NetConfig with_score = c;
  with_score.score_distribution_head = true;
  with_score.score_max_margin = 162;
  EXPECT_EQ(forward_flops_per_position(with_score, int(L)), want + 2 * 16 * 325);
}

}  // namespace
}  // namespace kz
