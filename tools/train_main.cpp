// kumalak-train: trains a model from the newest self-play shards; resumable.
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "nn/allocator.h"
#include "tools/cli_options.h"
#include "tools/command_error.h"
#include "train/config_schema.h"
#include "train/follow.h"
#include "train/train_command.h"
#include "train/trainer.h"

namespace {

// Everything the command line says.
struct TrainCommandLine {
  kz::TrainOptions o;
  std::string config_path;
  int threads = 0;                   // LibTorch threads (0 = [train] threads)
  kz::DistributedFlags distributed;  // over the launcher's variables (train/distributed.h)
  bool init_only = false;            // --init-only
  std::string get_key;               // --get ("" = not asked)
  bool dump_config = false;          // --dump-config
  // Continuous mode (train/follow.h); --config then only starts a new run.
  std::string follow;
  kz::FollowBounds follow_bounds;
  CLI::Option* data = nullptr;  // --data, to tell whether it was given
  CLI::Option* out = nullptr;   // --out, likewise
};

// What to train and how.
void add_training_options(CLI::App& app, TrainCommandLine& cl) {
  kz::TrainOptions& o = cl.o;
  kz::cli::add_config_option(app, cl.config_path);
  cl.data = app.add_option("--data", o.data_dir, "folder of shards (searched recursively)");
  app.add_option("--init", o.init_model, "starting model (default: a fresh network)");
  cl.out = app.add_option("--out", o.out_model, "model file to write (required to train)");
  app.add_option("--checkpoint", o.checkpoint, "checkpoint file (default: OUT.ckpt)");
  app.add_option("--metrics", o.metrics_path, "append per-step metrics here (.jsonl or .csv)");
  app.add_option("--plot", o.plot_path, "write a PNG of the loss curves here (needs --metrics)");
  app.add_option("--steps", o.steps, "optimizer steps (default: train.steps_per_generation)")
      ->check(kz::cli::in_range(1, 100000000));
  app.add_option("--generation", o.generation,
                 "generation recorded in the output (default: init's + 1)");
  kz::cli::add_torch_threads_option(app, cl.threads);
  app.add_flag("--resume", o.resume, "continue from the checkpoint when there is one");
  app.add_flag("--grow", o.grow,
               "grow the --init model to the config's [network] channels x blocks first; "
               "it plays exactly as before until trained (new channels and blocks start "
               "silent)");
  app.add_option("--stop-after", o.stop_after,
                 "stop after N steps leaving only the checkpoint (tests)")
      ->group("");
}

// Several processes: the launcher's variables (train/distributed.h), or these flags.
void add_rank_options(CLI::App& app, TrainCommandLine& cl) {
  kz::DistributedFlags& d = cl.distributed;
  app.add_option("--rank", d.rank, "this process's rank (default: RANK or SLURM_PROCID, else 0)")
      ->check(kz::cli::in_range(0, 1 << 20));
  app.add_option("--world-size", d.world_size,
                 "number of ranks (default: WORLD_SIZE or SLURM_NTASKS, else 1)")
      ->check(kz::cli::in_range(1, 1 << 20));
  app.add_option("--master-addr", d.master_addr,
                 "rank 0's address (default: MASTER_ADDR, else 127.0.0.1)");
  app.add_option("--master-port", d.master_port, "rank 0's port (default: MASTER_PORT, else 29500)")
      ->check(kz::cli::in_range(1, 65535));
  app.add_option("--dist-timeout", cl.o.distributed.timeout_s,
                 "seconds any rank waits for the others before giving up (default 300)")
      ->check(kz::cli::in_range(1, 86400));
  app.add_option("--batch-slices", cl.o.batch_slices,
                 "compute each step's batch as N slices, averaged: N ranks' arithmetic in one "
                 "process (default 1)")
      ->check(kz::cli::in_range(1, 65536));
  app.add_option("--loader-threads", cl.o.loader_threads,
                 "threads encoding the next steps' batches ahead of the optimizer (0 = none; "
                 "default 1)")
      ->check(kz::cli::in_range(0, 64));
}

// What else the command does: the initial model, the config's keys and continuous mode.
void add_other_modes(CLI::App& app, TrainCommandLine& cl) {
  app.add_flag("--init-only", cl.init_only,
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
  app.add_option("--get", cl.get_key,
                 "print the value of one key of --config (seed, loop.generations, ...; its "
                 "default when the config does not set it) and exit");
  app.add_flag("--dump-config", cl.dump_config,
               "print --config with its bases resolved and every key set, as TOML, and exit");
  app.add_option("--follow", cl.follow,
                 "continuous mode: train candidate after candidate for run folder RUN");
  app.add_option("--max-candidates", cl.follow_bounds.max_items,
                 "with --follow: stop after this many candidates");
  app.add_option("--max-seconds", cl.follow_bounds.max_seconds,
                 "with --follow: start no candidate after this many seconds");
}

// --follow: candidate after candidate.
int run_follow(const TrainCommandLine& cl) {
  if (cl.o.distributed.rank > 0) spdlog::set_level(spdlog::level::warn);  // rank 0 reports
  kz::FollowTrainFlags flags;
  flags.threads = cl.threads;
  flags.distributed = cl.o.distributed;
  flags.batch_slices = cl.o.batch_slices;
  return kz::follow_train_main(cl.follow, cl.config_path, cl.follow_bounds, flags);
}

// What the parsed command line asks for; the exit status.
int run_train(TrainCommandLine& cl) {
  kz::TrainOptions& o = cl.o;
  o.distributed =
      kz::with_distributed_flags(kz::distributed_from_environment(o.distributed), cl.distributed);
  if (!cl.follow.empty()) return run_follow(cl);
  if (cl.config_path.empty()) throw std::invalid_argument("--config is required");
  o.config = kz::load_config(cl.config_path);
  if (!cl.get_key.empty()) {
    std::cout << kz::config_key_value(o.config, cl.get_key) << "\n";
    return 0;
  }
  if (cl.dump_config) {
    std::cout << "# " << o.config.source
              << " with its bases resolved (kumalak-train --dump-config)\n"
              << kz::config_as_toml(o.config);
    return 0;
  }
  if (cl.out->count() == 0) throw std::invalid_argument("--out is required");
  if (cl.init_only) {
    std::cout << kz::write_initial_model(o) << std::endl;
    return 0;
  }
  if (cl.data->count() == 0) throw std::invalid_argument("--data is required");
  if (o.distributed.rank > 0) spdlog::set_level(spdlog::level::warn);  // rank 0 reports
  torch::set_num_threads(cl.threads > 0 ? cl.threads : o.config.train.threads);
  const kz::TrainReport r = kz::run_training(o);
  std::cout << kz::training_summary(r, o.distributed.rank) << std::flush;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  kz::keep_tensor_memory();  // see nn/allocator.h
  CLI::App app{"KumalakZero trainer: a window of self-play shards -> a new model"};
  TrainCommandLine cl;
  add_training_options(app, cl);
  add_rank_options(app, cl);
  add_other_modes(app, cl);
  CLI11_PARSE(app, argc, argv);
  try {
    return run_train(cl);
  } catch (const std::exception& e) {
    kz::cli::print_command_error("kumalak-train", e);
    return 1;
  }
}
