// The trainer's targets (train/trainer.h): value targets blended with the search's root
// value ([train] value_target_root_weight), and a short training run with them on.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "nn/model_file.h"
#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/config.h"
#include "train/trainer.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

// A Togyz row (162 stones, so the margin is divided by 81) the mover lost by 18, whose
// search thought it was winning.
ShardRow lost_row_with_hopeful_search() {
  ShardRow r;
  r.pos = Position::start(GameSpec::togyz());
  r.result = -1;
  r.final_margin = -18;
  r.root_win = 0.6f;
  r.root_draw = 0.1f;
  r.root_loss = 0.3f;
  r.root_margin = 9;
  return r;
}

TEST(ValueTargets, WeightZeroIsTheGameResultAlone) {
  const ValueTargets t = value_targets(lost_row_with_hopeful_search(), 0);
  EXPECT_EQ(t.wdl[0], 0);
  EXPECT_EQ(t.wdl[1], 0);
  EXPECT_EQ(t.wdl[2], 1);
  EXPECT_EQ(t.margin, -18.f / 81.f);  // exactly the expression of the unblended trainer
}

TEST(ValueTargets, BlendsResultAndRootValue) {
  const ValueTargets t = value_targets(lost_row_with_hopeful_search(), 0.25f);
  EXPECT_NEAR(t.wdl[0], 0.25 * 0.6, 1e-6);
  EXPECT_NEAR(t.wdl[1], 0.25 * 0.1, 1e-6);
  EXPECT_NEAR(t.wdl[2], 0.75 + 0.25 * 0.3, 1e-6);
  EXPECT_NEAR(t.wdl[0] + t.wdl[1] + t.wdl[2], 1, 1e-6);
  EXPECT_NEAR(t.margin, (0.75 * -18 + 0.25 * 9) / 81, 1e-6);
  const ValueTargets all = value_targets(lost_row_with_hopeful_search(), 1);
  EXPECT_NEAR(all.wdl[0], 0.6, 1e-6);
  EXPECT_NEAR(all.margin, 9.0 / 81, 1e-6);
}

TEST(ValueTargets, RootProbabilitiesAreNormalised) {
  // The search clamps each probability on its own: they may not sum to 1.
  ShardRow r = lost_row_with_hopeful_search();
  r.result = 0;
  r.root_win = 0.5f;
  r.root_draw = 0.5f;
  r.root_loss = 0.5f;
  const ValueTargets t = value_targets(r, 0.5f);
  EXPECT_NEAR(t.wdl[0], 0.5 / 3, 1e-6);
  EXPECT_NEAR(t.wdl[1], 0.5 + 0.5 / 3, 1e-6);
  EXPECT_NEAR(t.wdl[0] + t.wdl[1] + t.wdl[2], 1, 1e-6);
  r.root_win = r.root_draw = r.root_loss = 0;  // no root value at all: uniform
  const ValueTargets u = value_targets(r, 0.3f);
  EXPECT_NEAR(u.wdl[0], 0.1, 1e-6);
  EXPECT_NEAR(u.wdl[1], 0.7 + 0.1, 1e-6);
}

TEST(ValueTargets, ConfigKeyRangeAndDefault) {
  EXPECT_EQ(parse_config("", "t.toml").train.value_target_root_weight, 0.f);
  EXPECT_EQ(parse_config("[train]\nvalue_target_root_weight = 0.5\n", "t.toml")
                .train.value_target_root_weight,
            0.5f);
  try {
    parse_config("[train]\nvalue_target_root_weight = 1.5\n", "t.toml");
    FAIL() << "1.5 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("t.toml:2"), std::string::npos) << e.what();
  }
}

// Training with the blend on: it trains (finite losses), changes the weights, and the
// validation loss is still measured against the game results (so it compares with w = 0).
TEST(ValueTargets, TrainsWithTheBlend) {
  const std::string dir = test::temp_dir("kz-targets");
  RunConfig config = load_config(test::source_dir() + "/configs/tiny.toml");
  std::mt19937_64 rng(5);
  fs::create_directories(dir + "/data");
  test::write_random_shard(config.game, rng, 12, dir + "/data/a.kzshard");
  auto train = [&](const std::string& out, float weight) {
    TrainOptions o;
    o.config = config;
    o.config.train.value_target_root_weight = weight;
    o.config.train.validation_every = 1000;  // once, at the end
    o.data_dir = dir + "/data";
    o.out_model = dir + "/" + out;
    o.steps = 20;
    o.show_progress = false;
    return run_training(o);
  };
  const TrainReport plain = train("plain.pt", 0);
  const TrainReport blended = train("blended.pt", 0.5f);
  EXPECT_EQ(blended.steps_done, 20);
  EXPECT_TRUE(std::isfinite(blended.last_loss));
  EXPECT_TRUE(std::isfinite(blended.val_value));
  EXPECT_GT(blended.val_value, 0);
  Model plain_model = load_model(dir + "/plain.pt"),
        blended_model = load_model(dir + "/blended.pt");
  EXPECT_NE(weights_checksum(plain_model.net), weights_checksum(blended_model.net));
  // The same validation rows against the same (result) targets: both losses are of a
  // barely trained net on W/D/L classes, so near ln 3 and close to each other.
  EXPECT_NEAR(blended.val_value, plain.val_value, 0.3);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
