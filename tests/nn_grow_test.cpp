// Growing a trained network (nn/model_file.h grown_model): a wider and deeper tower that
// plays exactly as the model it grew from, whose new parts still learn.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>

#include "nn/features.h"
#include "nn/model_file.h"
#include "tests/nn_test_util.h"
#include "tests/test_util.h"

namespace kz {
namespace {

namespace fs = std::filesystem;
using torch::indexing::None;
using torch::indexing::Slice;

// A small trained-looking model: random weights and non-trivial batch norm statistics
// (a fresh model's are 0 / 1, which would hide a statistic copied to the wrong place).
Model small_model(const GameSpec& spec) {
  Model m = make_random_model(spec, NetConfig{16, 2, 8, 8, 16}, 3);
  torch::NoGradGuard no_grad;
  torch::manual_seed(4);
  for (auto& b : m.net->named_buffers()) {
    if (b.key().find("running_mean") != std::string::npos) b.value().normal_(0, 0.5);
    if (b.key().find("running_var") != std::string::npos) b.value().uniform_(0.5, 2.0);
  }
  for (auto& p : m.net->named_parameters())
    if (p.key().find("bn") != std::string::npos && p.key().find("bias") != std::string::npos)
      p.value().normal_(0, 0.3);
  m.net->eval();
  return m;
}

void expect_close_outputs(const std::vector<EvalOutput>& a, const std::vector<EvalOutput>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < a[i].policy.size(); ++k)
      EXPECT_NEAR(a[i].policy[k], b[i].policy[k], 1e-5) << i << " move " << k;
    EXPECT_NEAR(a[i].win, b[i].win, 1e-5) << i;
    EXPECT_NEAR(a[i].draw, b[i].draw, 1e-5) << i;
    EXPECT_NEAR(a[i].loss, b[i].loss, 1e-5) << i;
    EXPECT_NEAR(a[i].margin, b[i].margin, 1e-5) << i;
  }
}

TEST(GrowNetwork, AWiderDeeperTowerPlaysExactlyAsTheModelItGrewFrom) {
  for (const GameSpec& spec : {GameSpec::togyz(), GameSpec::kalah(6, 4)}) {
    Model small = small_model(spec);
    const std::vector<Position> positions = test::random_positions(spec, 24, 5);
    const std::vector<EvalOutput> before = test::evaluate(small, positions);
    for (const auto& [channels, blocks] : {std::pair{24, 3}, std::pair{16, 4}, std::pair{20, 2}}) {
      Model grown = grown_model(small, channels, blocks, 7);
      EXPECT_EQ(grown.meta.network.channels, channels);
      EXPECT_EQ(grown.meta.network.blocks, blocks);
      EXPECT_EQ(grown.meta.training_steps, small.meta.training_steps);
      EXPECT_EQ(grown.net->parameter_count(), expected_parameter_count(grown.meta.network));
      EXPECT_FALSE(grown.net->is_training());
      expect_close_outputs(before, test::evaluate(grown, positions));
      // Not trivially so: the new channels carry values of their own.
      const torch::Tensor x = torch::randn({4, kNumPlanes, spec.pits * 2});
      torch::NoGradGuard no_grad;
      const auto* first = grown.net->tower->ptr(0)->as<ResidualBlock>();
      const torch::Tensor h = torch::relu(grown.net->input_bn(grown.net->input_conv(x)));
      if (channels > 16) {
        EXPECT_GT(h.index({Slice(), Slice(16, None)}).abs().sum().item<float>(), 0.0f);
      }
      EXPECT_GT(first->conv1->weight.abs().sum().item<float>(), 0.0f);
    }
    // Seeded: the same growth twice gives the same network.
    Model once = grown_model(small, 24, 3, 7), twice = grown_model(small, 24, 3, 7);
    EXPECT_EQ(weights_checksum(once.net), weights_checksum(twice.net));
    // The same size is the model itself.
    Model same = grown_model(small, 16, 2, 7);
    EXPECT_EQ(weights_checksum(same.net), weights_checksum(small.net));
  }
}

// The silent parts are not dead: the weights from new channels into old ones and the new
// block's last batch norm get gradients, so training brings them in.
TEST(GrowNetwork, TheNewChannelsAndBlocksGetGradients) {
  Model grown = grown_model(small_model(GameSpec::togyz()), 24, 3, 7);
  grown.net->train();
  torch::manual_seed(1);
  const torch::Tensor x = torch::randn({8, kNumPlanes, 18});
  const NetOutput out = grown.net->forward(x, 9);
  (out.policy_logits.pow(2).sum() + out.wdl_logits.pow(2).sum() + out.margin.pow(2).sum())
      .backward();
  const auto params = grown.net->named_parameters();
  auto grad_sum = [&](const std::string& name, std::vector<torch::indexing::TensorIndex> at) {
    const torch::Tensor* p = params.find(name);
    EXPECT_NE(p, nullptr) << name;
    return p ? p->grad().index(at).abs().sum().item<float>() : 0.0f;
  };
  // Zero now, learnt later: new inputs into old outputs.
  EXPECT_EQ(params.find("tower.0.conv1.weight")
                ->index({Slice(0, 16), Slice(16, None)})
                .abs()
                .sum()
                .item<float>(),
            0.0f);
  EXPECT_GT(grad_sum("tower.0.conv1.weight", {Slice(0, 16), Slice(16, None)}), 0.0f);
  EXPECT_GT(grad_sum("policy_conv.weight", {Slice(), Slice(16, None)}), 0.0f);
  EXPECT_GT(grad_sum("value_conv.weight", {Slice(), Slice(16, None)}), 0.0f);
  EXPECT_EQ(params.find("tower.2.bn2.weight")->abs().sum().item<float>(), 0.0f);
  EXPECT_GT(params.find("tower.2.bn2.weight")->grad().abs().sum().item<float>(), 0.0f);
}

TEST(GrowNetwork, ShrinkingIsRefusedSayingWhatToDoInstead) {
  const Model small = small_model(GameSpec::togyz());
  for (const auto& [channels, blocks] : {std::pair{8, 2}, std::pair{16, 1}, std::pair{32, 1}}) {
    try {
      grown_model(small, channels, blocks, 1);
      FAIL() << channels << " x " << blocks;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("can only grow: 16 x 2"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("from scratch"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(grown_model(small, 4096, 2, 1), ModelError);  // outside the accepted sizes
}

// A grown model is a model file like any other: saved, loaded, the same outputs.
TEST(GrowNetwork, AGrownModelRoundTripsThroughItsFile) {
  const std::string dir = test::temp_dir("kz-grow");
  const GameSpec spec = GameSpec::togyz();
  Model grown = grown_model(small_model(spec), 24, 3, 7);
  save_model(dir + "/grown.pt", grown);
  Model back = load_model(dir + "/grown.pt", &spec);
  EXPECT_EQ(back.meta.network, grown.meta.network);
  EXPECT_EQ(weights_checksum(back.net), weights_checksum(grown.net));
  EXPECT_FALSE(back.meta.created.empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
