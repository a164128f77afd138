// The trainer's input pipeline and precision (train/prefetch.h, train/trainer.h): items
// come out in step order whatever order the workers finish in, never more than `depth`
// ahead, errors reach the consumer at their step; the trainer gives the same weights
// with 0, 1 or 3 loader threads, trains in bf16 (CPU autocast), and on CUDA where there
// is one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <regex>
#include <thread>

#include "nn/model_file.h"
#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/config.h"
#include "train/prefetch.h"
#include "train/trainer.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

TEST(StepPrefetcher, HandsOutItemsInStepOrderAndStaysWithinItsDepth) {
  for (int threads : {0, 1, 3}) {
    std::atomic<int> ahead{0}, most_ahead{0};
    std::atomic<int64_t> consumed{5};
    StepPrefetcher<int64_t> p(5, 45, threads, 4, [&](int64_t step) {
      // Later steps often finish first: workers sleep a pseudo-random while.
      std::this_thread::sleep_for(std::chrono::microseconds((step * 7919) % 13 * 100));
      const int a = int(step - consumed.load());
      int m = most_ahead.load();
      while (a > m && !most_ahead.compare_exchange_weak(m, a)) {
      }
      ++ahead;
      return step * step;
    });
    for (int64_t s = 5; s < 45; ++s) {
      ASSERT_EQ(p.next(), s * s) << threads << " threads";
      consumed = s + 1;
    }
    // A step is claimed only while fewer than 4 steps are waiting or being built, so no
    // item is ever started more than 4 steps past the one being consumed.
    EXPECT_LE(most_ahead.load(), 4) << threads << " threads";
  }
}

TEST(StepPrefetcher, AnErrorReachesTheConsumerAtItsStep) {
  StepPrefetcher<int> p(0, 10, 2, 3, [](int64_t step) {
    if (step == 4) throw std::runtime_error("row 4 is bad");
    return int(step);
  });
  for (int s = 0; s < 4; ++s) EXPECT_EQ(p.next(), s);
  try {
    p.next();
    FAIL() << "no error at step 4";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "row 4 is bad");
  }
  EXPECT_EQ(p.next(), 5);  // the pipeline goes on past a failed item
}

TEST(StepPrefetcher, StopsPromptlyWhenDestroyedEarly) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    StepPrefetcher<int> p(0, 1000000, 2, 8, [](int64_t step) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return int(step);
    });
    EXPECT_EQ(p.next(), 0);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(TrainConfigPrecision, Fp32OrBf16) {
  EXPECT_EQ(parse_config("", "t.toml").train.precision, "fp32");
  EXPECT_EQ(parse_config("[train]\nprecision = \"bf16\"\n", "t.toml").train.precision, "bf16");
  try {
    parse_config("[train]\nprecision = \"fp16\"\n", "t.toml");
    FAIL() << "fp16 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(
        std::string(e.what()).find("t.toml:2: precision 'fp16': expected \"fp32\" or \"bf16\""),
        std::string::npos)
        << e.what();
  }
}

// Training in-process on random Kalah(3,3) games with configs/tiny.toml.
class TrainerPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_dir("kz-trainer");
    config_ = load_config(test::source_dir() + "/configs/tiny.toml");
    std::mt19937_64 rng(5);
    fs::create_directories(dir_ + "/data");
    test::write_random_shard(config_.game, rng, 12, dir_ + "/data/a.kzshard");
  }
  void TearDown() override { fs::remove_all(dir_); }

  TrainReport train(const std::string& out, int loader_threads, const RunConfig& config) {
    TrainOptions o;
    o.config = config;
    o.data_dir = dir_ + "/data";
    o.out_model = dir_ + "/" + out;
    o.steps = 25;
    o.loader_threads = loader_threads;
    o.show_progress = false;
    return run_training(o);
  }
  uint64_t checksum(const std::string& out) {
    Model m = load_model(dir_ + "/" + out);
    return weights_checksum(m.net);
  }

  std::string dir_;
  RunConfig config_;
};

TEST_F(TrainerPipeline, LoaderThreadsChangeNothing) {
  train("t0.pt", 0, config_);
  train("t1.pt", 1, config_);
  train("t3.pt", 3, config_);
  EXPECT_EQ(checksum("t0.pt"), checksum("t1.pt"));
  EXPECT_EQ(checksum("t0.pt"), checksum("t3.pt"));
}

TEST_F(TrainerPipeline, ATrainedModelIsDatedWhenTrainedNotWhenItsInitWas) {
  Model init = make_random_model(config_.game, config_.network, 3);
  init.meta.created = "2000-01-01T00:00:00Z";
  save_model(dir_ + "/init.pt", init);
  TrainOptions o;
  o.config = config_;
  o.data_dir = dir_ + "/data";
  o.init_model = dir_ + "/init.pt";
  o.out_model = dir_ + "/trained.pt";
  o.steps = 5;
  o.show_progress = false;
  run_training(o);
  EXPECT_EQ(load_model(dir_ + "/init.pt").meta.created, "2000-01-01T00:00:00Z");
  const std::string created = load_model(dir_ + "/trained.pt").meta.created;
  EXPECT_TRUE(std::regex_match(created, std::regex(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << created;
  EXPECT_NE(created, "2000-01-01T00:00:00Z");
}

TEST_F(TrainerPipeline, Bf16TrainsOnTheCpu) {
  RunConfig bf16 = config_;
  bf16.train.precision = "bf16";
  const TrainReport r = train("bf16.pt", 1, bf16);
  EXPECT_EQ(r.steps_done, 25);
  EXPECT_TRUE(std::isfinite(r.last_loss)) << r.last_loss;
  EXPECT_GT(r.last_loss, 0);
  train("fp32.pt", 1, config_);
  // Rounded to bfloat16, the forward pass differs, so the weights do too.
  EXPECT_NE(checksum("bf16.pt"), checksum("fp32.pt"));
}

TEST_F(TrainerPipeline, TrainsOnCudaWithPinnedBatches) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device in this build or machine";
  for (const char* precision : {"fp32", "bf16"}) {
    RunConfig cuda = config_;
    cuda.device = "cuda";
    cuda.train.precision = precision;
    const TrainReport r = train(std::string("cuda-") + precision + ".pt", 2, cuda);
    EXPECT_EQ(r.steps_done, 25) << precision;
    EXPECT_TRUE(std::isfinite(r.last_loss)) << precision;
    // The model file loads on the CPU like any other.
    EXPECT_NO_THROW(load_model(dir_ + "/cuda-" + precision + ".pt")) << precision;
  }
}

}  // namespace
}  // namespace kz
