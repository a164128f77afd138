// What `kumalak-train` (tools/train_main.cpp) does besides run_training, apart from its
// command line so that tests/train_train_command_test.cpp reaches it: the ranks' flags
// over the launcher's variables, a config key's value (--get), the initial model
// (--init-only) and the summary line of a training.
#pragma once

#include <string>

#include "train/config.h"
#include "train/distributed.h"
#include "train/trainer.h"

namespace kz {

// The ranks as the command line sets them (a negative number or "": not set).
struct DistributedFlags {
  int rank = -1;            // --rank
  int world_size = -1;      // --world-size
  std::string master_addr;  // --master-addr
  int master_port = -1;     // --master-port
};

// `options` (the launcher's variables, distributed_from_environment) with what `flags`
// set in their place.
//   options: the ranks as the environment says
//   flags: the command line's
DistributedOptions with_distributed_flags(DistributedOptions options,
                                          const DistributedFlags& flags);

// The value of `key` in `config` as --get prints it (its default where the config does not
// set it). Throws std::invalid_argument for a key the config has not.
//   config: the run config
//   key: a dotted key, "seed", "loop.generations"
std::string config_key_value(const RunConfig& config, const std::string& key);

// --init-only: writes a freshly initialised generation-0 model to `o.out_model`, or with
// `o.grow` the `o.init_model` grown to the config's size, and returns the line that says
// so (without its line break). Throws std::invalid_argument for --init without --grow
// (nothing new to write) or --grow without --init, and what loading or saving throws.
//   o: the options (config, init_model, grow, out_model)
std::string write_initial_model(const TrainOptions& o);

// The summary of a training for this rank, with its line breaks: rank 0 says the steps,
// rows, speed and losses (and the all-reduce's share with several ranks), another rank
// only its steps.
//   r: run_training's answer
//   rank: this process's rank
std::string training_summary(const TrainReport& r, int rank);

}  // namespace kz
