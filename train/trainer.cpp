#include "train/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <ostream>

#include "core/run_lock.h"
#include "nn/model_file.h"
#include "train/gradient_averaging.h"
#include "train/metrics_log.h"
#include "train/plot.h"
#include "train/prefetch.h"
#include "train/progress.h"
#include "train/rank_agreement.h"
#include "train/replay_buffer.h"
#include "train/training_checkpoint.h"
#include "train/training_losses.h"

namespace kz {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---- Set up: what the options ask for, the device, the ranks, the run lock ----

// What the run is asked for, checked before joining the other ranks.
struct RunPlan {
  int steps = 0;           // where this run ends: --steps, else [train] steps_per_generation
  std::string checkpoint;  // --checkpoint, else OUT.ckpt
  torch::Device device = torch::kCPU;
  bool bf16 = false;  // [train] precision = "bf16"
};

// The config's device; several ranks on one machine each take their own GPU when the
// config says plain "cuda".
torch::Device training_device(const TrainOptions& o) {
  const torch::Device d = parse_device(o.config.device);
  if (d.is_cuda() && !d.has_index() && o.distributed.world_size > 1 &&
      o.distributed.local_rank >= 0 && torch::cuda::device_count() > 0)
    return torch::Device(torch::kCUDA, c10::DeviceIndex(o.distributed.local_rank %
                                                        int(torch::cuda::device_count())));
  return d;
}

RunPlan plan_run(const TrainOptions& o) {
  RunPlan plan;
  plan.steps = o.steps > 0 ? o.steps : o.config.train.steps_per_generation;
  plan.checkpoint = o.checkpoint.empty() ? o.out_model + ".ckpt" : o.checkpoint;
  if (o.batch_slices < 1) throw std::invalid_argument("batch slices must be at least 1");
  plan.device = training_device(o);
  plan.bf16 = o.config.train.precision == "bf16";
  return plan;
}

// One trainer per run (its models folder): two would overwrite each other's checkpoints
// and models (core/run_lock.h). Only rank 0 writes there, so only rank 0 calls this.
std::unique_ptr<RunLock> lock_models_folder(const std::string& out_model) {
  auto models_dir = std::filesystem::path(out_model).parent_path();
  if (models_dir.empty()) models_dir = ".";
  std::filesystem::create_directories(models_dir);
  return std::make_unique<RunLock>((models_dir / ".trainer.lock").string(),
                                   "trainer writing '" + out_model + "'");
}

// ---- Data: the training window and its validation slice ----

ReplayConfig window_config(const RunConfig& cfg) {
  ReplayConfig rc;
  rc.game = cfg.game;
  rc.window_rows = uint64_t(cfg.train.window_rows);
  rc.window_generations = cfg.train.window_generations;
  rc.validation_fraction = cfg.train.validation_fraction;
  rc.validation_seed = cfg.seed;
  return rc;
}

// Loads the window from `data_dir` into `buffer`; throws when it has no training rows.
ReplayLoadReport load_window(ReplayBuffer& buffer, const std::string& data_dir,
                             const std::vector<std::string>& only, TrainReport& report) {
  const ReplayLoadReport load = buffer.load(data_dir, only.empty() ? nullptr : &only);
  report.window_rows = load.rows_train;
  report.validation_rows = load.rows_validation;
  report.skipped_shards = load.skipped;
  if (buffer.size() == 0)
    throw std::runtime_error("no training rows found under '" + data_dir + "'");
  spdlog::info("train: {} rows from {} shards (generations {}..{}), {} validation rows",
               load.rows_train, load.shards_used, load.oldest_generation, load.newest_generation,
               load.rows_validation);
  return load;
}

// ---- The model: loaded or fresh, reshaped to the config, resumed ----

// The network to train, on `device`: --init's model or a fresh one (initialised on the
// CPU: the same weights for a seed on every device), grown to the config's size with
// --grow, with the optional heads the config asks for, and the generation it trains.
Model prepare_model(const TrainOptions& o, const torch::Device& device) {
  const RunConfig& cfg = o.config;
  Model model = load_or_init_model(o.init_model, cfg.game, cfg.network, cfg.seed, torch::kCPU);
  if (o.grow && o.init_model.empty())
    throw std::invalid_argument("--grow needs --init: the model to grow");
  if (model.meta.network.channels != cfg.network.channels ||
      model.meta.network.blocks != cfg.network.blocks) {
    const NetConfig& has = model.meta.network;
    if (o.grow) {
      spdlog::info(
          "train: growing '{}' from {} x {} to the config's {} x {} (it plays as before "
          "until trained)",
          o.init_model, has.channels, has.blocks, cfg.network.channels, cfg.network.blocks);
      model = grown_model(model, cfg.network.channels, cfg.network.blocks, cfg.seed + 2);
    } else {
      spdlog::warn(
          "train: '{}' is {} x {} (channels x blocks), the config says {} x {}: it "
          "trains at its own size (--grow grows it to the config's)",
          o.init_model, has.channels, has.blocks, cfg.network.channels, cfg.network.blocks);
    }
  }
  // The config decides whether the network has the opponent-policy head: a model
  // without it (every model from before it) gets a fresh one, the rest loaded.
  if (model.meta.network.opponent_policy_head != cfg.network.opponent_policy_head) {
    spdlog::info("train: '{}' has {} opponent-policy head; the config asks for {}: {}",
                 o.init_model, model.meta.network.opponent_policy_head ? "an" : "no",
                 cfg.network.opponent_policy_head ? "one" : "none",
                 cfg.network.opponent_policy_head ? "it starts fresh" : "it is dropped");
    model = with_opponent_policy_head(model, cfg.network.opponent_policy_head, cfg.seed);
  }
  if (model.meta.network.score_distribution_head != cfg.network.score_distribution_head) {
    spdlog::info("train: '{}' has {} score distribution head; the config asks for {}: {}",
                 o.init_model, model.meta.network.score_distribution_head ? "a" : "no",
                 cfg.network.score_distribution_head ? "one" : "none",
                 cfg.network.score_distribution_head ? "it starts fresh" : "it is dropped");
    model = with_score_distribution_head(model, cfg.network.score_distribution_head, cfg.seed + 1);
  }
  model.net->to(device);
  model.meta.generation = o.generation >= 0 ? o.generation : model.meta.generation + 1;
  return model;
}

// The optional heads that are trained, and so have losses and metrics columns.
LossHeads trained_heads(const RunConfig& cfg, const Model& model) {
  LossHeads heads;
  heads.opponent_policy = cfg.network.opponent_policy_head;
  heads.score_distribution = model.meta.network.score_max_margin > 0;
  return heads;
}

// What the training batches hold for `model` (validation's differ: see Validation).
BatchTargets training_targets(const RunConfig& cfg, const Model& model, const RunPlan& plan) {
  BatchTargets t;
  t.pits = cfg.game.pits;
  t.opponent_policy = cfg.network.opponent_policy_head;
  t.score_max_margin = model.meta.network.score_max_margin;  // 0 = no head
  t.value_target_root_weight = cfg.train.value_target_root_weight;
  t.pinned = plan.device.is_cuda();
  return t;
}

// SGD with Nesterov momentum (plain SGD at momentum 0) and weight decay.
torch::optim::SGD make_optimizer(Network& net, const TrainConfig& tc) {
  return torch::optim::SGD(net->parameters(), torch::optim::SGDOptions(tc.learning_rate)
                                                  .momentum(tc.momentum)
                                                  .nesterov(tc.momentum > 0)
                                                  .weight_decay(tc.weight_decay));
}

// The step this run starts from: with --resume the checkpoint's, loaded into `model`
// and `opt`, when it is usable; else 0.
int resume_step(const TrainOptions& o, const RunPlan& plan, Model& model, torch::optim::SGD& opt,
                TrainReport& report) {
  if (!o.resume) return 0;
  const int step = load_checkpoint(plan.checkpoint, model.net, opt, model, plan.device);
  if (step < 0) return 0;
  report.resumed_from_step = step;
  spdlog::info("train: resuming from step {} of {}", step, plan.steps);
  return step;
}

// ---- Several ranks: the same job everywhere before the first step ----

void agree_across_ranks(Communicator& comm, const TrainOptions& o, const RunPlan& plan,
                        const BatchSplit& split, const ReplayBuffer& buffer, Model& model, int step,
                        int64_t base_steps) {
  RankView view;
  view.world_size = split.world;
  view.start_step = step;
  view.weights_checksum = int64_t(weights_checksum(model.net));
  view.settings_hash = int64_t(training_settings_hash(o.config, split.slices));
  view.window_rows = int64_t(buffer.size());
  view.window_hash = int64_t(window_hash(buffer));
  view.steps = plan.steps;
  view.base_steps = base_steps;
  view.generation = model.meta.generation;
  check_ranks_agree(comm, view);
  spdlog::info("train: rank {} of {} ({}), {} rows of each step's {} per rank", split.rank,
               split.world, comm.backend(), split.part_rows * size_t(split.slices),
               o.config.train.batch_size);
}

// ---- Metrics, validation, report ----

// --metrics (nullptr without), continued; with --resume the lines after the checkpoint's
// `total_step` are dropped, since the steps after it run again.
std::unique_ptr<MetricsLog> open_metrics(const TrainOptions& o, int64_t total_step) {
  if (o.metrics_path.empty()) return nullptr;
  MetricsLog::Options mo;
  mo.truncate_after_step = o.resume ? total_step : -1;
  return std::make_unique<MetricsLog>(o.metrics_path, mo);
}

// Rank 0's validation pass: the first 4096 held-out rows (in window order), in batches
// of 1024, their losses averaged over rows. Its value targets are the games' results
// alone ([train] value_target_root_weight 0), so that runs with different blends compare.
class Validation {
 public:
  Validation(const ReplayBuffer& buffer, bool leader, BatchTargets targets, const RunPlan& plan,
             const TrainConfig& tc)
      : buffer_(buffer),
        rows_(leader ? std::min(buffer.validation_size(), size_t(4096)) : 0),
        targets_(targets),
        device_(plan.device),
        bf16_(plan.bf16),
        tc_(tc) {
    targets_.value_target_root_weight = 0;
  }

