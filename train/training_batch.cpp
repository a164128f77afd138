#include "train/training_batch.h"

#include <algorithm>
#include <random>
#include <span>
#include <stdexcept>
#include <string>

#include "core/checksum.h"
#include "nn/features.h"

namespace kz {

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

Batch make_batch(size_t n, const BatchRowAt& row, const BatchNextRowAt& next,
                 const BatchTargets& targets) {
  const int pits = targets.pits;
  const bool opponent = targets.opponent_policy;
  const int score_max_margin = targets.score_max_margin;
  const float root_weight = targets.value_target_root_weight;
  const int64_t B = int64_t(n);
  const int L = 2 * pits;
  const size_t per = size_t(kNumPlanes) * L;
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(targets.pinned);
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

Batch to_device(const Batch& b, const torch::Device& device) {
  if (device.is_cpu()) return b;
  auto move = [&](const torch::Tensor& t) {
    return t.defined() ? t.to(device, /*non_blocking=*/true) : torch::Tensor();
  };
  Batch d;
  d.features = move(b.features);
  d.policy = move(b.policy);
  d.policy_mask = move(b.policy_mask);
  d.wdl = move(b.wdl);
  d.margin = move(b.margin);
  d.wdl_soft = move(b.wdl_soft);
  d.opponent_policy = move(b.opponent_policy);
  d.opponent_mask = move(b.opponent_mask);
  d.score_class = move(b.score_class);
  return d;
}

BatchSplit split_batch(int batch_size, int rank, int world, int slices) {
  BatchSplit split;
  split.rank = rank;
  split.world = world;
  split.slices = slices;
  if (batch_size % split.parts() != 0)
    throw std::invalid_argument(
        "[train] batch_size " + std::to_string(batch_size) +
        " is not a multiple of ranks x batch slices = " + std::to_string(split.parts()));
  split.part_rows = size_t(batch_size / split.parts());
  return split;
}

uint64_t sample_seed(uint64_t config_seed, int64_t generation) {
  return config_seed + uint64_t(generation) * 7919;
}

// Not core/checksum.h's mix64: this mixer's output is the order in which every seeded run
// so far drew its rows, so a resumed run of an older version, or a rerun that must give
// the same weights, depends on it bit for bit. mix64 (shift 30, then two more rounds) is
// another function; only the golden-ratio multiplier is shared.
uint64_t step_draw_seed(uint64_t sample_seed, int64_t total_step) {
  uint64_t h = sample_seed * kGoldenGamma ^ uint64_t(total_step) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 31;
  return h * 0xBF58476D1CE4E5B9ull;
}

StepBatch make_step_batch(const ReplayBuffer& buffer, uint64_t draw_seed, int batch_size,
                          const BatchSplit& split, const BatchTargets& targets) {
  std::mt19937_64 rng(draw_seed);
  const std::vector<size_t> picked = buffer.sample_indices(size_t(batch_size), rng);
  StepBatch sb;
  for (int k = 0; k < split.slices; ++k) {
    const size_t first = size_t(split.rank * split.slices + k) * split.part_rows;
    sb.slices.push_back(make_batch(
        split.part_rows, [&](size_t i) -> const ShardRow& { return buffer.row(picked[first + i]); },
        [&](size_t i) { return buffer.next_row(picked[first + i]); }, targets));
  }
  return sb;
}

}  // namespace kz
