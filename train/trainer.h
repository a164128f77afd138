// Training: a window of the newest self-play rows (train/replay_buffer.h), uniform
// sampling, loss = policy cross-entropy + W/D/L cross-entropy + margin Huber (weights in
// the config's [train] section), SGD with Nesterov momentum and a stepped learning
// rate. Checkpoints (weights + optimizer + step) are written atomically; --resume
// continues exactly, because each step's sample is drawn from a generator seeded by
// (config seed + 7919 x the initial model's generation, total step count) rather than
// from state that a crash would lose; the generation term gives every generation of a
// run its own sample order. The validation slice is drawn with the config seed alone.
//
// Several processes (data parallel, train/distributed.h): every rank draws the same
// global batch of `batch_size` rows for a step and computes the gradients of its own
// contiguous slice (rank r of W takes rows [r B/W, (r+1) B/W)); the gradients, the
// batch-norm running statistics and the losses are summed over ranks in one all-reduce
// and divided by W, so every rank holds the same weights after every step. Batch norm
// normalises each slice by its own statistics, as PyTorch's DDP without SyncBatchNorm
// does; `batch_slices` computes the same arithmetic in one process (gradient
// accumulation over slices), which is what a W-rank run is tested against. Rank 0
// alone validates, writes metrics, checkpoints and the output model; every rank reads
// the same checkpoint on --resume, and the ranks check that they agree on config, data,
// weights and step before the first step.
//
// Where each part is: run_training (train/trainer.cpp) sets up, loads the window, prepares
// and resumes the model and runs the steps; a step's rows and targets are
// train/training_batch.h, its losses (by name, packed for the all-reduce) and their
// metrics columns train/training_losses.h, the averaging over slices and ranks
// train/gradient_averaging.h, the ranks' agreement train/rank_agreement.h, the checkpoint
// train/training_checkpoint.h.
#pragma once

#include <string>
#include <vector>

#include "train/config.h"
#include "train/distributed.h"
#include "train/shard.h"
#include "train/training_batch.h"  // value_targets, opponent_policy_target

namespace kz {

struct TrainOptions {
  RunConfig config;
  std::string data_dir;      // shards (searched recursively)
  std::string init_model;    // starting weights; "" = a fresh network
  std::string out_model;     // written at the end (atomically)
  std::string checkpoint;    // "" = out_model + ".ckpt"
  std::string metrics_path;  // JSONL (or .csv) of per-step metrics; "" = none
  std::string plot_path;     // PNG of the loss curves; "" = none
  int steps = 0;             // 0 = config.train.steps_per_generation
  int generation = -1;       // recorded in the output; -1 = init model's + 1
  bool resume = false;       // continue from the checkpoint if it exists
  // Grow the init model to the config's [network] channels x blocks before training
  // (nn/model_file.h grown_model: it plays as before until trained). Without it a
  // model of another size than the config's trains at its own size, with a warning.
  bool grow = false;
  // Stop after this many steps, leaving a checkpoint and no output model, as a killed
  // run would (0 = off). For testing resumption.
  int stop_after = 0;
  bool show_progress = true;
  DistributedOptions distributed;  // world_size 1 = one process
  // A job already joined (kumalak-train --follow keeps one for all its candidates); null =
  // join one from `distributed` for this run. Not owned.
  Communicator* communicator = nullptr;
  // Non-empty: the window is these shards only (paths as a scan of data_dir spells them),
  // so that every rank trains on the shards its leader listed.
  std::vector<std::string> window_shards;
  // Each step's batch (or rank's slice) is computed as this many slices one after
  // another, each normalised on its own by batch norm, and their gradients averaged:
  // the arithmetic of that many ranks, in one process. 1 = the whole batch at once.
  int batch_slices = 1;
  // Threads that draw and encode the next steps' rows while the optimizer works (0 = the
  // optimizer's thread does it between steps), and how many steps they may be ahead.
  int loader_threads = 1;
  int prefetch_depth = 4;
};

struct TrainReport {
  int steps_done = 0;
  int resumed_from_step = 0;
  uint64_t window_rows = 0, validation_rows = 0;
  std::vector<std::string> skipped_shards;
  double samples_per_s = 0;  // global: all ranks' rows
  double seconds = 0;
  int world_size = 1;
  double allreduce_seconds = 0;  // waiting in the step's all-reduce (incl. for slower ranks)
  // The losses (train/training_losses.h) of the last reported step (every 10th, the last)
  // and of the last validation pass (-1: none yet, or no validation rows).
  double last_loss = 0, last_policy = 0, last_value = 0, last_margin = 0;
  double val_loss = -1, val_policy = -1, val_value = -1, val_margin = -1;
  // The opponent-policy cross-entropy ([network] opponent_policy_head; 0 / -1 without).
  double last_opponent = 0, val_opponent = -1;
  // The score distribution's cross-entropy ([network] score_distribution_head).
  double last_score = 0, val_score = -1;
};

// The device run_training trains on (the config's; per local rank for plain "cuda"), for
// a caller that joins the job itself (TrainOptions::communicator).
torch::Device training_device_of(const TrainOptions& o);

TrainReport run_training(const TrainOptions& options);

}  // namespace kz
