#include "train/trainer.h"

#include <ATen/autocast_mode.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>
#include <type_traits>

#include "core/atomic_file.h"
#include "core/run_lock.h"
#include "nn/features.h"
#include "nn/model_file.h"
#include "train/metrics_log.h"
#include "train/plot.h"
#include "train/prefetch.h"
#include "train/progress.h"
#include "train/replay_buffer.h"

namespace kz {

namespace {

using Clock = std::chrono::steady_clock;

struct Batch {
  torch::Tensor features, policy, policy_mask, wdl, margin;
  // With [train] value_target_root_weight > 0: the W/D/L target as probabilities (the
  // game's result blended with the search's root value); undefined otherwise, and `wdl`
  // (the result's class) is the target.
  torch::Tensor wdl_soft;
  // With [network] opponent_policy_head: the head's target over the ring [B, 2m] and
  // its weight per row [B] (0 = no next position); undefined otherwise.
  torch::Tensor opponent_policy, opponent_mask;
  // With [network] score_distribution_head: the class of each row's final margin
  // (margin + M) [B]; undefined otherwise.
  torch::Tensor score_class;
};

}  // namespace

// The value targets of a row with `root_weight` w of the search's root value blended in
// (KataGo and lc0 train on such a mix: the result of one game is a noisy label, the root
// value of a search a less noisy but biased one). w = 0 is the game's result alone.
ValueTargets value_targets(const ShardRow& r, float root_weight) {
  ValueTargets t;
  const float w = root_weight;
  const float result[3] = {r.result > 0 ? 1.f : 0.f, r.result == 0 ? 1.f : 0.f,
                           r.result < 0 ? 1.f : 0.f};
  float root[3] = {r.root_win, r.root_draw, r.root_loss};
  // The search clamps each probability on its own, so they may miss 1 by a rounding.
  const float sum = root[0] + root[1] + root[2];
  for (float& v : root) v = sum > 0 ? v / sum : 1.f / 3;
  for (int k = 0; k < 3; ++k) t.wdl[k] = (1 - w) * result[k] + w * root[k];
  const float half_stones = float(r.pos.total_stones()) / 2.f;
  t.margin = w > 0 ? ((1 - w) * float(r.final_margin) + w * r.root_margin) / half_stones
                   : float(r.final_margin) / half_stones;
  return t;
}

OpponentPolicyTarget opponent_policy_target(const ShardRow& row, const ShardRow* next) {
  OpponentPolicyTarget t;
  if (!next) return t;
  const int pits = row.pos.npits;
  const int offset = next->pos.to_move == row.pos.to_move ? 0 : pits;
  if (next->full_search()) {
    for (int k = 0; k < pits; ++k) t.policy[size_t(offset + k)] = next->policy[size_t(k)];
  } else if (next->played_move >= 0) {
    t.policy[size_t(offset + next->played_move)] = 1;
  } else {
    return t;
  }
  t.weight = 1;
  return t;
}

namespace {

// `row(i)` for i in [0, n): the rows of the batch, in order. `pinned`: in page-locked
// memory, which a CUDA device copies from asynchronously (only for CUDA: pinning needs
// the CUDA runtime). `root_weight`: [train] value_target_root_weight. `next(i)`: the row
// after row(i) in its game or nullptr (ReplayBuffer::next_row), read only with
// `opponent` ([network] opponent_policy_head). `score_max_margin` M > 0: the score
// distribution's classes (final margin + M).
template <class RowAt, class NextAt>
Batch make_batch(size_t n, RowAt row, NextAt next, int pits, bool opponent, int score_max_margin,
                 bool pinned = false, float root_weight = 0) {
  const int64_t B = int64_t(n);
  const int L = 2 * pits;
  const size_t per = size_t(kNumPlanes) * L;
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(pinned);
  Batch b;
  b.features = torch::empty({B, kNumPlanes, L}, f32);
  b.policy = torch::zeros({B, pits}, f32);
  b.policy_mask = torch::zeros({B}, f32);
  b.wdl = torch::empty({B}, f32.dtype(torch::kLong));
  b.margin = torch::empty({B}, f32);
  const bool soft = root_weight > 0;
  if (soft) b.wdl_soft = torch::empty({B, 3}, f32);
  float* ws = soft ? b.wdl_soft.data_ptr<float>() : nullptr;
  if (opponent) {
    b.opponent_policy = torch::zeros({B, L}, f32);
    b.opponent_mask = torch::zeros({B}, f32);
  }
  float* op = opponent ? b.opponent_policy.data_ptr<float>() : nullptr;
  float* om = opponent ? b.opponent_mask.data_ptr<float>() : nullptr;
  if (score_max_margin > 0) b.score_class = torch::empty({B}, f32.dtype(torch::kLong));
  int64_t* sc = score_max_margin > 0 ? b.score_class.data_ptr<int64_t>() : nullptr;
  float* f = b.features.data_ptr<float>();
  float* p = b.policy.data_ptr<float>();
  float* pm = b.policy_mask.data_ptr<float>();
  int64_t* w = b.wdl.data_ptr<int64_t>();
  float* m = b.margin.data_ptr<float>();
  for (int64_t i = 0; i < B; ++i) {
    const ShardRow& r = row(size_t(i));
    encode_features(r.pos, std::span<float>(f + per * i, per));
    if (r.full_search()) {
      pm[i] = 1;
      for (int k = 0; k < pits; ++k) p[i * pits + k] = r.policy[k];
    }
    w[i] = r.result > 0 ? 0 : r.result == 0 ? 1 : 2;
    const ValueTargets t = value_targets(r, root_weight);
    if (soft)
      for (int k = 0; k < 3; ++k) ws[i * 3 + k] = t.wdl[k];
    m[i] = t.margin;
    // The reader refuses |final_margin| over the total seeds, so the class exists.
    if (sc)
      sc[i] = std::clamp(int64_t(r.final_margin) + score_max_margin, int64_t(0),
                         2 * int64_t(score_max_margin));
    if (opponent) {
      const OpponentPolicyTarget o = opponent_policy_target(r, next(size_t(i)));
      om[i] = o.weight;
      if (o.weight > 0)
        for (int k = 0; k < L; ++k) op[i * L + k] = o.policy[size_t(k)];
    }
  }
  return b;
}

// The batch on `device`; from pinned memory the copies are asynchronous (they queue
// behind the GPU's work instead of waiting for it).
Batch to_device(const Batch& b, const torch::Device& device) {
  if (device.is_cpu()) return b;
  return {b.features.to(device, /*non_blocking=*/true),
          b.policy.to(device, true),
          b.policy_mask.to(device, true),
          b.wdl.to(device, true),
          b.margin.to(device, true),
          b.wdl_soft.defined() ? b.wdl_soft.to(device, true) : torch::Tensor(),
          b.opponent_policy.defined() ? b.opponent_policy.to(device, true) : torch::Tensor(),
          b.opponent_mask.defined() ? b.opponent_mask.to(device, true) : torch::Tensor(),
          b.score_class.defined() ? b.score_class.to(device, true) : torch::Tensor()};
}

// A step's rows, built ahead by the prefetcher: one batch per slice of this rank.
struct StepBatch {
  std::vector<Batch> slices;
};

// Mixed precision ([train] precision = "bf16"): the forward pass under LibTorch's
// autocast (matrix products and convolutions in bfloat16, reductions and the losses in
// float32); weights, gradients and the optimizer stay float32. Autocast is per thread.
class AutocastScope {
 public:
  AutocastScope(bool on, const torch::Device& device) : on_(on), cuda_(device.is_cuda()) {
    if (!on_) return;
    if (cuda_) {
      at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
      at::autocast::set_enabled(true);
    } else {
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
      at::autocast::set_cpu_enabled(true);
    }
  }
  ~AutocastScope() {
    if (!on_) return;
    if (cuda_)
      at::autocast::set_enabled(false);
    else
      at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool on_, cuda_;
};

struct Losses {
  torch::Tensor total, policy, value, margin;
  torch::Tensor opponent;  // a zero without the opponent-policy head
  torch::Tensor score;     // a zero without the score distribution head
};

Losses compute_losses(Network& net, const Batch& b, int pits, const TrainConfig& tc,
                      bool bf16 = false) {
  const bool opponent = b.opponent_policy.defined();
  NetOutput out;
  {
    AutocastScope autocast(bf16, b.features.device());
    out = net->forward(b.features, pits, opponent);
  }
  if (bf16) {
    out.policy_logits = out.policy_logits.to(torch::kFloat32);
    out.wdl_logits = out.wdl_logits.to(torch::kFloat32);
    out.margin = out.margin.to(torch::kFloat32);
    if (opponent) out.opponent_policy_logits = out.opponent_policy_logits.to(torch::kFloat32);
    if (out.score_logits.defined()) out.score_logits = out.score_logits.to(torch::kFloat32);
  }
  // Illegal moves: a large negative logit (not -inf, whose 0 * -inf would be NaN).
  const auto legal = b.features.select(1, kPlaneMyLegal).narrow(1, 0, pits) > 0.5;
  auto logits = out.policy_logits.masked_fill(legal.logical_not(), -1e9);
  auto logp = torch::log_softmax(logits, 1);
  auto per_row = -(b.policy * logp).sum(1);
  auto rows = b.policy_mask.sum().clamp_min(1);
  Losses l;
  l.policy = (per_row * b.policy_mask).sum() / rows;
  l.value = b.wdl_soft.defined()
                ? -(b.wdl_soft * torch::log_softmax(out.wdl_logits, 1)).sum(1).mean()
                : torch::nn::functional::cross_entropy(out.wdl_logits, b.wdl);
  l.margin = torch::nn::functional::smooth_l1_loss(out.margin, b.margin);
  l.total = tc.policy_weight * l.policy + tc.value_weight * l.value + tc.margin_weight * l.margin;
  if (opponent) {
    // Over the whole ring, unmasked: the target has no mass on cells that cannot be the
    // next move, and the head learns which those are.
    auto opp_logp = torch::log_softmax(out.opponent_policy_logits, 1);
    auto opp_row = -(b.opponent_policy * opp_logp).sum(1);
    l.opponent = (opp_row * b.opponent_mask).sum() / b.opponent_mask.sum().clamp_min(1);
    l.total = l.total + tc.opponent_policy_weight * l.opponent;
  } else {
    l.opponent = torch::zeros({}, l.total.options());
  }
  if (b.score_class.defined()) {
    l.score = torch::nn::functional::cross_entropy(out.score_logits, b.score_class);
    l.total = l.total + tc.score_distribution_weight * l.score;
  } else {
    l.score = torch::zeros({}, l.total.options());
  }
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

uint64_t fnv(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}
template <class T>
uint64_t fnv(uint64_t h, const T& v) {
  static_assert(std::is_arithmetic_v<T>);
  return fnv(h, &v, sizeof v);
}

// What decides a step's arithmetic, apart from data and weights: ranks that disagree on
// any of it would silently average unrelated gradients.
uint64_t training_settings_hash(const RunConfig& cfg, int batch_slices) {
  const TrainConfig& t = cfg.train;
  uint64_t h = 0xCBF29CE484222325ull;
  const std::string game = cfg.game.name();
  h = fnv(h, game.data(), game.size());
  for (int v :
       {cfg.network.channels, cfg.network.blocks, cfg.network.policy_channels,
        cfg.network.value_channels, cfg.network.value_hidden, int(cfg.network.opponent_policy_head),
        int(cfg.network.score_distribution_head), t.batch_size, t.warmup_steps, t.lr_decay_steps,
        t.window_generations, t.validation_every, batch_slices})
    h = fnv(h, v);
  for (float v :
       {t.learning_rate, t.momentum, t.weight_decay, t.lr_decay, t.policy_weight, t.value_weight,
        t.margin_weight, t.validation_fraction, t.value_target_root_weight,
        t.opponent_policy_weight, t.score_distribution_weight})
    h = fnv(h, v);
  h = fnv(h, t.window_rows);
  return fnv(h, cfg.seed);
}

// The training window's rows in order (the fields the loss reads), so that ranks which
// found other shards, or the same shards in another order, refuse to start.
uint64_t window_hash(const ReplayBuffer& buffer) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < buffer.size(); ++i) {
    const ShardRow& r = buffer.row(i);
    h = fnv(h, r.game_id);
    h = fnv(h, r.ply);
    h = fnv(h, r.result);
    h = fnv(h, r.final_margin);
    h = fnv(h, r.flags);
    h = fnv(h, r.policy.data(), sizeof(float) * r.policy.size());
  }
  return h;
}

// Every rank's view of the job before the first step; a difference is an error on every
// rank (each gets all views), naming what differs.
void check_ranks_agree(Communicator& comm, const std::vector<int64_t>& mine) {
  static const char* const kWhat[] = {
      "world size",         "step to continue from (checkpoint)",
      "weights checksum",   "[train] settings, network, game or seed (or --batch-slices)",
      "window size (rows)", "window contents (shards found)",
      "steps to train",     "initial model (training steps behind it)",
      "generation"};
  const auto all = comm.all_gather(mine, "the ranks' settings");
  for (size_t r = 1; r < all.size(); ++r)
    for (size_t i = 0; i < mine.size(); ++i)
      if (all[r][i] != all[0][i])
        throw DistributedError("rank " + std::to_string(r) + " disagrees with rank 0 about the " +
                               kWhat[i] + " (" + std::to_string(all[r][i]) + " vs " +
                               std::to_string(all[0][i]) +
                               "): every rank must start from the same config, data, initial "
                               "model, checkpoint and flags");
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
                    const Model& model, const torch::Device& device) {
  if (!std::filesystem::exists(path)) return -1;
  try {
    torch::serialize::InputArchive archive, net_archive, opt_archive;
    archive.load_from(path, device);
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
  const int slices = o.batch_slices;
  if (slices < 1) throw std::invalid_argument("batch slices must be at least 1");
  // Joining the job first: a rank that fails below then ends the others' waits at once.
  // Several ranks on one machine each take their own GPU when the config says "cuda".
  const torch::Device device = [&] {
    const torch::Device d = parse_device(cfg.device);
    if (d.is_cuda() && !d.has_index() && o.distributed.world_size > 1 &&
        o.distributed.local_rank >= 0 && torch::cuda::device_count() > 0)
      return torch::Device(torch::kCUDA, c10::DeviceIndex(o.distributed.local_rank %
                                                          int(torch::cuda::device_count())));
    return d;
  }();
  const bool cuda = device.is_cuda();
  const bool bf16 = tc.precision == "bf16";
  Communicator comm(o.distributed, device);
  const int rank = comm.rank(), world = comm.world_size();
  const bool leader = rank == 0;  // validates and writes every file
  const int parts = world * slices;
  if (tc.batch_size % parts != 0)
    throw std::invalid_argument(
        "[train] batch_size " + std::to_string(tc.batch_size) +
        " is not a multiple of ranks x batch slices = " + std::to_string(parts));
  const size_t part_rows = size_t(tc.batch_size / parts);
  // One trainer per run (its models folder): two would overwrite each other's
  // checkpoints and models (core/run_lock.h). Only rank 0 writes there.
  const auto models_dir = std::filesystem::path(o.out_model).parent_path();
  std::unique_ptr<RunLock> lock;
  if (leader) {
    std::filesystem::create_directories(models_dir.empty() ? "." : models_dir);
    lock = std::make_unique<RunLock>(
        ((models_dir.empty() ? std::filesystem::path(".") : models_dir) / ".trainer.lock").string(),
        "trainer writing '" + o.out_model + "'");
  }
  TrainReport report;
  report.world_size = world;

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

  // Initialised on the CPU (the same weights for a seed on every device), then moved.
  Model model = load_or_init_model(o.init_model, game, cfg.network, cfg.seed, torch::kCPU);
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
  const bool opponent = cfg.network.opponent_policy_head;
  const int score_max_margin = model.meta.network.score_max_margin;  // 0 = no head
  model.net->to(device);
  const int64_t base_steps = model.meta.training_steps;
  model.meta.generation = o.generation >= 0 ? o.generation : model.meta.generation + 1;
  Network net = model.net;
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(tc.learning_rate)
                                               .momentum(tc.momentum)
                                               .nesterov(tc.momentum > 0)
                                               .weight_decay(tc.weight_decay));
  int step = 0;
  if (o.resume) {
    const int s = load_checkpoint(checkpoint, net, opt, model, device);
    if (s >= 0) {
      step = s;
      report.resumed_from_step = s;
      spdlog::info("train: resuming from step {} of {}", s, steps);
    }
  }
  if (world > 1) {
    check_ranks_agree(comm,
                      {world, step, int64_t(weights_checksum(net)),
                       int64_t(training_settings_hash(cfg, slices)), int64_t(buffer.size()),
                       int64_t(window_hash(buffer)), steps, base_steps, model.meta.generation});
    spdlog::info("train: rank {} of {} ({}), {} rows of each step's {} per rank", rank, world,
                 comm.backend(), part_rows * size_t(slices), tc.batch_size);
  }

  std::unique_ptr<MetricsLog> metrics;
  if (!o.metrics_path.empty() && leader) {
    MetricsLog::Options mo;
    mo.truncate_after_step = o.resume ? base_steps + step : -1;
    metrics = std::make_unique<MetricsLog>(o.metrics_path, mo);
  }
  // The first 4096 validation rows (in window order), on rank 0 only.
  const size_t validation_count = leader ? std::min(buffer.validation_size(), size_t(4096)) : 0;

  auto validate = [&]() {
    if (validation_count == 0) return;
    net->eval();
    torch::NoGradGuard ng;
    double total = 0, pol = 0, val = 0, mar = 0, opp = 0, sco = 0;
    size_t n = 0;
    for (size_t start = 0; start < validation_count; start += 1024) {
      const size_t count = std::min(validation_count - start, size_t(1024));
      const Batch b = to_device(
          make_batch(
              count, [&](size_t i) -> const ShardRow& { return buffer.validation_row(start + i); },
              [&](size_t i) { return buffer.validation_next_row(start + i); }, pits, opponent,
              score_max_margin, cuda),
          device);
      const Losses l = compute_losses(net, b, pits, tc, bf16);
      const double w = double(count);
      total += l.total.item<double>() * w;
      pol += l.policy.item<double>() * w;
      val += l.value.item<double>() * w;
      mar += l.margin.item<double>() * w;
      opp += l.opponent.item<double>() * w;
      sco += l.score.item<double>() * w;
      n += count;
    }
    report.val_loss = total / n;
    report.val_policy = pol / n;
    report.val_value = val / n;
    report.val_margin = mar / n;
    if (opponent) report.val_opponent = opp / n;
    if (score_max_margin > 0) report.val_score = sco / n;
    if (metrics) {
      std::vector<std::pair<std::string, double>> fields = {{"val_loss", report.val_loss},
                                                            {"val_policy", report.val_policy},
                                                            {"val_value", report.val_value},
                                                            {"val_margin", report.val_margin}};
      if (opponent) fields.emplace_back("val_opponent", report.val_opponent);
      if (score_max_margin > 0) fields.emplace_back("val_score", report.val_score);
      metrics->log(base_steps + step, fields);
    }
    net->train();
  };

  // What the all-reduce averages: every gradient, the batch-norm running statistics
  // (so that every rank, and rank 0's checkpoint, holds the statistics of all ranks'
  // rows), and the four losses for the report.
  const std::vector<torch::Tensor> params = net->parameters();
  const std::vector<torch::Tensor> all_buffers = net->buffers();
  std::vector<torch::Tensor> stats;  // the floating-point buffers: running mean and variance
  for (const auto& b : all_buffers)
    if (b.is_floating_point()) stats.push_back(b);

  std::ostream no_output(nullptr);  // discards everything: other ranks, show_progress = false
  Progress::Options progress_options;
  if (!o.show_progress || !leader) progress_options.out = &no_output;
  Progress progress("train gen " + std::to_string(model.meta.generation), steps, progress_options);
  progress.set_done(step);
  net->train();
  const auto t0 = Clock::now();
  int steps_this_run = 0;
  const int checkpoint_every = std::max(50, steps / 4);
  // A step's rows are a pure function of (seed, generation, step), whichever thread
  // builds them: the whole global batch is drawn on every rank (a few thousand draws),
  // each encodes only its own slices' rows.
  const uint64_t sample_seed = cfg.seed + uint64_t(model.meta.generation) * 7919;
  StepPrefetcher<StepBatch> prefetch(
      step, steps, o.loader_threads, o.prefetch_depth, [&](int64_t s) {
        std::mt19937_64 rng(step_seed(sample_seed, base_steps + s));
        const std::vector<size_t> picked = buffer.sample_indices(size_t(tc.batch_size), rng);
        StepBatch sb;
        for (int k = 0; k < slices; ++k) {
          const size_t first = size_t(rank * slices + k) * part_rows;
          sb.slices.push_back(make_batch(
              part_rows, [&](size_t i) -> const ShardRow& { return buffer.row(picked[first + i]); },
              [&](size_t i) { return buffer.next_row(picked[first + i]); }, pits, opponent,
              score_max_margin, cuda, tc.value_target_root_weight));
        }
        return sb;
      });
  while (step < steps) {
    const StepBatch batches = prefetch.next();
    const double lr = learning_rate(tc, base_steps + step);
    for (auto& group : opt.param_groups())
      static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
    opt.zero_grad();
    // Slices after the first start from the step's initial running statistics, as the
    // other ranks do; their updated statistics are summed like the gradients.
    std::vector<torch::Tensor> start_buffers, stats_sum;
    if (slices > 1)
      for (const auto& b : all_buffers) start_buffers.push_back(b.detach().clone());
    // The losses stay on the device until a step reports them: reading them every step
    // would make the CPU wait for the GPU.
    torch::Tensor loss_sum;
    for (int k = 0; k < slices; ++k) {
      if (k > 0) {
        torch::NoGradGuard ng;
        for (size_t i = 0; i < all_buffers.size(); ++i) all_buffers[i].copy_(start_buffers[i]);
      }
      const Batch b = to_device(batches.slices[size_t(k)], device);
      const Losses l = compute_losses(net, b, pits, tc, bf16);
      l.total.backward();
      const torch::Tensor losses =
          torch::stack({l.total, l.policy, l.value, l.margin, l.opponent, l.score}).detach();
      loss_sum = k == 0 ? losses : loss_sum + losses;
      if (slices > 1) {
        torch::NoGradGuard ng;
        for (size_t i = 0; i < stats.size(); ++i) {
          if (k == 0)
            stats_sum.push_back(stats[i].detach().clone());
          else
            stats_sum[i].add_(stats[i]);
        }
      }
    }
    if (parts > 1) {
      torch::NoGradGuard ng;
      if (slices > 1)
        for (size_t i = 0; i < stats.size(); ++i) stats[i].copy_(stats_sum[i]);
      const double scale = 1.0 / parts;
      if (world > 1) {
        const auto ta = Clock::now();
        std::vector<torch::Tensor> pieces;
        pieces.reserve(params.size() + stats.size() + 1);
        for (const auto& p : params)
          pieces.push_back(p.grad().defined() ? p.grad().reshape(-1)
                                              : torch::zeros({p.numel()}, p.options()));
        for (const auto& b : stats) pieces.push_back(b.reshape(-1));
        pieces.push_back(loss_sum);
        torch::Tensor flat = torch::cat(pieces);
        comm.all_reduce_sum(flat, "step " + std::to_string(step + 1) + "'s gradients");
        flat.mul_(scale);
        int64_t at = 0;
        for (const auto& p : params) {
          if (p.grad().defined()) p.mutable_grad().view(-1).copy_(flat.narrow(0, at, p.numel()));
          at += p.numel();
        }
        for (const auto& b : stats) {
          b.view(-1).copy_(flat.narrow(0, at, b.numel()));
          at += b.numel();
        }
        loss_sum = flat.narrow(0, at, 6);
        report.allreduce_seconds += std::chrono::duration<double>(Clock::now() - ta).count();
      } else {
        for (const auto& p : params)
          if (p.grad().defined()) p.mutable_grad().mul_(scale);
        for (const auto& b : stats) b.mul_(scale);
        loss_sum = loss_sum * scale;
      }
    }
    opt.step();
    ++step;
    ++steps_this_run;
    // --stop-after behaves as a run killed here would: the checkpoint is the only trace.
    const bool stopping = o.stop_after > 0 && step >= o.stop_after && step < steps;
    const bool reporting = step % 10 == 0 || step == steps || stopping;
    if (reporting) {
      const torch::Tensor l = loss_sum.to(torch::kCPU, torch::kFloat64);
      report.last_loss = l[0].item<double>();
      report.last_policy = l[1].item<double>();
      report.last_value = l[2].item<double>();
      report.last_margin = l[3].item<double>();
      report.last_opponent = l[4].item<double>();
      report.last_score = l[5].item<double>();
    }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    report.samples_per_s = secs > 0 ? steps_this_run * double(tc.batch_size) / secs : 0;
    if (metrics && (step % 10 == 0 || step == steps)) {
      std::vector<std::pair<std::string, double>> fields = {{"loss", report.last_loss},
                                                            {"policy", report.last_policy},
                                                            {"value", report.last_value},
                                                            {"margin", report.last_margin}};
      if (opponent) fields.emplace_back("opponent", report.last_opponent);
      if (score_max_margin > 0) fields.emplace_back("score", report.last_score);
      fields.emplace_back("lr", lr);
      fields.emplace_back("samples_per_s", report.samples_per_s);
      metrics->log(base_steps + step, fields);
    }
    if (step % tc.validation_every == 0 || step == steps) validate();
    if ((step % checkpoint_every == 0 || stopping) && step < steps && leader)
      save_checkpoint(checkpoint, net, opt, step, model);
    if (stopping) {
      progress.finish();
      report.steps_done = step;
      report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      return report;
    }
    progress.set_done(step);
    if (reporting) progress.set_field("loss", report.last_loss, 4);
    progress.set_field("samples/s", std::round(report.samples_per_s), 6);
  }
  progress.finish();
  report.steps_done = step;
  report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!leader) return report;
  model.meta.training_steps = base_steps + step;
  model.meta.note =
      "trained on " + std::to_string(load.rows_train) + " rows from '" + o.data_dir + "'";
  // Dated when it was trained, not when its init model was made (empty = now on saving).
  model.meta.created.clear();
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
