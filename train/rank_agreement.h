// Before the first step of a run of several ranks (train/distributed.h): every rank's view
// of the job, compared across ranks, so that ranks started from different configs, data,
// models, checkpoints or flags stop at once instead of silently averaging unrelated
// gradients.
#pragma once

#include <cstdint>

#include "train/config.h"
#include "train/distributed.h"
#include "train/replay_buffer.h"

namespace kz {

// What a rank knows about the job that every rank must share.
struct RankView {
  int64_t world_size = 0;
  int64_t start_step = 0;  // the checkpoint's step (0 without one)
  int64_t weights_checksum = 0;
  int64_t settings_hash = 0;  // training_settings_hash
  int64_t window_rows = 0;    // training rows in the window
  int64_t window_hash = 0;    // window_hash
  int64_t steps = 0;          // steps this run trains
  int64_t base_steps = 0;     // training steps behind the initial model
  int64_t generation = 0;     // the generation being trained
};

// Every rank's RankView (a collective: every rank calls it); a difference is a
// DistributedError on every rank naming the first field that differs and both values.
void check_ranks_agree(Communicator& comm, const RankView& mine);

// What decides a step's arithmetic, apart from data and weights: the game, the network's
// shape, the [train] settings, the seed and `batch_slices`. FNV-1a 64.
uint64_t training_settings_hash(const RunConfig& cfg, int batch_slices);

// The training window's rows in order (the fields the loss reads), so that ranks which
// found other shards, or the same shards in another order, refuse to start. FNV-1a 64.
uint64_t window_hash(const ReplayBuffer& buffer);

}  // namespace kz
