// The opponent-policy head of the network (NetConfig::opponent_policy_head): its size,
// model files with and without it (old models load and evaluate as before), adding it
// to a model without it, and play never computing it.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "nn/features.h"
#include "nn/model_file.h"
#include "nn/nn_evaluator.h"
#include "tests/nn_test_util.h"
#include "tests/test_util.h"

namespace kz {
namespace {

namespace fs = std::filesystem;
using test::load_error;
using test::with_metadata;

void expect_same_outputs(const std::vector<EvalOutput>& a, const std::vector<EvalOutput>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].policy, b[i].policy) << i;
    EXPECT_EQ(a[i].win, b[i].win) << i;
    EXPECT_EQ(a[i].draw, b[i].draw) << i;
    EXPECT_EQ(a[i].loss, b[i].loss) << i;
    EXPECT_EQ(a[i].margin, b[i].margin) << i;
  }
}

NetConfig tiny(bool head) {
  NetConfig c = test::tiny_net_config();
  c.opponent_policy_head = head;
  return c;
}

TEST(OpponentHead, ParameterCountAndOutputShape) {
  for (const NetConfig c : {tiny(true), [] {
                              NetConfig d;
                              d.opponent_policy_head = true;
                              return d;
                            }()}) {
    Network net(c);
    EXPECT_EQ(expected_parameter_count(c), net->parameter_count());
    NetConfig without = c;
    without.opponent_policy_head = false;
    // The head is the policy head's shape.
    EXPECT_EQ(
        expected_parameter_count(c) - expected_parameter_count(without),
        int64_t(c.channels) * c.policy_channels + 2 * c.policy_channels + c.policy_channels + 1);
  }
  Network net(tiny(true));
  net->eval();
  const torch::Tensor x = torch::randn({3, kNumPlanes, 18});
  const NetOutput play = net->forward(x, 9);
  EXPECT_FALSE(play.opponent_policy_logits.defined());  // play does not compute it
  const NetOutput train = net->forward(x, 9, true);
  ASSERT_TRUE(train.opponent_policy_logits.defined());
  EXPECT_EQ(train.opponent_policy_logits.sizes(), (std::vector<int64_t>{3, 18}));
  EXPECT_TRUE(torch::equal(play.policy_logits, train.policy_logits));
  // A network without the head refuses to compute it, saying why.
  Network plain(tiny(false));
  try {
    plain->forward(x, 9, true);
    FAIL() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("has none"), std::string::npos) << e.what();
  }
}

TEST(OpponentHead, ModelWithTheHeadRoundTrips) {
  const std::string dir = test::temp_dir("kz-opp-head");
  const GameSpec spec = GameSpec::togyz();
  Model m = make_random_model(spec, tiny(true), 5);
  m.net->eval();
  save_model(dir + "/h.pt", m);
  EXPECT_NE(test::read_bytes(dir + "/h.pt").find("\"opponent_policy_head\":true"),
            std::string::npos);
  Model back = load_model(dir + "/h.pt", &spec);
  EXPECT_TRUE(back.meta.network.opponent_policy_head);
  EXPECT_EQ(back.meta.network, m.meta.network);
  EXPECT_EQ(weights_checksum(back.net), weights_checksum(m.net));
  const torch::Tensor x = torch::randn({2, kNumPlanes, 18});
  EXPECT_TRUE(torch::equal(back.net->forward(x, 9, true).opponent_policy_logits,
                           m.net->forward(x, 9, true).opponent_policy_logits));
  // A model without the head writes no key: its metadata is what it was before the key.
  save_model(dir + "/plain.pt", make_random_model(spec, tiny(false), 5));
  EXPECT_EQ(test::read_bytes(dir + "/plain.pt").find("opponent_policy_head"), std::string::npos);
  fs::remove_all(dir);
}

// The shipped models (written before the head existed) load without it, and their
// weights are the network's whole set (the checksum of the file holds).
TEST(OpponentHead, OldModelsLoadWithoutTheHead) {
  const std::string root = test::source_dir();
  int loaded = 0;
  for (const std::string& file : {root + "/models/togyz.pt", root + "/models/kalah.pt",
                                  root + "/models/history/togyz-gen65.pt"}) {
    if (!fs::exists(file)) continue;
    Model m = load_model(file);
    EXPECT_FALSE(m.meta.network.opponent_policy_head) << file;
    EXPECT_EQ(m.net->parameter_count(), expected_parameter_count(m.meta.network)) << file;
    ++loaded;
  }
  EXPECT_GE(loaded, 1);
}

