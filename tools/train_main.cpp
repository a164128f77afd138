// kumalak-train: trains a model from the newest self-play shards; resumable.
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "nn/allocator.h"
#include "nn/model_file.h"
#include "tools/cli_options.h"
#include "tools/command_error.h"
#include "train/config_schema.h"
#include "train/follow.h"
#include "train/trainer.h"

int main(int argc, char** argv) {
  kz::keep_tensor_memory();  // see nn/allocator.h
  CLI::App app{"KumalakZero trainer: a window of self-play shards -> a new model"};
  kz::TrainOptions o;
  std::string config_path;
  int threads = 0;
  kz::cli::add_config_option(app, config_path);
  auto* data = app.add_option("--data", o.data_dir, "folder of shards (searched recursively)");
  app.add_option("--init", o.init_model, "starting model (default: a fresh network)");
  auto* out = app.add_option("--out", o.out_model, "model file to write (required to train)");
  app.add_option("--checkpoint", o.checkpoint, "checkpoint file (default: OUT.ckpt)");
  app.add_option("--metrics", o.metrics_path, "append per-step metrics here (.jsonl or .csv)");
  app.add_option("--plot", o.plot_path, "write a PNG of the loss curves here (needs --metrics)");
  app.add_option("--steps", o.steps, "optimizer steps (default: train.steps_per_generation)")
      ->check(kz::cli::in_range(1, 100000000));
  app.add_option("--generation", o.generation,
                 "generation recorded in the output (default: init's + 1)");
  kz::cli::add_torch_threads_option(app, threads);
  app.add_flag("--resume", o.resume, "continue from the checkpoint when there is one");
  app.add_flag("--grow", o.grow,
               "grow the --init model to the config's [network] channels x blocks first; "
               "it plays exactly as before until trained (new channels and blocks start "
               "silent)");
  app.add_option("--stop-after", o.stop_after,
                 "stop after N steps leaving only the checkpoint (tests)")
      ->group("");
  // Several processes: the launcher's variables (train/distributed.h), or these flags.
  int rank = -1, world_size = -1, master_port = -1;
  std::string master_addr;
  app.add_option("--rank", rank, "this process's rank (default: RANK or SLURM_PROCID, else 0)")
      ->check(kz::cli::in_range(0, 1 << 20));
  app.add_option("--world-size", world_size,
                 "number of ranks (default: WORLD_SIZE or SLURM_NTASKS, else 1)")
      ->check(kz::cli::in_range(1, 1 << 20));
  app.add_option("--master-addr", master_addr,
                 "rank 0's address (default: MASTER_ADDR, else 127.0.0.1)");
  app.add_option("--master-port", master_port, "rank 0's port (default: MASTER_PORT, else 29500)")
      ->check(kz::cli::in_range(1, 65535));
  app.add_option("--dist-timeout", o.distributed.timeout_s,
                 "seconds any rank waits for the others before giving up (default 300)")
      ->check(kz::cli::in_range(1, 86400));
  app.add_option("--batch-slices", o.batch_slices,
                 "compute each step's batch as N slices, averaged: N ranks' arithmetic in one "
                 "process (default 1)")
      ->check(kz::cli::in_range(1, 65536));
  app.add_option("--loader-threads", o.loader_threads,
                 "threads encoding the next steps' batches ahead of the optimizer (0 = none; "
                 "default 1)")
      ->check(kz::cli::in_range(0, 64));
  bool init_only = false;
  app.add_flag("--init-only", init_only,
               "write a freshly initialised generation-0 model to --out and exit (with "
               "--init and --grow: the --init model grown to the config's size)");
  // The run config's keys, declared once in train/config_schema.cpp: listed, read and
  // dumped here, so that scripts (tools/loop.sh) never parse TOML themselves.
  kz::cli::add_help_config_flag(app);
  app.add_flag_callback(
         "--help-config-markdown",
         [] {
           std::cout << kz::config_markdown_table();
           throw CLI::Success();
         },
         "the same as docs/training.md's table")
      ->group("");
  std::string get_key;
  bool dump_config = false;
  app.add_option("--get", get_key,
                 "print the value of one key of --config (seed, loop.generations, ...; its "
                 "default when the config does not set it) and exit");
  app.add_flag("--dump-config", dump_config,
               "print --config with its bases resolved and every key set, as TOML, and exit");
  // Continuous mode (train/follow.h); --config then only starts a new run.
  std::string follow;
  kz::FollowBounds follow_bounds;
  app.add_option("--follow", follow,
                 "continuous mode: train candidate after candidate for run folder RUN");
  app.add_option("--max-candidates", follow_bounds.max_items,
                 "with --follow: stop after this many candidates");
  app.add_option("--max-seconds", follow_bounds.max_seconds,
                 "with --follow: start no candidate after this many seconds");
  CLI11_PARSE(app, argc, argv);
  try {
    // Ranks: the launcher's variables (train/distributed.h), overridden by the flags.
    o.distributed = kz::distributed_from_environment(o.distributed);
    if (rank >= 0) o.distributed.rank = rank;
    if (world_size >= 1) o.distributed.world_size = world_size;
    if (!master_addr.empty()) o.distributed.master_addr = master_addr;
    if (master_port >= 1) o.distributed.master_port = master_port;
    if (!follow.empty()) {
      if (o.distributed.rank > 0) spdlog::set_level(spdlog::level::warn);  // rank 0 reports
      kz::FollowTrainFlags flags;
      flags.threads = threads;
      flags.distributed = o.distributed;
      flags.batch_slices = o.batch_slices;
      return kz::follow_train_main(follow, config_path, follow_bounds, flags);
    }
    if (config_path.empty()) throw std::invalid_argument("--config is required");
    o.config = kz::load_config(config_path);
    if (!get_key.empty()) {
      const kz::ConfigKey* key = kz::find_config_key(get_key);
      if (!key)
        throw std::invalid_argument("--get: no config key '" + get_key +
                                    "' (kumalak-train --help-config lists them)");
      std::cout << kz::config_value_text(o.config, *key, false) << "\n";
      return 0;
    }
    if (dump_config) {
      std::cout << "# " << o.config.source
                << " with its bases resolved (kumalak-train --dump-config)\n"
                << kz::config_as_toml(o.config);
      return 0;
    }
    if (out->count() == 0) throw std::invalid_argument("--out is required");
    if (init_only) {
      if (!o.init_model.empty()) {
        if (!o.grow)
          throw std::invalid_argument("--init-only with --init writes nothing new without --grow");
        const kz::Model from = kz::load_model(o.init_model, &o.config.game);
        kz::save_model(o.out_model, kz::grown_model(from, o.config.network.channels,
                                                    o.config.network.blocks, o.config.seed + 2));
        std::cout << "train: wrote '" << o.init_model << "' grown from "
                  << from.meta.network.channels << " x " << from.meta.network.blocks << " to "
                  << o.config.network.channels << " x " << o.config.network.blocks << " to "
                  << o.out_model << std::endl;
        return 0;
      }
      if (o.grow) throw std::invalid_argument("--grow needs --init: the model to grow");
      kz::save_model(o.out_model,
                     kz::make_random_model(o.config.game, o.config.network, o.config.seed));
      std::cout << "train: wrote a fresh generation-0 model to " << o.out_model << std::endl;
      return 0;
    }
    if (data->count() == 0) throw std::invalid_argument("--data is required");
    if (o.distributed.rank > 0) spdlog::set_level(spdlog::level::warn);  // rank 0 reports
    torch::set_num_threads(threads > 0 ? threads : o.config.train.threads);
    const auto r = kz::run_training(o);
    if (o.distributed.rank > 0) {
      std::cout << "train: rank " << o.distributed.rank << " of " << r.world_size << ": "
                << r.steps_done << " steps done" << std::endl;
      return 0;
    }
    if (r.world_size > 1)
      std::cout << "train: " << r.world_size << " ranks; all-reduce "
                << (r.seconds > 0 ? 100 * r.allreduce_seconds / r.seconds : 0)
                << " % of the training time" << std::endl;
    std::cout << "train: " << r.steps_done << " steps (resumed from " << r.resumed_from_step
              << "), " << r.window_rows << " window rows, " << r.validation_rows
              << " validation rows, " << r.samples_per_s << " samples/s; loss " << r.last_loss
              << " (policy " << r.last_policy << ", value " << r.last_value << ", margin "
              << r.last_margin;
    if (r.val_opponent >= 0) std::cout << ", opponent " << r.last_opponent;
    if (r.val_score >= 0) std::cout << ", score " << r.last_score;
    std::cout << "); validation " << r.val_loss << "; skipped shards " << r.skipped_shards.size()
              << std::endl;
  } catch (const std::exception& e) {
    kz::cli::print_command_error("kumalak-train", e);
    return 1;
  }
  return 0;
}