  bool enabled() const { return rows_ > 0; }

  TrainingLosses run(Network& net) const {
    net->eval();
    torch::NoGradGuard no_grad;
    TrainingLosses sum;
    size_t n = 0;
    for (size_t start = 0; start < rows_; start += 1024) {
      const size_t count = std::min(rows_ - start, size_t(1024));
      const Batch b = to_device(
          make_batch(
              count, [&](size_t i) -> const ShardRow& { return buffer_.validation_row(start + i); },
              [&](size_t i) { return buffer_.validation_next_row(start + i); }, targets_),
          device_);
      const TrainingLosses batch = unpack(pack(compute_losses(net, b, targets_.pits, tc_, bf16_)));
      sum = add_weighted(sum, batch, double(count));
      n += count;
    }
    net->train();
    return divided_by(sum, double(n));
  }

 private:
  const ReplayBuffer& buffer_;
  const size_t rows_;
  BatchTargets targets_;
  const torch::Device device_;
  const bool bf16_;
  const TrainConfig& tc_;
};

void record_step_losses(TrainReport& report, const TrainingLosses& losses) {
  report.last_loss = losses.total;
  report.last_policy = losses.policy;
  report.last_value = losses.value;
  report.last_margin = losses.margin;
  report.last_opponent = losses.opponent_policy;
  report.last_score = losses.score_distribution;
}

// A head's validation loss stays -1 without the head.
void record_validation_losses(TrainReport& report, const TrainingLosses& losses,
                              const LossHeads& heads) {
  report.val_loss = losses.total;
  report.val_policy = losses.policy;
  report.val_value = losses.value;
  report.val_margin = losses.margin;
  if (heads.opponent_policy) report.val_opponent = losses.opponent_policy;
  if (heads.score_distribution) report.val_score = losses.score_distribution;
}

// ---- The steps ----

double learning_rate(const TrainConfig& tc, int64_t total_step) {
  double lr = tc.learning_rate;
  if (tc.warmup_steps > 0 && total_step < tc.warmup_steps)
    lr *= double(total_step + 1) / tc.warmup_steps;
  return lr * std::pow(double(tc.lr_decay), double(total_step / std::max(1, tc.lr_decay_steps)));
}

void set_learning_rate(torch::optim::SGD& opt, double lr) {
  for (auto& group : opt.param_groups())
    static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
}

// What the steps work with, set up before the first.
struct StepInputs {
  const TrainOptions& options;
  const RunPlan& plan;
  const BatchSplit& split;
  const ReplayBuffer& buffer;
  const BatchTargets& targets;
  const LossHeads& heads;
  int64_t base_steps;  // training steps behind the initial model
};

// The optimizer steps of the run, from its first (0, or the checkpoint's) to plan.steps.
// Each step draws its rows (prefetched), computes this rank's slices, averages over
// every part of the global batch and updates the weights; every 10th step (and the last)
// reports its losses, every [train] validation_every-th (and the last) validates, and a
// checkpoint is written every max(50, steps / 4) steps.
class StepLoop {
 public:
  StepLoop(const StepInputs& in, Model& model, torch::optim::SGD& opt, Communicator& comm,
           MetricsLog* metrics, const Validation& validation, TrainReport& report)
      : in_(in),
        tc_(in.options.config.train),
        steps_(in.plan.steps),
        leader_(in.split.rank == 0),
        model_(model),
        net_(model.net),
        opt_(opt),
        averager_(model.net, in.split, comm),
        metrics_(metrics),
        validation_(validation),
        report_(report) {}

