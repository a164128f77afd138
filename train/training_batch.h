// The trainer's batches: the targets it gives a row, the tensors of a batch of rows, how
// a step's global batch is cut between ranks and slices, and the seed of each step's
// draw (train/trainer.h describes the training as a whole).
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "train/replay_buffer.h"
#include "train/shard.h"

namespace kz {

// The value targets the trainer gives a row: the W/D/L probabilities (win, draw, loss
// for the mover) and the margin / (all stones / 2), both (1 - w) x the game's result +
// w x the search's root value (root_win/draw/loss normalised to sum 1, root_margin),
// with w = [train] value_target_root_weight. w = 0 is the game's result alone.
struct ValueTargets {
  float wdl[3] = {0, 0, 0};
  float margin = 0;
};
ValueTargets value_targets(const ShardRow& row, float root_weight);

// The opponent-policy head's target for `row` ([network] opponent_policy_head): the move
// played from the next position, `next` (ReplayBuffer::next_row; nullptr = none): its
// search policy when it is a full-search row, else the one-hot of its played move. Over
// the ring of 2m cells (nn/features.h), seen from `row`'s mover: cells 0..m-1 when the
// same side moves again (Kalah's extra turn), m..2m-1 when the opponent replies. Weight
// 0 (and no target) when there is no next position or it records no move.
struct OpponentPolicyTarget {
  float weight = 0;
  std::array<float, 2 * kMaxMoves> policy{};
};
OpponentPolicyTarget opponent_policy_target(const ShardRow& row, const ShardRow* next);

// A batch of rows as tensors (on the CPU until to_device).
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

// What a batch holds besides the rows themselves.
struct BatchTargets {
  int pits = 0;                  // moves per position (GameSpec::pits)
  bool opponent_policy = false;  // the opponent-policy head's target and weight
  int score_max_margin = 0;      // M > 0: the score distribution's classes; 0 = no head
  // [train] value_target_root_weight (value_targets); 0 = the game's result alone.
  float value_target_root_weight = 0;
  // Page-locked memory, which a CUDA device copies from asynchronously (only for CUDA:
  // pinning needs the CUDA runtime).
  bool pinned = false;
};

// `row(i)` for i in [0, n): the rows of the batch, in order. `next(i)`: the row after
// row(i) in its game or nullptr (ReplayBuffer::next_row), read only for the
// opponent-policy target.
using BatchRowAt = std::function<const ShardRow&(size_t)>;
using BatchNextRowAt = std::function<const ShardRow*(size_t)>;
Batch make_batch(size_t n, const BatchRowAt& row, const BatchNextRowAt& next,
                 const BatchTargets& targets);

// The batch on `device`; from pinned memory the copies are asynchronous (they queue
// behind the GPU's work instead of waiting for it).
Batch to_device(const Batch& b, const torch::Device& device);

// How a step's global batch of [train] batch_size rows is cut: world ranks x slices
// parts of part_rows rows each; rank r computes parts r x slices .. r x slices +
// slices - 1, one slice after another.
struct BatchSplit {
  int rank = 0;
  int world = 1;
  int slices = 1;  // TrainOptions::batch_slices
  size_t part_rows = 0;
  int parts() const { return world * slices; }
};
// Throws std::invalid_argument unless `batch_size` is a multiple of world x slices.
BatchSplit split_batch(int batch_size, int rank, int world, int slices);

// The seed of a run's sample order: the config's seed, with 7919 x the initial model's
// generation added so that every generation of a run draws its own rows.
uint64_t sample_seed(uint64_t config_seed, int64_t generation);
// The seed of the draw of total step `total_step` (training steps behind the initial
// model + this run's), so that a resumed run draws what the killed one would have.
uint64_t step_draw_seed(uint64_t sample_seed, int64_t total_step);

// A step's rows, as this rank's slices: one batch per slice.
struct StepBatch {
  std::vector<Batch> slices;
};
// Draws the whole global batch of `batch_size` rows from `buffer` with the seed
// `draw_seed` (the same rows on every rank) and encodes this rank's slices of it. A pure
// function of its arguments, whichever thread calls it (train/prefetch.h).
StepBatch make_step_batch(const ReplayBuffer& buffer, uint64_t draw_seed, int batch_size,
                          const BatchSplit& split, const BatchTargets& targets);

}  // namespace kz
