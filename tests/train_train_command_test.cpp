// What kumalak-train does besides training (train/train_command.h): the ranks' flags over
// the environment's, --get, --init-only and the summary of a training.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "nn/model_file.h"
#include "test_util.h"
#include "train/train_command.h"

namespace kz {
namespace {

TEST(TrainCommand, TheFlagsSetOnlyWhatTheyGive) {
  DistributedOptions env;
  env.rank = 2;
  env.world_size = 4;
  env.master_addr = "node1";
  env.master_port = 1234;
  const DistributedOptions kept = with_distributed_flags(env, {});
  EXPECT_EQ(kept.rank, 2);
  EXPECT_EQ(kept.world_size, 4);
  EXPECT_EQ(kept.master_addr, "node1");
  EXPECT_EQ(kept.master_port, 1234);
  const DistributedOptions set = with_distributed_flags(env, {0, 8, "node2", 4321});
  EXPECT_EQ(set.rank, 0);
  EXPECT_EQ(set.world_size, 8);
  EXPECT_EQ(set.master_addr, "node2");
  EXPECT_EQ(set.master_port, 4321);
}

TEST(TrainCommand, GetPrintsAKeyAndRefusesAnUnknownOne) {
  RunConfig config;
  config.seed = 42;
  EXPECT_EQ(config_key_value(config, "seed"), "42");
  try {
    config_key_value(config, "no.such.key");
    FAIL() << "an unknown key was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--get: no config key 'no.such.key' (kumalak-train --help-config lists them)");
  }
}

TEST(TrainCommand, TheSummaryOfRankZeroAndOfTheOthers) {
  TrainReport r;
  r.steps_done = 20;
  r.resumed_from_step = 10;
  r.window_rows = 1000;
  r.validation_rows = 50;
  r.samples_per_s = 250;
  r.last_loss = 1.5;
  r.last_policy = 1;
  r.last_value = 0.25;
  r.last_margin = 0.25;
  r.val_loss = 1.75;
  r.skipped_shards = {"a"};
  const std::string main_line =
      "train: 20 steps (resumed from 10), 1000 window rows, 50 validation rows, 250 samples/s; "
      "loss 1.5 (policy 1, value 0.25, margin 0.25); validation 1.75; skipped shards 1\n";
  EXPECT_EQ(training_summary(r, 0), main_line);
  r.world_size = 2;
  r.seconds = 10;
  r.allreduce_seconds = 1;
  r.val_score = 0.5;
  r.last_score = 2;
  EXPECT_EQ(training_summary(r, 0), "train: 2 ranks; all-reduce 10 % of the training time\n" +
                                        main_line.substr(0, main_line.find(");")) + ", score 2" +
                                        main_line.substr(main_line.find(");")));
  EXPECT_EQ(training_summary(r, 1), "train: rank 1 of 2: 20 steps done\n");
}

TEST(TrainCommand, InitOnlyWritesAFreshOrAGrownModel) {
  const std::string dir = test::temp_dir("train_command");
  TrainOptions o;
  o.config.network.channels = 8;
  o.config.network.blocks = 1;
  o.config.network.policy_channels = 4;
  o.config.network.value_channels = 4;
  o.config.network.value_hidden = 8;
  o.out_model = dir + "/gen0.pt";
  o.grow = true;
  EXPECT_THROW(write_initial_model(o), std::invalid_argument) << "--grow without --init";
  o.grow = false;
  EXPECT_EQ(write_initial_model(o), "train: wrote a fresh generation-0 model to " + o.out_model);
  o.init_model = o.out_model;
  o.out_model = dir + "/grown.pt";
  EXPECT_THROW(write_initial_model(o), std::invalid_argument) << "--init without --grow";
  EXPECT_FALSE(std::filesystem::exists(o.out_model));
  o.grow = true;
  o.config.network.blocks = 2;
  EXPECT_EQ(write_initial_model(o),
            "train: wrote '" + o.init_model + "' grown from 8 x 1 to 8 x 2 to " + o.out_model);
  EXPECT_EQ(load_model(o.out_model, &o.config.game).meta.network.blocks, 2);
}

}  // namespace
}  // namespace kz