  // Trains from `step` on. Returns false when --stop-after stopped it early: then, as
  // after a kill, the checkpoint is its only trace.
  bool run(int step) {
    const TrainOptions& o = in_.options;
    std::ostream no_output(nullptr);  // discards everything: other ranks, show_progress = false
    Progress::Options progress_options;
    if (!o.show_progress || !leader_) progress_options.out = &no_output;
    Progress progress("train gen " + std::to_string(model_.meta.generation), steps_,
                      progress_options);
    progress.set_done(step);
    net_->train();
    const auto t0 = Clock::now();
    int steps_this_run = 0;
    const int checkpoint_every = std::max(50, steps_ / 4);
    // A step's rows are a pure function of (seed, generation, step), whichever thread
    // builds them: the whole global batch is drawn on every rank (a few thousand draws),
    // each encodes only its own slices' rows.
    const uint64_t seed = sample_seed(o.config.seed, model_.meta.generation);
    StepPrefetcher<StepBatch> prefetch(
        step, steps_, o.loader_threads, o.prefetch_depth, [&](int64_t s) {
          return make_step_batch(in_.buffer, step_draw_seed(seed, in_.base_steps + s),
                                 tc_.batch_size, in_.split, in_.targets);
        });
    while (step < steps_) {
      const double lr = learning_rate(tc_, in_.base_steps + step);
      const torch::Tensor losses = optimize(prefetch.next(), lr, step + 1);
      ++step;
      ++steps_this_run;
      // --stop-after behaves as a run killed here would: the checkpoint is the only trace.
      const bool stopping = o.stop_after > 0 && step >= o.stop_after && step < steps_;
      const bool reporting = step % 10 == 0 || step == steps_ || stopping;
      if (reporting) {
        last_ = unpack(losses);
        record_step_losses(report_, last_);
      }
      const double secs = seconds_since(t0);
      report_.samples_per_s = secs > 0 ? steps_this_run * double(tc_.batch_size) / secs : 0;
      if (step % 10 == 0 || step == steps_) log_losses(step, lr);
      if (step % tc_.validation_every == 0 || step == steps_) validate(step);
      if ((step % checkpoint_every == 0 || stopping) && step < steps_ && leader_)
        save_checkpoint(in_.plan.checkpoint, net_, opt_, step, model_);
      if (stopping) {
        progress.finish();
        report_.steps_done = step;
        report_.seconds = seconds_since(t0);
        return false;
      }
      progress.set_done(step);
      if (reporting) progress.set_field("loss", report_.last_loss, 4);
      progress.set_field("samples/s", std::round(report_.samples_per_s), 6);
    }
    progress.finish();
    report_.steps_done = step;
    report_.seconds = seconds_since(t0);
    return true;
  }

