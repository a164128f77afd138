// The trainer's losses by name (train/training_losses.h): packed and unpacked without
// losing a term or swapping two, summed term by term, and named in the metrics log as
// every run so far named them, in the same order.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "tests/test_util.h"
#include "tests/train_test_util.h"
#include "train/config.h"
#include "train/metrics_log.h"
#include "train/trainer.h"
#include "train/training_losses.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

// Six different values, none of them exact in a small number of bits.
TrainingLosses distinct_losses() {
  TrainingLosses l;
  l.total = 3.25;
  l.policy = 1.5;
  l.value = 0.875;
  l.margin = 0.125;
  l.opponent_policy = 2.0625;
  l.score_distribution = 4.5;
  return l;
}

LossTensors as_tensors(const TrainingLosses& l, torch::Dtype dtype) {
  auto scalar = [&](double v) { return torch::tensor(v, torch::TensorOptions().dtype(dtype)); };
  LossTensors t;
  t.total = scalar(l.total);
  t.policy = scalar(l.policy);
  t.value = scalar(l.value);
  t.margin = scalar(l.margin);
  t.opponent_policy = scalar(l.opponent_policy);
  t.score_distribution = scalar(l.score_distribution);
  return t;
}

void expect_equal(const TrainingLosses& a, const TrainingLosses& b) {
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.margin, b.margin);
  EXPECT_EQ(a.opponent_policy, b.opponent_policy);
  EXPECT_EQ(a.score_distribution, b.score_distribution);
}

TEST(TrainingLosses, PackAndUnpackRoundTripEveryTermByName) {
  const TrainingLosses l = distinct_losses();
  for (torch::Dtype dtype : {torch::kFloat32, torch::kFloat64}) {
    const torch::Tensor packed = pack(as_tensors(l, dtype));
    EXPECT_EQ(packed.numel(), kLossTermCount);
    EXPECT_EQ(packed.scalar_type(), dtype);
    EXPECT_FALSE(packed.requires_grad());
    expect_equal(unpack(packed), l);
  }
}

TEST(TrainingLosses, PackedTermsFollowTheDeclaredOrder) {
  const TrainingLosses l = distinct_losses();
  const torch::Tensor packed = pack(as_tensors(l, torch::kFloat64));
  for (size_t i = 0; i < kLossTerms<double>.size(); ++i)
    EXPECT_EQ(packed[int64_t(i)].item<double>(), l.*kLossTerms<double>[i].member)
        << kLossTerms<double>[i].log_name;
}

TEST(TrainingLosses, PackedLossesAddTermByTerm) {
  // Slices and ranks are summed as packed tensors (train/gradient_averaging.h).
  const TrainingLosses a = distinct_losses();
  const TrainingLosses b = divided_by(distinct_losses(), 4);
  const TrainingLosses sum =
      unpack(pack(as_tensors(a, torch::kFloat64)) + pack(as_tensors(b, torch::kFloat64)));
  expect_equal(sum, add_weighted(a, b, 1.0));
  EXPECT_EQ(sum.score_distribution, 4.5 + 4.5 / 4);
}

TEST(TrainingLosses, UnpackRefusesAnotherLength) {
  EXPECT_THROW(unpack(torch::zeros({5})), std::invalid_argument);
  EXPECT_THROW(unpack(torch::zeros({7})), std::invalid_argument);
  EXPECT_NO_THROW(unpack(torch::zeros({kLossTermCount})));
}

TEST(TrainingLosses, WeightedMean) {
  TrainingLosses sum;
  sum = add_weighted(sum, distinct_losses(), 3);
  sum = add_weighted(sum, divided_by(distinct_losses(), 2), 1);
  const TrainingLosses mean = divided_by(sum, 4);
  EXPECT_DOUBLE_EQ(mean.total, (3 * 3.25 + 3.25 / 2) / 4);
  EXPECT_DOUBLE_EQ(mean.margin, (3 * 0.125 + 0.125 / 2) / 4);
  EXPECT_DOUBLE_EQ(mean.opponent_policy, (3 * 2.0625 + 2.0625 / 2) / 4);
}

std::vector<std::string> names(const std::vector<std::pair<std::string, double>>& fields) {
  std::vector<std::string> out;
  for (const auto& f : fields) out.push_back(f.first);
  return out;
}

TEST(TrainingLosses, MetricsNamesAndValues) {
  const TrainingLosses l = distinct_losses();
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(metrics_fields(l, {}, "")), (Names{"loss", "policy", "value", "margin"}));
  EXPECT_EQ(names(metrics_fields(l, {true, true}, "")),
            (Names{"loss", "policy", "value", "margin", "opponent", "score"}));
  EXPECT_EQ(names(metrics_fields(l, {false, true}, kValidationPrefix)),
            (Names{"val_loss", "val_policy", "val_value", "val_margin", "val_score"}));
  EXPECT_EQ(names(metrics_fields(l, {true, false}, kValidationPrefix)),
            (Names{"val_loss", "val_policy", "val_value", "val_margin", "val_opponent"}));
  const auto fields = metrics_fields(l, {true, true}, "");
  EXPECT_EQ(fields[0].second, l.total);
  EXPECT_EQ(fields[3].second, l.margin);
  EXPECT_EQ(fields[4].second, l.opponent_policy);
  EXPECT_EQ(fields[5].second, l.score_distribution);
  EXPECT_EQ(loss_plot_columns(), (Names{"loss", "policy", "value", "margin", "val_loss"}));
}

// A training run's metrics log: the columns every run so far wrote, in their order.
TEST(TrainingLosses, TheTrainersMetricsColumns) {
  const std::string dir = test::temp_dir("kz-loss-columns");
  RunConfig config = load_config(test::source_dir() + "/configs/tiny.toml");
  std::mt19937_64 rng(11);
  fs::create_directories(dir + "/data");
  test::write_random_shard(config.game, rng, 40, dir + "/data/a.kzshard");
  auto columns = [&](bool heads, const std::string& name) {
    TrainOptions o;
    o.config = config;
    o.config.network.opponent_policy_head = heads;
    o.config.network.score_distribution_head = heads;
    o.data_dir = dir + "/data";
    o.out_model = dir + "/" + name + ".pt";
    o.metrics_path = dir + "/" + name + ".jsonl";
    o.steps = 10;
    o.show_progress = false;
    const TrainReport r = run_training(o);
    EXPECT_GT(r.validation_rows, 0u) << name;
    EXPECT_GT(r.val_loss, 0) << name;
    EXPECT_EQ(r.val_opponent > 0, heads) << name;
    EXPECT_EQ(r.val_score > 0, heads) << name;
    return read_metrics(o.metrics_path).columns;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(columns(false, "plain"),
            (Names{"step", "time", "loss", "policy", "value", "margin", "lr", "samples_per_s",
                   "val_loss", "val_policy", "val_value", "val_margin"}));
  EXPECT_EQ(columns(true, "heads"),
            (Names{"step", "time", "loss", "policy", "value", "margin", "opponent", "score", "lr",
                   "samples_per_s", "val_loss", "val_policy", "val_value", "val_margin",
                   "val_opponent", "val_score"}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
