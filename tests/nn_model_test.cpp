// The network, its features, model files and the search with a (tiny, random) network.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "mcts/mcts_player.h"
#include "nn/convolution_check.h"
#include "nn/features.h"
#include "nn/model_file.h"
#include "nn/nn_evaluator.h"
#include "tests/nn_test_util.h"
#include "tests/test_util.h"

namespace kz {
namespace {

using test::load_error;
using test::random_positions;
using test::with_metadata;

Model tiny_model(const GameSpec& spec, uint64_t seed = 3) {
  Model m = make_random_model(spec, test::tiny_net_config(), seed);
  m.net->eval();
  return m;
}

TEST(Features, LookaheadPlanesMatchTheRules) {
  const Position pos =
      Position::parse("9,9,8,9,9,9,9,9,9/11,9,9,9,9,9,9,9,8 0 0 w", GameSpec::togyz());
  std::vector<float> f(kNumPlanes * 18);
  encode_features(pos, f);
  auto at = [&](int plane, int cell) { return f[size_t(plane) * 18 + cell]; };
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(at(kPlaneMyLegal, i), 1.f);
    EXPECT_EQ(at(kPlaneMine, i), 1.f);
    EXPECT_EQ(at(kPlaneMine, 9 + i), 0.f);
  }
  EXPECT_FLOAT_EQ(at(kPlaneMyCapture, 2), 12.f / 9.f);  // hole 3 captures 12
  EXPECT_FLOAT_EQ(at(kPlaneCount, 9), 11.f / 9.f);      // Black's hole 1
  EXPECT_EQ(at(kPlaneOdd, 9), 1.f);
  EXPECT_EQ(at(kPlaneLastHole, 8), 1.f);
  // Black to move sees its own row first.
  Position black = pos;
  black.to_move = 1;
  encode_features(black, f);
  EXPECT_FLOAT_EQ(at(kPlaneCount, 0), 11.f / 9.f);
}

// The check behind every Network (nn/convolution_check.h): its reference agrees with
// LibTorch's own convolution, and oneDNN stays on exactly when it computes the same.
TEST(ConvolutionCheck, TheReferenceIsRightAndOneDnnStaysOnOnlyWhereSound) {
  torch::NoGradGuard no_grad;
  const bool onednn = ensure_sound_cpu_convolution();
  const bool was = at::globalContext().userEnabledMkldnn();
  at::globalContext().setUserEnabledMkldnn(false);
  for (int64_t channels : {1, 8, 28, 64}) {
    const auto x = torch::randn({5, channels, 18});
    const auto w = torch::randn({7, channels, 3});
    EXPECT_TRUE(torch::allclose(torch::conv1d(x, w, {}, 1, 1), conv1d_by_matmul(x, w), 1e-4, 1e-4))
        << channels;
  }
  at::globalContext().setUserEnabledMkldnn(was);
  EXPECT_EQ(onednn, at::globalContext().userEnabledMkldnn());
  EXPECT_EQ(onednn, onednn_convolution_is_sound());
  if (!onednn) std::cout << "oneDNN convolution unsound here: LibTorch's own is used\n";
}

TEST(Network, ABatchEvaluatesLikeEachPositionAlone) {
  // In fp32 a batch and a single position differ only by the order of float additions;
  // in bf16 such a difference can round an activation to the next bf16 value.
  const test::PrecisionGuard fp32(InferencePrecision::kFp32);
  for (const char* game : {"togyz", "kalah"}) {
    const GameSpec spec = GameSpec::parse(game);
    NnEvaluator eval(tiny_model(spec));
    const auto positions = random_positions(spec, 24, 1);
    std::vector<EvalOutput> batch(positions.size());
    eval.evaluate(positions, batch);
    for (size_t i = 0; i < positions.size(); ++i) {
      EvalOutput one[1];
      eval.evaluate(std::span<const Position>(&positions[i], 1), one);
      for (int k = 0; k < kMaxMoves; ++k)
        EXPECT_NEAR(one[0].policy[k], batch[i].policy[k], 1e-5) << game;
      EXPECT_NEAR(one[0].win, batch[i].win, 1e-5);
      EXPECT_NEAR(one[0].draw, batch[i].draw, 1e-5);
      EXPECT_NEAR(one[0].margin, batch[i].margin, 1e-3);
      // Illegal moves get exactly zero, legal ones sum to one.
      float sum = 0;
      for (int k = 0; k < kMaxMoves; ++k) {
        if (!positions[i].is_legal(k)) {
          EXPECT_EQ(batch[i].policy[k], 0.f);
        }
        sum += batch[i].policy[k];
      }
      EXPECT_NEAR(sum, 1.f, 1e-5);
      EXPECT_NEAR(batch[i].win + batch[i].draw + batch[i].loss, 1.f, 1e-5);
    }
  }
}

class ModelFileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("kz-model"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(ModelFileTest, SavesAndLoadsBitExactly) {
  const GameSpec spec = GameSpec::togyz();
  Model m = tiny_model(spec, 17);
  m.meta.generation = 5;
  m.meta.training_steps = 1234;
  save_model(path("a.pt"), m);
  Model back = load_model(path("a.pt"), &spec);
  EXPECT_EQ(back.meta.generation, 5);
  EXPECT_EQ(back.meta.training_steps, 1234);
  EXPECT_EQ(back.meta.network, m.meta.network);
  EXPECT_EQ(weights_checksum(back.net), weights_checksum(m.net));
  const auto a = m.net->parameters(), b = back.net->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i]));
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(ModelFileTest, RefusesBadFilesWithAMessage) {
  const GameSpec togyz = GameSpec::togyz(), kalah = GameSpec::parse("kalah");
  save_model(path("good.pt"), tiny_model(togyz));
  const std::string bytes = test::read_bytes(path("good.pt"));
  auto write = [&](const std::string& name, const std::string& data) {
    std::ofstream(path(name), std::ios::binary) << data;
  };
  write("truncated.pt", bytes.substr(0, bytes.size() / 2));
  write("empty.pt", "");
  write("text.pt", "this is not a model\n");
  EXPECT_NE(load_error(path("truncated.pt")).find("truncated.pt"), std::string::npos);
  EXPECT_NE(load_error(path("empty.pt")).find("empty"), std::string::npos);
  EXPECT_NE(load_error(path("text.pt")), "");
  EXPECT_NE(load_error(path("missing.pt")).find("no such file"), std::string::npos);
  EXPECT_NE(load_error(dir_).find("directory"), std::string::npos);
  EXPECT_NE(load_error(path("good.pt"), &kalah).find("trained for game 'togyz'"),
            std::string::npos);
  // Corruption anywhere in the weights: flip bytes in the middle of the file.
  int refused = 0, tried = 0;
  for (size_t at = bytes.size() / 4; at < bytes.size() * 3 / 4; at += bytes.size() / 16) {
    std::string bad = bytes;
    bad[at] = char(bad[at] ^ 0x5A);
    write("flipped.pt", bad);
    ++tried;
    refused += !load_error(path("flipped.pt")).empty();
  }
  EXPECT_EQ(refused, tried);
}