 private:
  // One optimizer step (the run's `step`-th, from 1) on `batches`: this rank's slices
  // forward and backward, averaged over every part of the global batch, then the
  // update. Returns the step's packed losses, still on the device.
  torch::Tensor optimize(const StepBatch& batches, double lr, int step) {
    set_learning_rate(opt_, lr);
    opt_.zero_grad();
    for (int k = 0; k < in_.split.slices; ++k) {
      averager_.begin_slice(k);
      const Batch b = to_device(batches.slices[size_t(k)], in_.plan.device);
      const LossTensors losses = compute_losses(net_, b, in_.targets.pits, tc_, in_.plan.bf16);
      losses.total.backward();
      averager_.end_slice(k, pack(losses));
    }
    const torch::Tensor losses = averager_.average(step, report_.allreduce_seconds);
    opt_.step();
    return losses;
  }

  // The metrics line of a reporting step: its losses, learning rate and speed.
  void log_losses(int step, double lr) {
    if (!metrics_) return;
    auto fields = metrics_fields(last_, in_.heads, "");
    fields.emplace_back("lr", lr);
    fields.emplace_back("samples_per_s", report_.samples_per_s);
    metrics_->log(in_.base_steps + step, fields);
  }

  void validate(int step) {
    if (!validation_.enabled()) return;
    const TrainingLosses losses = validation_.run(net_);
    record_validation_losses(report_, losses, in_.heads);
    if (metrics_)
      metrics_->log(in_.base_steps + step, metrics_fields(losses, in_.heads, kValidationPrefix));
  }

