// The oneDNN inference path (nn/onednn_network.h) against the model's own eval-mode
// forward, in fp32 and (where the CPU has it) bf16: the shipped models and random
// networks with random batch norm statistics, every batch size bucket, the evaluator's
// probabilities, and several threads at once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "nn/direct_convolution.h"
#include "nn/features.h"
#include "nn/inference_network.h"
#include "nn/nn_evaluator.h"
#include "nn_test_util.h"
#include "tests/test_util.h"

namespace kz {
namespace {

// Tolerances, relative to the largest magnitude of each reference output (at least 1):
// fp32 differs from the reference only by the order of its float additions; bf16
// rounds activations and weights to 8 significant bits (relative error 2^-9 each), and
// the errors of a few hundred products per output partly cancel.
constexpr double kFp32Tolerance = 1e-5;
constexpr double kBf16Tolerance = 0.04;
constexpr double kInt8Tolerance = 0.2;

torch::Tensor features_of(const std::vector<Position>& positions) {
  const int L = 2 * positions[0].npits;
  const int64_t per = int64_t(kNumPlanes) * L;
  torch::Tensor t = torch::zeros({int64_t(positions.size()), kNumPlanes, L});
  for (size_t i = 0; i < positions.size(); ++i)
    encode_features(positions[i], std::span<float>(t.data_ptr<float>() + per * i, per));
  return t;
}

void randomise_batch_norms(Network& net, uint64_t seed) {
  torch::manual_seed(seed);
  torch::NoGradGuard no_grad;
  for (auto& module : net->modules(/*include_self=*/false)) {
    auto* bn = module->as<torch::nn::BatchNorm1dImpl>();
    if (!bn) continue;
    const int64_t n = bn->running_mean.size(0);
    bn->running_mean.copy_(torch::randn({n}) * 0.5);
    bn->running_var.copy_(torch::rand({n}) * 2 + 0.05);
    bn->weight.copy_(torch::randn({n}) * 0.5 + 1);
    bn->bias.copy_(torch::randn({n}) * 0.3);
  }
}

// max |got - want| / max(1, max |want|).
double relative_error(const torch::Tensor& got, const torch::Tensor& want) {
  EXPECT_EQ(got.sizes(), want.sizes());
  const torch::Tensor w = want.to(torch::kFloat64);
  const double scale = std::max(1.0, w.abs().max().item<double>());
  return (got.to(torch::kFloat64) - w).abs().max().item<double>() / scale;
}

// The largest relative error over every head of `got` against `want`.
double worst_error(const NetOutput& got, const NetOutput& want) {
  double e = std::max({relative_error(got.policy_logits, want.policy_logits),
                       relative_error(got.wdl_logits, want.wdl_logits),
                       relative_error(got.margin, want.margin)});
  EXPECT_EQ(got.score_logits.defined(), want.score_logits.defined());
  if (want.score_logits.defined())
    e = std::max(e, relative_error(got.score_logits, want.score_logits));
  return e;
}

double tolerance(InferencePrecision p) {
  return p == InferencePrecision::kInt8   ? kInt8Tolerance
         : p == InferencePrecision::kBf16 ? kBf16Tolerance
                                          : kFp32Tolerance;
}

// What the oneDNN path can run here: fp32 through oneDNN's kernels and through ours
// (nn/direct_convolution.h, where the CPU has AVX2 and FMA), bf16 through both where the
// CPU has it.
struct Variant {
  InferencePrecision precision;
  ConvolutionKernels kernels;
  std::string name;
};
std::vector<Variant> variants() {
  std::vector<Variant> v{{InferencePrecision::kFp32, ConvolutionKernels::kOneDnn, "fp32 onednn"}};
  if (direct_convolution_supported())
    v.push_back({InferencePrecision::kFp32, ConvolutionKernels::kDirect, "fp32 direct"});
  if (onednn_bf16_supported()) {
    v.push_back({InferencePrecision::kBf16, ConvolutionKernels::kOneDnn, "bf16 onednn"});
    if (direct_bf16_supported())
      v.push_back({InferencePrecision::kBf16, ConvolutionKernels::kDirect, "bf16 direct"});
  }
  if (direct_int8_supported())
    v.push_back({InferencePrecision::kInt8, ConvolutionKernels::kDirect, "int8 direct"});
  return v;
}

// Every head of the oneDNN network at several batch sizes (exact and padded buckets, one
// chunk and several, the last one padded)
// against the model's eval-mode forward.
void expect_matches_reference(Model& model, const GameSpec& spec, const Variant& variant) {
  const InferencePrecision precision = variant.precision;
  model.net->eval();
  const InferenceNetwork net(
      model.net, torch::kCPU,
      InferenceOptions{InferenceBackend::kOneDnn, precision, variant.kernels});
  ASSERT_EQ(net.backend(), InferenceBackend::kOneDnn);
  ASSERT_EQ(net.precision(), precision);
  if (variant.kernels != ConvolutionKernels::kAuto) {
    ASSERT_EQ(net.onednn()->direct(), variant.kernels == ConvolutionKernels::kDirect);
  }
  double worst = 0;
  for (int batch : {1, 3, 16, 37, 100, 256}) {
    SCOPED_TRACE(batch);
    const torch::Tensor input = features_of(test::random_positions(spec, batch, 20 + batch));
    c10::InferenceMode guard;
    const double e =
        worst_error(net.forward(input, spec.pits), model.net->forward(input, spec.pits));
    EXPECT_LT(e, tolerance(precision));
    worst = std::max(worst, e);
  }
  std::cout << "  onednn " << variant.name << " - reference, max relative |diff|: " << worst << " ("
            << net.describe() << ")\n";
}

// Runs check(model, spec, variant) for each shipped model and each variant this CPU runs.
template <class Check>
void for_each_shipped_variant(Check check) {
  for (const std::string name : {"togyz", "kalah"}) {
    SCOPED_TRACE(name);
    Model model = load_model(test::source_dir() + "/models/" + name + ".pt");
    const GameSpec spec = GameSpec::parse(model.meta.game);
    for (const Variant& v : variants()) {
      SCOPED_TRACE(v.name);
      check(model, spec, v);
    }
  }
}

TEST(OnednnNetwork, ShippedModelsGiveTheReferenceOutputs) {
  if (!onednn_compiled()) GTEST_SKIP() << "built without oneDNN";
  for_each_shipped_variant(expect_matches_reference);
}

TEST(OnednnNetwork, RandomNetworksGiveTheReferenceOutputs) {
  if (!onednn_compiled()) GTEST_SKIP() << "built without oneDNN";
  for (const std::string game : {"togyz", "kalah"}) {
    SCOPED_TRACE(game);
    const GameSpec spec = GameSpec::parse(game);
    NetConfig config = test::tiny_net_config();
    config.score_distribution_head = true;
    config.opponent_policy_head = true;
    for (uint64_t seed : {1, 2}) {
      Model model = make_random_model(spec, config, seed);
      randomise_batch_norms(model.net, seed + 100);
      for (const Variant& v : variants()) {
        SCOPED_TRACE(v.name);
        expect_matches_reference(model, spec, v);
      }
    }
    // No residual block at all, 32 channels (the shipped width), and widths that are
    // not multiples of 16 (the loops' vector and scalar parts: 24 channels, a policy of
    // 20, a value of 12 and 24 hidden units).
    for (const NetConfig c :
         {NetConfig{16, 0, 8, 8, 16}, NetConfig{32, 3, 32, 32, 64}, NetConfig{24, 2, 20, 12, 24}}) {
      Model model = make_random_model(spec, c, 9);
      randomise_batch_norms(model.net, 9);
      for (const Variant& v : variants()) {
        SCOPED_TRACE(v.name);
        // Our kernels take widths in multiples of 16 only, and refuse the others.
        if (v.kernels == ConvolutionKernels::kDirect && c.channels % 16 != 0) {
          model.net->eval();
          EXPECT_THROW(
              InferenceNetwork(model.net, torch::kCPU,
                               InferenceOptions{InferenceBackend::kOneDnn, v.precision, v.kernels}),
              std::runtime_error);
          continue;
        }
        expect_matches_reference(model, spec, v);
      }
    }
  }
}

TEST(OnednnNetwork, EvaluatorProbabilitiesMatchTheReference) {
  if (!onednn_compiled()) GTEST_SKIP() << "built without oneDNN";
  // The shipped model, and a random one with the score distribution head (whose
  // expectation is the margin) and random batch norm statistics.
  std::vector<Model> models{load_model(test::source_dir() + "/models/togyz.pt")};
  NetConfig config = test::tiny_net_config();
  config.score_distribution_head = true;
  models.push_back(make_random_model(GameSpec::parse("togyz"), config, 4));
  randomise_batch_norms(models.back().net, 104);
  for (const Model& model : models) {
    const GameSpec spec = GameSpec::parse(model.meta.game);
    const auto positions = test::random_positions(spec, 100, 5);
    NnEvaluator reference(model, torch::kCPU, InferenceOptions{InferenceBackend::kReference});
    std::vector<EvalOutput> want(positions.size());
    reference.evaluate(positions, want);
    for (const Variant& v : variants()) {
      const InferencePrecision p = v.precision;
      SCOPED_TRACE(v.name + (model.meta.network.score_distribution_head ? " score head" : ""));
      NnEvaluator fast(model, torch::kCPU,
                       InferenceOptions{InferenceBackend::kOneDnn, p, v.kernels});
      std::vector<EvalOutput> got(positions.size());
      fast.evaluate(positions, got);
      double worst = 0, worst_margin = 0;
      for (size_t i = 0; i < positions.size(); ++i) {
        for (size_t k = 0; k < got[i].policy.size(); ++k)
          worst = std::max(worst, double(std::abs(got[i].policy[k] - want[i].policy[k])));
        worst = std::max({worst, double(std::abs(got[i].win - want[i].win)),
                          double(std::abs(got[i].draw - want[i].draw)),
                          double(std::abs(got[i].loss - want[i].loss))});
        // The margin in stones, relative to its size (at least one stone).
        worst_margin = std::max(worst_margin, std::abs(double(got[i].margin - want[i].margin)) /
                                                  std::max(1.0, std::abs(double(want[i].margin))));
      }
      const bool bf16 = p == InferencePrecision::kBf16, int8 = p == InferencePrecision::kInt8;
      EXPECT_LT(worst, int8 ? 0.2 : bf16 ? 0.05 : 1e-5);
      // The scalar margin head is scaled by half the stones (81 in Togyz): its fp32
      // rounding of about 1e-6 becomes 1e-4 of a stone; bf16's 0.016 of the output
      // magnitude (above) about a stone.
      EXPECT_LT(worst_margin, int8 ? 1.0 : bf16 ? 0.3 : 1e-4);
      std::cout << "  evaluator onednn " << v.name
                << " - reference, max |diff| of probabilities: " << worst
                << ", of margins (relative): " << worst_margin << "\n";
    }
  }
}

TEST(OnednnNetwork, ABatchEvaluatesLikeEachPositionAloneOnEveryThread) {
  if (!onednn_compiled()) GTEST_SKIP() << "built without oneDNN";
  Model model = load_model(test::source_dir() + "/models/togyz.pt");
  const GameSpec spec = GameSpec::parse(model.meta.game);
  const torch::Tensor input = features_of(test::random_positions(spec, 40, 8));
  for (const Variant& v : variants()) {
    if (v.precision != InferencePrecision::kFp32) continue;
    SCOPED_TRACE(v.name);
    const InferenceNetwork net(
        model.net, torch::kCPU,
        InferenceOptions{InferenceBackend::kOneDnn, InferencePrecision::kFp32, v.kernels});
    c10::InferenceMode guard;
    const NetOutput whole = net.forward(input, spec.pits);
    // Four threads at once, each evaluating the positions one by one (batch 1, another
    // bucket and other buffers than the whole batch's).
    std::vector<double> worst(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        c10::InferenceMode thread_guard;
        for (int64_t i = 0; i < input.size(0); ++i) {
          const NetOutput one = net.forward(input.narrow(0, i, 1), spec.pits);
          worst[t] =
              std::max({worst[t], relative_error(one.policy_logits[0], whole.policy_logits[i]),
                        relative_error(one.wdl_logits[0], whole.wdl_logits[i]),
                        relative_error(one.margin[0], whole.margin[i])});
        }
      });
    for (auto& t : threads) t.join();
    for (double w : worst) EXPECT_LT(w, kFp32Tolerance);
  }
}

// The evaluator's layout: features encoded cells-major (channels last) and read in place
// give the same outputs as the plane-major features the forward transposes itself.
TEST(OnednnNetwork, CellsMajorFeaturesGiveTheSameOutputs) {
  if (!onednn_compiled()) GTEST_SKIP() << "built without oneDNN";
  for_each_shipped_variant([](Model& model, const GameSpec& spec, const Variant& v) {
    const InferenceNetwork net(model.net, torch::kCPU,
                               InferenceOptions{InferenceBackend::kOneDnn, v.precision, v.kernels});
    const OnednnNetwork& onednn = *net.onednn();
    // 3 and 37 are padded up to their buckets; 64 fills one; 150 runs as three chunks.
    for (int batch : {1, 3, 37, 64, 150}) {
      SCOPED_TRACE(batch);
      const std::vector<Position> positions = test::random_positions(spec, batch, 60 + batch);
      const int L = 2 * spec.pits;
      const size_t per = size_t(kNumPlanes) * L;
      std::vector<float> planes(per * batch), cells(per * batch);
      for (int i = 0; i < batch; ++i) {
        encode_features(positions[i], std::span<float>(planes).subspan(per * i, per));
        encode_features_cells_major(positions[i], std::span<float>(cells).subspan(per * i, per));
        for (int c = 0; c < kNumPlanes; ++c)
          for (int l = 0; l < L; ++l)
            ASSERT_EQ(cells[per * i + size_t(l) * kNumPlanes + c],
                      planes[per * i + size_t(c) * L + l]);
      }
      const int64_t heads = onednn.head_outputs();
      std::vector<float> policy_a(size_t(batch) * spec.pits), policy_b(policy_a.size());
      std::vector<float> heads_a(size_t(batch * heads)), heads_b(heads_a.size());
      onednn.forward(planes.data(), batch, L, spec.pits, policy_a.data(), heads_a.data(),
                     FeatureLayout::kPlanesMajor);
      onednn.forward(cells.data(), batch, L, spec.pits, policy_b.data(), heads_b.data(),
                     FeatureLayout::kCellsMajor);
      // The same numbers reach the same primitives: equal to the bit.
      EXPECT_EQ(policy_a, policy_b);
      EXPECT_EQ(heads_a, heads_b);
    }
  });
}

// The evaluator's inputs made ahead (Evaluator::prepare, on the tree's thread in the
// pipelined search) give the same answers as evaluate(), to the bit, in every precision.
TEST(OnednnNetwork, PreparedFeaturesGiveTheSameAnswers) {
  if (!onednn_compiled()) GTEST_SKIP() << "built without oneDNN";
  for_each_shipped_variant([](Model& model, const GameSpec& spec, const Variant& v) {
    NnEvaluator evaluator(model, torch::kCPU,
                          InferenceOptions{InferenceBackend::kOneDnn, v.precision, v.kernels});
    const std::vector<Position> positions = test::random_positions(spec, 37, 71);
    const size_t per = evaluator.prepared_floats(positions[0]);
    ASSERT_EQ(per, size_t(kNumPlanes) * size_t(2 * spec.pits));
    std::vector<float> inputs(per * positions.size());
    for (size_t i = 0; i < positions.size(); ++i)
      evaluator.prepare(positions[i], inputs.data() + per * i);
    std::vector<EvalOutput> direct(positions.size()), prepared(positions.size());
    evaluator.evaluate(positions, direct);
    evaluator.evaluate_prepared(positions, inputs.data(), prepared);
    for (size_t i = 0; i < positions.size(); ++i) {
      EXPECT_EQ(direct[i].policy, prepared[i].policy) << i;
      EXPECT_EQ(direct[i].win, prepared[i].win) << i;
      EXPECT_EQ(direct[i].margin, prepared[i].margin) << i;
    }
  });
  // The LibTorch paths take no prepared inputs: the driver encodes nothing for them.
  Model model = load_model(test::source_dir() + "/models/kalah.pt");
  NnEvaluator libtorch(model, torch::kCPU, InferenceOptions{InferenceBackend::kLibTorch});
  EXPECT_EQ(libtorch.prepared_floats(Position::start(GameSpec::parse(model.meta.game))), 0u);
}

TEST(OnednnNetwork, PrecisionChoices) {
  EXPECT_EQ(parse_inference_precision("fp32"), InferencePrecision::kFp32);
  EXPECT_EQ(parse_inference_precision("bf16"), InferencePrecision::kBf16);
  EXPECT_EQ(parse_inference_precision("auto"), InferencePrecision::kAuto);
  EXPECT_EQ(parse_inference_precision("int8"), InferencePrecision::kInt8);
  EXPECT_THROW(parse_inference_precision("fp16"), std::invalid_argument);
  for (const char* name : {"auto", "fp32", "bf16", "int8"})
    EXPECT_EQ(to_string(parse_inference_precision(name)), name);
  // auto resolves per machine; the others stay as asked.
  const InferencePrecision resolved =
      onednn_bf16_supported() ? InferencePrecision::kBf16 : InferencePrecision::kFp32;
  EXPECT_EQ(resolve_inference_precision(InferencePrecision::kAuto), resolved);
  EXPECT_EQ(resolve_inference_precision(InferencePrecision::kFp32), InferencePrecision::kFp32);
  EXPECT_EQ(resolve_inference_precision(InferencePrecision::kBf16), InferencePrecision::kBf16);
  EXPECT_EQ(resolve_inference_precision(InferencePrecision::kInt8), InferencePrecision::kInt8);
  if (!onednn_compiled()) GTEST_SKIP() << "built without oneDNN";
  const GameSpec spec = GameSpec::parse("togyz");
  Model model = make_random_model(spec, test::tiny_net_config(), 3);
  model.net->eval();
  const InferenceNetwork automatic(
      model.net, torch::kCPU,
      InferenceOptions{InferenceBackend::kOneDnn, InferencePrecision::kAuto});
  EXPECT_EQ(automatic.precision(),
            onednn_bf16_supported() ? InferencePrecision::kBf16 : InferencePrecision::kFp32);
  if (!onednn_bf16_supported()) {
    EXPECT_THROW(
        InferenceNetwork(model.net, torch::kCPU,
                         InferenceOptions{InferenceBackend::kOneDnn, InferencePrecision::kBf16}),
        std::runtime_error);
  }
  // int8 runs on our kernels only: refused with oneDNN's, and where the CPU lacks VNNI,
  // saying why; where it has it, auto kernels run it.
  const InferenceOptions int8_on_onednn{InferenceBackend::kOneDnn, InferencePrecision::kInt8,
                                        ConvolutionKernels::kOneDnn};
  const InferenceOptions int8{InferenceBackend::kOneDnn, InferencePrecision::kInt8};
  try {
    InferenceNetwork(model.net, torch::kCPU, int8_on_onednn);
    ADD_FAILURE() << "int8 ran on oneDNN's kernels";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("VNNI"), std::string::npos) << e.what();
  }
  if (direct_int8_supported()) {
    const InferenceNetwork quantised(model.net, torch::kCPU, int8);
    EXPECT_EQ(quantised.precision(), InferencePrecision::kInt8);
    EXPECT_EQ(quantised.onednn()->implementation(), "direct:avx512_vnni");
  } else {
    EXPECT_THROW(InferenceNetwork(model.net, torch::kCPU, int8), std::runtime_error);
  }
  // The LibTorch paths are fp32 whatever is asked.
  const InferenceNetwork libtorch(
      model.net, torch::kCPU,
      InferenceOptions{InferenceBackend::kLibTorch, InferencePrecision::kBf16});
  EXPECT_EQ(libtorch.precision(), InferencePrecision::kFp32);
}

