#include "train/trainer.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "core/atomic_file.h"
#include "core/run_lock.h"
#include "nn/features.h"
#include "nn/model_file.h"
#include "train/metrics_log.h"
#include "train/plot.h"
#include "train/progress.h"
#include "train/replay_buffer.h"

namespace kz {

namespace {

using Clock = std::chrono::steady_clock;

struct Batch {
  torch::Tensor features, policy, policy_mask, wdl, margin;
};

Batch make_batch(const std::vector<ShardRow>& rows, int pits) {
  const int64_t B = int64_t(rows.size());
  const int L = 2 * pits;
  const size_t per = size_t(kNumPlanes) * L;
  Batch b;
  b.features = torch::empty({B, kNumPlanes, L}, torch::kFloat32);
  b.policy = torch::zeros({B, pits}, torch::kFloat32);
  b.policy_mask = torch::zeros({B}, torch::kFloat32);
  b.wdl = torch::empty({B}, torch::kLong);
  b.margin = torch::empty({B}, torch::kFloat32);
  float* f = b.features.data_ptr<float>();
  float* p = b.policy.data_ptr<float>();
  float* pm = b.policy_mask.data_ptr<float>();
  int64_t* w = b.wdl.data_ptr<int64_t>();
  float* m = b.margin.data_ptr<float>();
  for (int64_t i = 0; i < B; ++i) {
    const ShardRow& r = rows[i];
    encode_features(r.pos, std::span<float>(f + per * i, per));
    if (r.full_search()) {
      pm[i] = 1;
      for (int k = 0; k < pits; ++k) p[i * pits + k] = r.policy[k];
    }
    w[i] = r.result > 0 ? 0 : r.result == 0 ? 1 : 2;
    m[i] = float(r.final_margin) / (float(r.pos.total_stones()) / 2.f);
  }
  return b;
}

struct Losses {
  torch::Tensor total, policy, value, margin;
};

Losses compute_losses(Network& net, const Batch& b, int pits, const TrainConfig& tc) {
  NetOutput out = net->forward(b.features, pits);
  // Illegal moves: a large negative logit (not -inf, whose 0 * -inf would be NaN).
  const auto legal = b.features.select(1, kPlaneMyLegal).narrow(1, 0, pits) > 0.5;
  auto logits = out.policy_logits.masked_fill(legal.logical_not(), -1e9);
  auto logp = torch::log_softmax(logits, 1);
  auto per_row = -(b.policy * logp).sum(1);
  auto rows = b.policy_mask.sum().clamp_min(1);
  Losses l;
  l.policy = (per_row * b.policy_mask).sum() / rows;
  l.value = torch::nn::functional::cross_entropy(out.wdl_logits, b.wdl);
  l.margin = torch::nn::functional::smooth_l1_loss(out.margin, b.margin);
  l.total = tc.policy_weight * l.policy + tc.value_weight * l.value + tc.margin_weight * l.margin;
  return l;
}

double learning_rate(const TrainConfig& tc, int64_t total_step) {
  double lr = tc.learning_rate;
  if (tc.warmup_steps > 0 && total_step < tc.warmup_steps)
    lr *= double(total_step + 1) / tc.warmup_steps;
  return lr * std::pow(double(tc.lr_decay), double(total_step / std::max(1, tc.lr_decay_steps)));
}

uint64_t step_seed(uint64_t seed, int64_t step) {
  uint64_t h = seed * 0x9E3779B97F4A7C15ull ^ uint64_t(step) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 31;
  return h * 0xBF58476D1CE4E5B9ull;
}

void save_checkpoint(const std::string& path, Network& net, torch::optim::SGD& opt, int step,
                     const Model& model) {
  torch::serialize::OutputArchive archive, net_archive, opt_archive;
  net->save(net_archive);
  opt.save(opt_archive);
  archive.write("model", net_archive);
  archive.write("optimizer", opt_archive);
  nlohmann::json j = {{"step", step},
                      {"game", model.meta.game},
                      {"generation", model.meta.generation},
                      {"base_steps", model.meta.training_steps},
                      {"weights_checksum", std::to_string(weights_checksum(net))}};
  archive.write("kz_checkpoint", c10::IValue(j.dump()));
  const std::string temp = temp_name_for(path);
  archive.save_to(temp);
  commit_temp_file(temp, path);
}

// Returns the step to continue from, or -1 when there is no usable checkpoint.
int load_checkpoint(const std::string& path, Network& net, torch::optim::SGD& opt,
                    const Model& model) {
  if (!std::filesystem::exists(path)) return -1;
  try {
    torch::serialize::InputArchive archive, net_archive, opt_archive;
    archive.load_from(path);
    c10::IValue meta;
    archive.read("kz_checkpoint", meta);
    const auto j = nlohmann::json::parse(meta.toStringRef());
    if (j.at("game").get<std::string>() != model.meta.game)
      throw std::runtime_error("checkpoint is for game " + j.at("game").get<std::string>());
    archive.read("model", net_archive);
    archive.read("optimizer", opt_archive);
    net->load(net_archive);
    opt.load(opt_archive);
    if (std::to_string(weights_checksum(net)) != j.at("weights_checksum").get<std::string>())
      throw std::runtime_error("weights checksum mismatch");
    return j.at("step").get<int>();
  } catch (const std::exception& e) {
    spdlog::warn("train: checkpoint '{}' is unusable ({}); starting from the initial weights", path,
                 std::string(e.what()).substr(0, std::string(e.what()).find('\n')));
    return -1;
  }
}

}  // namespace

TrainReport run_training(const TrainOptions& o) {
  const RunConfig& cfg = o.config;
  const TrainConfig& tc = cfg.train;
  const GameSpec game = cfg.game;
  const int pits = game.pits;
  const int steps = o.steps > 0 ? o.steps : tc.steps_per_generation;
  const std::string checkpoint = o.checkpoint.empty() ? o.out_model + ".ckpt" : o.checkpoint;
  // One trainer per run (its models folder): two would overwrite each other's
  // checkpoints and models (core/run_lock.h).
  const auto models_dir = std::filesystem::path(o.out_model).parent_path();
  std::filesystem::create_directories(models_dir.empty() ? "." : models_dir);
  const RunLock lock(
      ((models_dir.empty() ? std::filesystem::path(".") : models_dir) / ".trainer.lock").string(),
      "trainer writing '" + o.out_model + "'");
  TrainReport report;

  ReplayConfig rc;
  rc.game = game;
  rc.window_rows = uint64_t(tc.window_rows);
  rc.window_generations = tc.window_generations;
  rc.validation_fraction = tc.validation_fraction;
  rc.validation_seed = cfg.seed;
  ReplayBuffer buffer(rc);
  const ReplayLoadReport load = buffer.load(o.data_dir);
  report.window_rows = load.rows_train;
  report.validation_rows = load.rows_validation;
  report.skipped_shards = load.skipped;
  if (buffer.size() == 0)
    throw std::runtime_error("no training rows found under '" + o.data_dir + "'");
  spdlog::info("train: {} rows from {} shards (generations {}..{}), {} validation rows",
               load.rows_train, load.shards_used, load.oldest_generation, load.newest_generation,
               load.rows_validation);

  Model model = load_or_init_model(o.init_model, game, cfg.network, cfg.seed, torch::kCPU);
  const int64_t base_steps = model.meta.training_steps;
  model.meta.generation = o.generation >= 0 ? o.generation : model.meta.generation + 1;
  Network net = model.net;
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(tc.learning_rate)
                                               .momentum(tc.momentum)
                                               .nesterov(tc.momentum > 0)
                                               .weight_decay(tc.weight_decay));
  int step = 0;
  if (o.resume) {
    const int s = load_checkpoint(checkpoint, net, opt, model);
    if (s >= 0) {
      step = s;
      report.resumed_from_step = s;
      spdlog::info("train: resuming from step {} of {}", s, steps);
    }
  }

