#include "train/rank_agreement.h"

#include <array>
#include <string>
#include <vector>

#include "core/checksum.h"

namespace kz {

namespace {

struct RankViewField {
  int64_t RankView::*member;
  const char* what;  // as an error names it: "... disagrees with rank 0 about the <what>"
};

// The fields in the order they are gathered and compared (the first that differs is named).
constexpr std::array<RankViewField, 9> kRankViewFields = {{
    {&RankView::world_size, "world size"},
    {&RankView::start_step, "step to continue from (checkpoint)"},
    {&RankView::weights_checksum, "weights checksum"},
    {&RankView::settings_hash, "[train] settings, network, game or seed (or --batch-slices)"},
    {&RankView::window_rows, "window size (rows)"},
    {&RankView::window_hash, "window contents (shards found)"},
    {&RankView::steps, "steps to train"},
    {&RankView::base_steps, "initial model (training steps behind it)"},
    {&RankView::generation, "generation"},
}};

}  // namespace

void check_ranks_agree(Communicator& comm, const RankView& mine) {
  std::vector<int64_t> values;
  for (const auto& field : kRankViewFields) values.push_back(mine.*field.member);
  const auto all = comm.all_gather(values, "the ranks' settings");
  for (size_t r = 1; r < all.size(); ++r)
    for (size_t i = 0; i < values.size(); ++i)
      if (all[r][i] != all[0][i])
        throw DistributedError("rank " + std::to_string(r) + " disagrees with rank 0 about the " +
                               kRankViewFields[i].what + " (" + std::to_string(all[r][i]) + " vs " +
                               std::to_string(all[0][i]) +
                               "): every rank must start from the same config, data, initial "
                               "model, checkpoint and flags");
}

uint64_t training_settings_hash(const RunConfig& cfg, int batch_slices) {
  const TrainConfig& t = cfg.train;
  uint64_t h = fnv1a64(cfg.game.name());
  for (int v :
       {cfg.network.channels, cfg.network.blocks, cfg.network.policy_channels,
        cfg.network.value_channels, cfg.network.value_hidden, int(cfg.network.opponent_policy_head),
        int(cfg.network.score_distribution_head), t.batch_size, t.warmup_steps, t.lr_decay_steps,
        t.window_generations, t.validation_every, batch_slices})
    h = fnv1a64_value(v, h);
  for (float v :
       {t.learning_rate, t.momentum, t.weight_decay, t.lr_decay, t.policy_weight, t.value_weight,
        t.margin_weight, t.validation_fraction, t.value_target_root_weight,
        t.opponent_policy_weight, t.score_distribution_weight})
    h = fnv1a64_value(v, h);
  h = fnv1a64_value(t.window_rows, h);
  return fnv1a64_value(cfg.seed, h);
}

uint64_t window_hash(const ReplayBuffer& buffer) {
  uint64_t h = kFnv1a64Start;
  for (size_t i = 0; i < buffer.size(); ++i) {
    const ShardRow& r = buffer.row(i);
    h = fnv1a64_value(r.game_id, h);
    h = fnv1a64_value(r.ply, h);
    h = fnv1a64_value(r.result, h);
    h = fnv1a64_value(r.final_margin, h);
    h = fnv1a64_value(r.flags, h);
    h = fnv1a64(r.policy.data(), sizeof(float) * r.policy.size(), h);
  }
  return h;
}

}  // namespace kz
