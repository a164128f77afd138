// The one options system of the training tools: a TOML file (configs/*.toml, which may
// `extends = "base.toml"` another) whose sections fill the structs below. The keys, with
// their ranges and help, are declared once in train/config_schema.cpp; the defaults are
// these structs' (and those of NetConfig and SearchParams). Unknown keys, wrong types and
// values out of range are errors naming the file and line, so a typo never silently
// trains with a default.
//
// Command-line flags of the executables override single keys after loading.
#pragma once

#include <string>

#include "core/position.h"
#include "mcts/search.h"
#include "nn/net_config.h"

namespace kz {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SelfplayConfig {
  int games_in_parallel = 96;  // games searched together, in two halves that take turns
  int max_batch = 256;         // most positions per network call
  int full_visits = 200;       // visits of a full search (its policy is a training target)
  int fast_visits = 40;        // visits of a fast search (not recorded as a policy target)
  // Playout cap randomisation (KataGo): each move is a full search with this
  // probability, else a fast one. More positions per hour, most of them value-only.
  float full_search_fraction = 0.25f;
  float dirichlet_alpha = 0.5f;  // root noise on full searches (~10 / legal moves)
  float dirichlet_fraction = 0.25f;
  // Move temperature: `opening_temperature` for the first `temperature_plies` plies,
  // then `final_temperature` (0 = best move).
  float opening_temperature = 1.0f;
  int temperature_plies = 12;
  float final_temperature = 0.0f;
  // Resignation: a game ends when the mover's root win+draw probability stays below
  // `resign_threshold` for `resign_consecutive` of its moves. `no_resign_fraction` of
  // games never resign, to measure how often resigning would have been wrong.
  float resign_threshold = 0.02f;
  int resign_consecutive = 3;
  float no_resign_fraction = 0.2f;
  int random_opening_plies = 4;  // uniformly random plies before searching starts
  std::string openings_file;     // PGN or one position string per line; "" = none
  int max_plies = 600;           // a game still running then is adjudicated by stores
  int games_per_shard = 32;      // games per written shard
  // Share of games that start from a position of openings_file; the others start with
  // random_opening_plies random plies as without a file. 1 = every game (as before).
  float openings_fraction = 1.0f;
  // Where a PGN openings file's games are cut: the position after this many plies
  // (-1 = random_opening_plies). Recorded games cut deeper give positions people reach.
  int openings_plies = -1;
  // Policy surprise weighting (KataGo): full-search rows written about (1 - s) + s x
  // surprise / the game's mean surprise times (surprise: KL of the search's policy from
  // the network's prior), so the trainer sees surprising positions more often. 0 = once.
  float surprise_weight = 0.0f;
};

struct TrainConfig {
  int batch_size = 256;
  int steps_per_generation = 400;
  float learning_rate = 0.02f;  // peak, SGD with Nesterov momentum
  float momentum = 0.9f;
  float weight_decay = 1e-4f;
  int warmup_steps = 100;  // linear warm-up from 0 at the very start of a run
  // The rate is multiplied by lr_decay after every `lr_decay_steps` total steps.
  int lr_decay_steps = 4000;
  float lr_decay = 0.5f;
  float policy_weight = 1.0f;  // loss = policy CE + value CE + margin Huber, weighted
  float value_weight = 1.0f;
  float margin_weight = 0.5f;
  // Value targets blended with the search (KataGo, lc0): the W/D/L and margin targets are
  // (1 - w) x the game's result + w x the row's root value and root margin. 0 = the
  // result alone. Validation losses always measure against the result, so runs with
  // different weights compare.
  float value_target_root_weight = 0.0f;
  // Weight of the opponent-policy head's cross-entropy (KataGo's 0.15); used only when
  // [network] opponent_policy_head is on, which is the switch.
  float opponent_policy_weight = 0.15f;
  // Weight of the score distribution head's cross-entropy on the final margin; used only
  // when [network] score_distribution_head is on.
  float score_distribution_weight = 0.1f;
  int64_t window_rows = 200000;       // train on the newest shards up to this many rows
  int window_generations = 0;         // or only the newest N generations (0 = no limit)
  float validation_fraction = 0.05f;  // held-out games for the validation loss
  int validation_every = 100;         // steps between validation passes
  int threads = 2;                    // LibTorch intra-op threads
  // "fp32", or "bf16": the forward pass under autocast in bfloat16 (weights and the
  // optimizer stay float32). On a CPU without native bfloat16 it is slower than fp32.
  std::string precision = "fp32";
};

struct GateConfig {
  int games = 40;    // games per match (paired: each opening twice)
  int visits = 100;  // visits per move for both players
  int games_in_parallel = 20;
  int opening_plies = 4;  // random plies that make each opening pair
  // Moves of the first `temperature_plies` plies sampled by visits^(1/opening_temperature)
  // (mcts/game_runner.h PairedMatch): equal players then do not replay the same game in
  // both colours. 0 = the best move always (as before).
  float opening_temperature = 0;
  int temperature_plies = 0;
  // SPRT on the Elo difference; a match stops early when the LLR crosses a bound.
  float elo0 = 0, elo1 = 40, alpha = 0.05f, beta = 0.05f;
  double promote_min_score = 0.55;  // without an SPRT verdict, promote at this score or above
};

struct LoopConfig {
  int generations = 100;           // stop after this many generations
  int games_per_generation = 256;  // self-play games before each training step
  // Every retrain_every-th generation trains a fresh network from scratch on a larger
  // window instead of continuing the previous generation (0 = never): one training over
  // the whole pool made a better network than the chain of short increments on the
  // newest window (docs/runs.md, pool32-gen0088). The candidate is gated like any other.
  int retrain_every = 0;
  int64_t retrain_window_rows = 0;  // its window (0 = train.window_rows)
  int retrain_steps = 0;            // its steps (0 = train.steps_per_generation)
  int retrain_lr_decay_steps = 0;   // its rate schedule (0 = train.lr_decay_steps)
};

// Continuous mode (train/follow.h: kumalak-selfplay/-train/-gate --follow RUN).
struct FollowConfig {
  int candidate_every_steps = 200;  // the trainer writes a candidate every N steps
  // The trainer waits while it would train more than this many samples per position
  // that arrived since the last candidate (KataGo's max_train_bucket_per_new_data).
  float max_samples_per_new_position = 4.0f;
  float poll_seconds = 10.0f;  // how often a waiting process looks at the run folder
};

struct RunConfig {
  std::string source;  // the file it came from, for messages
  GameSpec game = GameSpec::togyz();
  std::string device = "cpu";
  uint64_t seed = 1;
  NetConfig network;
  SearchParams search;  // base search parameters of every tool
  // [search] threads: the game runner's search threads (mcts/game_runner.h) in
  // self-play, gating and the bench; 0 = default_search_threads().
  int search_threads = 0;
  SelfplayConfig selfplay;
  TrainConfig train;
  GateConfig gate;
  LoopConfig loop;
  FollowConfig follow;
};

// Reads a config file and the bases it extends; throws ConfigError naming the file, line
// and key.
RunConfig load_config(const std::string& path);
// The same from a string (tests); `source` names it in messages, and a base it extends
// is found relative to it.
RunConfig parse_config(const std::string& text, const std::string& source);

}  // namespace kz