  std::unique_ptr<MetricsLog> metrics;
  if (!o.metrics_path.empty()) {
    MetricsLog::Options mo;
    mo.truncate_after_step = o.resume ? base_steps + step : -1;
    metrics = std::make_unique<MetricsLog>(o.metrics_path, mo);
  }
  const std::vector<ShardRow> validation = [&] {
    auto v = buffer.validation_rows();
    if (v.size() > 4096) v.resize(4096);
    return v;
  }();

  auto validate = [&]() {
    if (validation.empty()) return;
    net->eval();
    torch::NoGradGuard ng;
    double total = 0, pol = 0, val = 0, mar = 0;
    size_t n = 0;
    for (size_t start = 0; start < validation.size(); start += 1024) {
      std::vector<ShardRow> chunk(validation.begin() + start,
                                  validation.begin() + std::min(validation.size(), start + 1024));
      const Batch b = make_batch(chunk, pits);
      const Losses l = compute_losses(net, b, pits, tc);
      const double w = double(chunk.size());
      total += l.total.item<double>() * w;
      pol += l.policy.item<double>() * w;
      val += l.value.item<double>() * w;
      mar += l.margin.item<double>() * w;
      n += chunk.size();
    }
    report.val_loss = total / n;
    report.val_policy = pol / n;
    report.val_value = val / n;
    report.val_margin = mar / n;
    if (metrics)
      metrics->log(base_steps + step, {{"val_loss", report.val_loss},
                                       {"val_policy", report.val_policy},
                                       {"val_value", report.val_value},
                                       {"val_margin", report.val_margin}});
    net->train();
  };