// Adding the head to a model (training with the head from `--init` a model without it)
// keeps every other weight and statistic: the model plays exactly as before; the new
// head is seeded; dropping it again gives the original weights back.
TEST(OpponentHead, AddingTheHeadKeepsEverythingElse) {
  const std::string root = test::source_dir();
  const std::string file = root + "/models/togyz.pt";
  Model old =
      fs::exists(file) ? load_model(file) : make_random_model(GameSpec::togyz(), tiny(false), 9);
  old.net->eval();
  const GameSpec spec = GameSpec::parse(old.meta.game);
  const std::vector<Position> positions = test::random_positions(spec, 12, 4);
  const uint64_t old_checksum = weights_checksum(old.net);
  Model with = with_opponent_policy_head(old, true, 1);
  EXPECT_TRUE(with.meta.network.opponent_policy_head);
  EXPECT_FALSE(with.net->is_training());
  EXPECT_EQ(with.net->parameter_count(), expected_parameter_count(with.meta.network));
  const auto old_params = old.net->named_parameters();
  for (const auto& p : with.net->named_parameters()) {
    if (p.key().rfind("opponent_policy", 0) == 0) continue;
    ASSERT_NE(old_params.find(p.key()), nullptr) << p.key();
    EXPECT_TRUE(torch::equal(p.value(), *old_params.find(p.key()))) << p.key();
  }
  const auto old_buffers = old.net->named_buffers();
  for (const auto& b : with.net->named_buffers()) {
    if (b.key().rfind("opponent_policy", 0) == 0) continue;
    EXPECT_TRUE(torch::equal(b.value(), *old_buffers.find(b.key()))) << b.key();
  }
  // Seeded: the same head twice.
  Model twice = with_opponent_policy_head(old, true, 1);
  EXPECT_EQ(weights_checksum(with.net), weights_checksum(twice.net));
  expect_same_outputs(test::evaluate(old, positions), test::evaluate(with, positions));
  Model dropped = with_opponent_policy_head(with, false, 1);
  EXPECT_EQ(weights_checksum(dropped.net), old_checksum);
  EXPECT_EQ(weights_checksum(old.net), old_checksum);  // the original is untouched
}

TEST(OpponentHead, MetadataThatDisagreesWithTheWeightsIsRefused) {
  const std::string dir = test::temp_dir("kz-opp-meta");
  const GameSpec spec = GameSpec::togyz();
  save_model(dir + "/plain.pt", make_random_model(spec, tiny(false), 5));
  save_model(dir + "/head.pt", make_random_model(spec, tiny(true), 5));
  const std::string plain = test::read_bytes(dir + "/plain.pt"),
                    head = test::read_bytes(dir + "/head.pt");
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return dir + "/" + name;
  };
  // Claims a head its weights lack.
  const std::string claims =
      write("claims.pt", with_metadata(plain, "\"value_hidden\":16",
                                       "\"value_hidden\":16,\"opponent_policy_head\":true"));
  // (The safetensors weights are checked against the network the metadata describes,
  // tensor by tensor, before anything is read.)
  EXPECT_NE(load_error(claims).find("tensor 'opponent_policy_conv.weight' is missing"),
            std::string::npos)
      << load_error(claims);
  // Hides the head its weights have.
  const std::string hides =
      write("hides.pt", with_metadata(head, ",\"opponent_policy_head\":true", ""));
  EXPECT_NE(load_error(hides).find(
                "tensor 'opponent_policy_conv.weight' is not part of the network its metadata"),
            std::string::npos)
      << load_error(hides);
  // Not a boolean.
  const std::string number = write("number.pt", with_metadata(head, "\"opponent_policy_head\":true",
                                                              "\"opponent_policy_head\":1"));
  EXPECT_NE(load_error(number).find("malformed metadata"), std::string::npos) << load_error(number);
  EXPECT_EQ(load_error(dir + "/head.pt"), "");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
