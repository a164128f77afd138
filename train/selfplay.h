// Self-play: many games at once in one process, one batched evaluator, training rows
// written as shards (train/shard.h) into a folder that any number of workers on any
// number of machines may share.
//
// Resuming: a worker is identified by `worker_id` (default: derived from the seed and
// generation). On start it counts the games already in shards it wrote for this
// generation and plays only the rest; a shard is written whole or not at all, so a
// killed worker loses at most the games of the shard in progress.
#pragma once

#include <array>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "train/config.h"

namespace kz {

struct SelfplayOptions {
  RunConfig config;
  std::string model_path;  // "" = a freshly initialised network (generation 0)
  std::string out_dir;     // shards go here
  int games = 0;           // games this worker plays in total for this generation
  int generation = 0;      // recorded in each shard; the trainer's window orders by it
  std::string worker_id;   // "" = "s<seed>-g<generation>"
  bool show_progress = true;
  // Recorded as the shard header's `model` ("" = model_path, or "random-init"): follow
  // mode names the promoted model there (file, generation, weights checksum).
  std::string model_label;
  // When set, asked before each game starts (under the runner's controller lock): false
  // = start no more games; the games in flight finish and are written. Follow mode
  // (train/follow.h) stops a round there when a new best model or SIGTERM arrives.
  std::function<bool()> keep_starting;
  // Called after every shard is written (its path, games and rows), before the next game
  // ends: what a worker reports as written is on disk.
  std::function<void(const std::string& path, int games, int64_t rows)> on_shard_written;
};

struct SelfplayReport {
  int games_already_done = 0;  // found from an earlier, interrupted run
  int games_played = 0;
  int64_t rows = 0, full_rows = 0, plies = 0;
  int64_t evaluations = 0;
  double seconds = 0;
  int white_wins = 0, black_wins = 0, draws = 0;
  int resigned = 0;
  // Games that would have resigned but never resign: how many of those the would-be
  // resigner did not lose (false resignations).
  int no_resign_would_resign = 0, false_resignations = 0;
  std::vector<std::string> shards;
};

SelfplayReport run_selfplay(const SelfplayOptions& options);

// Plays `games` games as `worker`, numbered from `first_game_number` (the numbers seed
// the games), writing shards to options.out_dir: no lock and no resume count, which
// are the caller's (follow mode keeps one lock and one count over many calls).
SelfplayReport play_selfplay_games(const SelfplayOptions& options, const std::string& worker,
                                   int first_game_number, int games);

// Policy surprise weighting (KataGo): how much a full search's visit distribution
// `target` differs from the network's `prior`, KL(target || prior) in nats (priors below
// 1e-6 count as 1e-6). Both by pit.
float policy_surprise(const std::array<float, kMaxMoves>& target,
                      const std::array<float, kMaxMoves>& prior);
// How many times each row of one game is written, given each row's surprise (< 0 for a
// fast-search row, which is written once) and [selfplay] surprise_weight s: a full-search
// row's weight is (1 - s) + s x its surprise / the mean surprise of the game's full rows
// (so the game's full rows keep their total weight on average), written floor(weight)
// times and once more with the probability of the rest. s = 0: every row once, and
// `rng` is not drawn from.
std::vector<int> surprise_copies(std::span<const float> surprise, float s, std::mt19937_64& rng);

// Start positions from a file: one position string per line, or a PGN file whose
// games give the position after `plies` moves. Throws ParseError naming the problem.
std::vector<Position> load_openings(const std::string& path, const GameSpec& game, int plies);

}  // namespace kz