// Model files cross LibTorch versions: the shipped models (written with Debian 12's
// LibTorch 1.13) and a small model written with Debian 13's LibTorch 2.6
// (tests/data/togyz-tiny-libtorch-2.6.pt) load with whatever LibTorch this build uses,
// their weights checksums hold, and they evaluate to proper distributions.
TEST(ModelFileCompat, ModelsWrittenByOtherLibTorchVersionsLoad) {
  const std::string root = test::source_dir();
  int loaded = 0;
  for (const std::string& file : {root + "/models/togyz.pt", root + "/models/kalah.pt",
                                  root + "/tests/data/togyz-tiny-libtorch-2.6.pt"}) {
    if (!std::filesystem::exists(file)) continue;
    Model m = load_model(file);  // throws on a checksum mismatch
    const GameSpec spec = GameSpec::parse(m.meta.game);
    NnEvaluator eval(std::move(m));
    const Position start = Position::start(spec);
    EvalOutput out[1];
    eval.evaluate(std::span<const Position>(&start, 1), out);
    float sum = 0;
    for (float p : out[0].policy) sum += p;
    EXPECT_NEAR(sum, 1.f, 1e-4) << file;
    EXPECT_NEAR(out[0].win + out[0].draw + out[0].loss, 1.f, 1e-4) << file;
    ++loaded;
  }
  EXPECT_GE(loaded, 1);
}