  Progress progress("train gen " + std::to_string(model.meta.generation), steps);
  progress.set_done(step);
  net->train();
  const auto t0 = Clock::now();
  int steps_this_run = 0;
  const int checkpoint_every = std::max(50, steps / 4);
  while (step < steps) {
    std::mt19937_64 rng(
        step_seed(cfg.seed + uint64_t(model.meta.generation) * 7919, base_steps + step));
    const auto rows = buffer.sample(size_t(tc.batch_size), rng);
    const Batch b = make_batch(rows, pits);
    const double lr = learning_rate(tc, base_steps + step);
    for (auto& group : opt.param_groups())
      static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
    opt.zero_grad();
    const Losses l = compute_losses(net, b, pits, tc);
    l.total.backward();
    opt.step();
    ++step;
    ++steps_this_run;
    report.last_loss = l.total.item<double>();
    report.last_policy = l.policy.item<double>();
    report.last_value = l.value.item<double>();
    report.last_margin = l.margin.item<double>();
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    report.samples_per_s = secs > 0 ? steps_this_run * double(tc.batch_size) / secs : 0;
    if (metrics && (step % 10 == 0 || step == steps))
      metrics->log(base_steps + step, {{"loss", report.last_loss},
                                       {"policy", report.last_policy},
                                       {"value", report.last_value},
                                       {"margin", report.last_margin},
                                       {"lr", lr},
                                       {"samples_per_s", report.samples_per_s}});
    if (step % tc.validation_every == 0 || step == steps) validate();
    // --stop-after behaves as a run killed here would: the checkpoint is the only trace.
    const bool stopping = o.stop_after > 0 && step >= o.stop_after && step < steps;
    if ((step % checkpoint_every == 0 || stopping) && step < steps)
      save_checkpoint(checkpoint, net, opt, step, model);
    if (stopping) {
      progress.finish();
      report.steps_done = step;
      report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      return report;
    }
    progress.set_done(step);
    progress.set_field("loss", report.last_loss, 4);
    progress.set_field("samples/s", std::round(report.samples_per_s), 6);
  }
  progress.finish();
  report.steps_done = step;
  report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  model.meta.training_steps = base_steps + step;
  model.meta.note =
      "trained on " + std::to_string(load.rows_train) + " rows from '" + o.data_dir + "'";
  net->eval();
  save_model(o.out_model, model);
  std::error_code ec;
  std::filesystem::remove(checkpoint, ec);
  if (!o.plot_path.empty() && !o.metrics_path.empty())
    plot_metrics_file(o.metrics_path, o.plot_path,
                      {"loss", "policy", "value", "margin", "val_loss"},
                      PlotStyle{"training losses", 1000, 600, false});
  return report;
}

}  // namespace kz
