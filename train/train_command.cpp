#include "train/train_command.h"

#include <sstream>
#include <stdexcept>

#include "nn/model_file.h"
#include "train/config_schema.h"

namespace kz {

DistributedOptions with_distributed_flags(DistributedOptions options,
                                          const DistributedFlags& flags) {
  if (flags.rank >= 0) options.rank = flags.rank;
  if (flags.world_size >= 1) options.world_size = flags.world_size;
  if (!flags.master_addr.empty()) options.master_addr = flags.master_addr;
  if (flags.master_port >= 1) options.master_port = flags.master_port;
  return options;
}

std::string config_key_value(const RunConfig& config, const std::string& key) {
  const ConfigKey* found = find_config_key(key);
  if (!found)
    throw std::invalid_argument("--get: no config key '" + key +
                                "' (kumalak-train --help-config lists them)");
  return config_value_text(config, *found, false);
}

std::string write_initial_model(const TrainOptions& o) {
  const NetConfig& net = o.config.network;
  std::ostringstream line;
  if (!o.init_model.empty()) {
    if (!o.grow)
      throw std::invalid_argument("--init-only with --init writes nothing new without --grow");
    const Model from = load_model(o.init_model, &o.config.game);
    save_model(o.out_model, grown_model(from, net.channels, net.blocks, o.config.seed + 2));
    line << "train: wrote '" << o.init_model << "' grown from " << from.meta.network.channels
         << " x " << from.meta.network.blocks << " to " << net.channels << " x " << net.blocks
         << " to " << o.out_model;
    return line.str();
  }
  if (o.grow) throw std::invalid_argument("--grow needs --init: the model to grow");
  save_model(o.out_model, make_random_model(o.config.game, net, o.config.seed));
  return "train: wrote a fresh generation-0 model to " + o.out_model;
}

std::string training_summary(const TrainReport& r, int rank) {
  std::ostringstream out;
  if (rank > 0) {
    out << "train: rank " << rank << " of " << r.world_size << ": " << r.steps_done
        << " steps done\n";
    return out.str();
  }
  if (r.world_size > 1)
    out << "train: " << r.world_size << " ranks; all-reduce "
        << (r.seconds > 0 ? 100 * r.allreduce_seconds / r.seconds : 0)
        << " % of the training time\n";
  out << "train: " << r.steps_done << " steps (resumed from " << r.resumed_from_step << "), "
      << r.window_rows << " window rows, " << r.validation_rows << " validation rows, "
      << r.samples_per_s << " samples/s; loss " << r.last_loss << " (policy " << r.last_policy
      << ", value " << r.last_value << ", margin " << r.last_margin;
  if (r.val_opponent >= 0) out << ", opponent " << r.last_opponent;
  if (r.val_score >= 0) out << ", score " << r.last_score;
  out << "); validation " << r.val_loss << "; skipped shards " << r.skipped_shards.size() << "\n";
  return out.str();
}

}  // namespace kz