TEST(NetConfigCheck, ExpectedParameterCountIsTheNetworksCount) {
  for (const NetConfig c : {NetConfig{}, NetConfig{16, 2, 8, 8, 16}, NetConfig{8, 0, 4, 4, 8},
                            NetConfig{32, 3, 5, 7, 11}}) {
    Network net(c);
    EXPECT_EQ(expected_parameter_count(c), net->parameter_count());
  }
}

TEST_F(ModelFileTest, MetadataIsCheckedBeforeTheNetworkIsBuilt) {
  save_model(path("good.pt"), tiny_model(GameSpec::togyz()));
  const std::string bytes = test::read_bytes(path("good.pt"));
  auto write = [&](const std::string& name, const std::string& data) {
    std::ofstream(path(name), std::ios::binary) << data;
    return path(name);
  };
  // The probe's file: 4096 x 256 took 57 s to build, then died in LibTorch.
  const auto t0 = std::chrono::steady_clock::now();
  const std::string huge =
      write("huge.pt", with_metadata(with_metadata(bytes, "\"channels\":16", "\"channels\":4096"),
                                     "\"blocks\":2", "\"blocks\":256"));
  EXPECT_NE(load_error(huge).find("channels = 4096 is outside 1..1024"), std::string::npos)
      << load_error(huge);
  // Inside the limits but far larger than its weights.
  const std::string big =
      write("big.pt", with_metadata(bytes, "\"channels\":16", "\"channels\":1024"));
  EXPECT_NE(load_error(big).find("bytes of weights"), std::string::npos) << load_error(big);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  // A game no program knows.
  const std::string chess =
      write("chess.pt", with_metadata(bytes, "\"game\":\"togyz\"", "\"game\":\"chess\""));
  EXPECT_NE(load_error(chess).find("unknown game"), std::string::npos) << load_error(chess);
  // The unedited file still loads.
  EXPECT_EQ(load_error(path("good.pt")), "");
}

TEST(NetworkSearch, ATinyRandomNetworkStillFindsTheDecisiveCapture) {
  const GameSpec spec = GameSpec::togyz();
  auto eval = std::make_shared<NnEvaluator>(tiny_model(spec));
  MctsPlayerOptions o;
  o.visits = 300;
  MctsPlayer player(eval, o);
  ThinkLimits lim;
  lim.nodes = 300;
  const Position pos = Position::parse("10,0,0,0,0,0,0,1,0/19,1,1,1,1,1,1,1,1 62 62 w", spec);
  const ThinkResult r = player.think(pos, lim);
  EXPECT_EQ(r.best_move, 0);
  EXPECT_TRUE(r.moves[0].proven);
  // Kalah: the capture that decides the game.
  const GameSpec k = GameSpec::parse("kalah");
  auto keval = std::make_shared<NnEvaluator>(tiny_model(k));
  MctsPlayer kplayer(keval, o);
  const ThinkResult kr = kplayer.think(Position::parse("1,0,0,0,0,0/1,1,1,1,15,1 13 14 s", k), lim);
  EXPECT_EQ(kr.best_move, 0);
}

}  // namespace
}  // namespace kz