// Unless KUMALAK_PRECISION says otherwise the default is auto, and the evaluator built
// with the defaults runs (and names) what auto resolves to here.
TEST(OnednnNetwork, TheDefaultIsAutoAndRunsWhatItResolvesTo) {
  const char* env = std::getenv("KUMALAK_PRECISION");
  if (env && *env) GTEST_SKIP() << "KUMALAK_PRECISION=" << env << " sets the default";
  EXPECT_EQ(default_inference_precision(), InferencePrecision::kAuto);
  EXPECT_EQ(InferenceOptions{}.precision, InferencePrecision::kAuto);
  if (!onednn_compiled()) GTEST_SKIP() << "built without oneDNN";
  const GameSpec spec = GameSpec::parse("togyz");
  Model model = make_random_model(spec, test::tiny_net_config(), 3);
  const NnEvaluator evaluator(model);
  if (evaluator.inference().backend() != InferenceBackend::kOneDnn)
    GTEST_SKIP() << "the default backend here is " << evaluator.inference().describe();
  const InferencePrecision resolved = resolve_inference_precision(InferencePrecision::kAuto);
  EXPECT_EQ(evaluator.inference().precision(), resolved);
  EXPECT_NE(evaluator.inference().describe().find("onednn " + to_string(resolved)),
            std::string::npos)
      << evaluator.inference().describe();
  EXPECT_EQ(evaluator.describe().find(" bf16") != std::string::npos,
            resolved == InferencePrecision::kBf16)
      << evaluator.describe();
}

}  // namespace
}  // namespace kz
