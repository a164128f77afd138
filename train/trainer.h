// Training: a window of the newest self-play rows (train/replay_buffer.h), uniform
// sampling, loss = policy cross-entropy + W/D/L cross-entropy + margin Huber (weights in
// the config's [train] section), SGD with Nesterov momentum and a stepped learning
// rate. Checkpoints (weights + optimizer + step) are written atomically; --resume
// continues exactly, because each step's sample is drawn from a generator seeded by
// (config seed + 7919 x the initial model's generation, total step count) rather than
// from state that a crash would lose; the generation term gives every generation of a
// run its own sample order. The validation slice is drawn with the config seed alone.
//
// Distributed training: every tensor operation goes through LibTorch, so the natural
// growth path is c10d (Gloo on CPU, NCCL on GPU) all-reducing gradients between
// ranks that each sample their own (seed, rank, step) batch; nothing here assumes a
// single process beyond the one output file written by rank 0.
#pragma once

#include <string>

#include "train/config.h"

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
  // Stop after this many steps, leaving a checkpoint and no output model, as a killed
  // run would (0 = off). For testing resumption.
  int stop_after = 0;
  bool show_progress = true;
};

struct TrainReport {
  int steps_done = 0;
  int resumed_from_step = 0;
  uint64_t window_rows = 0, validation_rows = 0;
  std::vector<std::string> skipped_shards;
  double samples_per_s = 0;
  double seconds = 0;
  double last_loss = 0, last_policy = 0, last_value = 0, last_margin = 0;
  double val_loss = -1, val_policy = -1, val_value = -1, val_margin = -1;
};

TrainReport run_training(const TrainOptions& options);

}  // namespace kz