  const StepInputs& in_;
  const TrainConfig& tc_;
  const int steps_;
  const bool leader_;
  Model& model_;
  Network& net_;
  torch::optim::SGD& opt_;
  GradientAverager averager_;
  MetricsLog* const metrics_;
  const Validation& validation_;
  TrainReport& report_;
  TrainingLosses last_;  // the last reporting step's: every 10th, the last, --stop-after's
};

// ---- The end: the model, the checkpoint gone, the plot (rank 0) ----

void write_trained_model(const TrainOptions& o, const RunPlan& plan, Model& model,
                         int64_t total_steps, uint64_t window_rows) {
  model.meta.training_steps = total_steps;
  model.meta.note = "trained on " + std::to_string(window_rows) + " rows from '" + o.data_dir + "'";
  // Dated when it was trained, not when its init model was made (empty = now on saving).
  model.meta.created.clear();
  model.net->eval();
  save_model(o.out_model, model);
  std::error_code ec;
  std::filesystem::remove(plan.checkpoint, ec);
  if (!o.plot_path.empty() && !o.metrics_path.empty())
    plot_metrics_file(o.metrics_path, o.plot_path, loss_plot_columns(),
                      PlotStyle{"training losses", 1000, 600, false});
}

}  // namespace

// Set up, load the data, prepare and resume the model, agree across ranks, train (with
// validation and checkpoints), write the model.
TrainReport run_training(const TrainOptions& o) {
  const RunPlan plan = plan_run(o);
  // Joining the job first: a rank that fails below then ends the others' waits at once.
  std::unique_ptr<Communicator> own_comm;
  if (!o.communicator) own_comm = std::make_unique<Communicator>(o.distributed, plan.device);
  Communicator& comm = o.communicator ? *o.communicator : *own_comm;
  const BatchSplit split =
      split_batch(o.config.train.batch_size, comm.rank(), comm.world_size(), o.batch_slices);
  const bool leader = split.rank == 0;  // validates and writes every file
  const std::unique_ptr<RunLock> lock = leader ? lock_models_folder(o.out_model) : nullptr;
  TrainReport report;
  report.world_size = split.world;

  ReplayBuffer buffer(window_config(o.config));
  const ReplayLoadReport load = load_window(buffer, o.data_dir, o.window_shards, report);

  Model model = prepare_model(o, plan.device);
  const int64_t base_steps = model.meta.training_steps;
  torch::optim::SGD opt = make_optimizer(model.net, o.config.train);
  const int step = resume_step(o, plan, model, opt, report);
  if (split.world > 1) agree_across_ranks(comm, o, plan, split, buffer, model, step, base_steps);

  const auto metrics = leader ? open_metrics(o, base_steps + step) : nullptr;
  const BatchTargets targets = training_targets(o.config, model, plan);
  const LossHeads heads = trained_heads(o.config, model);
  const Validation validation(buffer, leader, targets, plan, o.config.train);
  const StepInputs inputs{o, plan, split, buffer, targets, heads, base_steps};
  const bool finished =
      StepLoop(inputs, model, opt, comm, metrics.get(), validation, report).run(step);

  if (finished && leader)
    write_trained_model(o, plan, model, base_steps + report.steps_done, load.rows_train);
  return report;
}

torch::Device training_device_of(const TrainOptions& o) {
  return training_device(o);
}

}  // namespace kz
